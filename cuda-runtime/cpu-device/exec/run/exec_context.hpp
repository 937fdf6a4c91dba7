// What instruction handlers run against: the launch (shared by every worker), the CTA and warp a
// worker is executing, and the current register frame.
#pragma once

#include "exec/engine.hpp"
#include "exec/decode/program.hpp"
#include "exec/run/warp.hpp"

#include <xcuda/cpu/finding.hpp>
#include <xcuda/cpu/line_profile.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xcuda::cpu {

class SharedShadow;    // check/shared_race.hpp
class SharedState;     // check/shared_state.hpp
class GlobalRaceLog;   // check/global_race.hpp
class DeviceRuntime;   // exec/run/device_runtime.hpp
class AccessRecorder;  // access_trace.hpp
class DebugSession;    // xcuda/cpu/debugger.hpp

// One launch, as every worker sees it.
struct LaunchState {
    const Program* program = nullptr;
    const KernelInfo* kernel = nullptr;
    const LaunchSpec* spec = nullptr;
    RunOptions options;
    const std::atomic<bool>* cancel = nullptr;
    std::shared_ptr<const AllocationTable> table;
    std::uint64_t params_address = 0;             // the parameter buffer, an allocation of the arena
    const SharedLayout* shared_layout = nullptr;  // the kernel's shared window
    std::uint32_t dynamic_shared_offset = 0;      // where extern .shared arrays start in the CTA window
    std::uint32_t shared_window_bytes = 0;        // static + dynamic
    std::uint32_t local_stride = 0;               // bytes of local memory per thread
    std::uint64_t grid_workspace = 0;             // cooperative launches: cooperative_groups' grid barrier word
    std::uint32_t threads_per_cta = 0, warps_per_cta = 0;
    DeviceRuntime* device_runtime = nullptr;  // when the program launches grids from the device
    DebugSession* debug = nullptr;            // a debugger's launch (debug_session.hpp): one worker, stops at lines

    // The first failure stops everything.
    std::atomic<bool> stop{false};
    std::mutex failure_mutex;
    std::shared_ptr<Failure> failure;
    CUresult status = CUDA_SUCCESS;

    // Device printf: whole records, in the order they were made.
    std::mutex printf_mutex;
    std::string printf_output;
    std::uint64_t printf_dropped = 0;

    // The line profile: counts per pc, summed over workers at the end.
    std::mutex profile_mutex;
    std::vector<InstructionCounts> counts;
};

// A barrier of a CTA (bar.sync id): threads arrived so far, and how many it waits for.
struct BarrierState {
    std::uint32_t arrived = 0;   // threads
    std::uint32_t expected = 0;  // 0 while nobody waits
    std::uint32_t pc = 0;        // where the first arrival waits (for divergence reports)
    std::uint32_t red_popc = 0;  // bar.red accumulators
    bool red_and = true, red_or = false;
};

struct Cta {
    Dim3 ctaid;
    std::uint32_t cluster_rank = 0;
    std::byte* shared = nullptr;  // the CTA's shared window
    std::uint32_t live_threads = 0;
    std::uint64_t barrier_epoch = 0;   // the race clock at its last barrier (race_clock.hpp)
    std::vector<std::uint32_t> warps;  // indices into the worker's warp array
    BarrierState barriers[16];
    SharedShadow* shadow = nullptr;       // the race check's (nullptr with checks off)
    SharedState* shared_state = nullptr;  // the memory check's: written bytes, red zones (nullptr with checks off)
};

// What a warp's shared-memory access learned from its address register's 32 values (ops_memory.cpp):
// the highest active offset, the lanes grouped by offset. A warp's next access through a register
// holding the same values (a tile's row, k = 0..15 at growing displacements) reuses it.
struct SharedAddressShape {
    std::byte values[32 * 8];    // the register's lanes as they were (`width` bytes each)
    std::uint32_t offsets[32];   // each lane's value, below 2^32 in active lanes
    std::uint64_t highest = 0;   // of the active lanes' values
    std::uint64_t lowest = 0;    // of the active lanes' values
    std::uint32_t low_bits = 0;  // the active lanes' values or'ed (their alignment)
    std::uint32_t mask = 0;      // the active lanes
    // The lanes grouped by offset (ops_memory.cpp's group_lanes): each group's lanes and one of them.
    std::uint32_t group_lanes[32];
    std::uint8_t group_lane[32];
    std::uint8_t groups = 0;
    std::uint8_t width = 0;  // 0: unused
    // A full warp's offsets as a row: lane l's is offsets[0] + (l % period) * stride (period 32, or
    // 16 when the warp's halves access the same row); period 0 when they are not.
    std::uint8_t period = 0;
    std::uint32_t stride = 0;
};

struct Exec {
    LaunchState* launch = nullptr;
    const Program* program = nullptr;
    const Inst* code = nullptr;
    bool checks = true;
    std::uint32_t worker = 0;  // which worker thread (%smid)

    // The warp being executed.
    Warp* warp = nullptr;
    Cta* cta = nullptr;
    std::vector<Cta>* ctas = nullptr;    // the CTAs this worker runs together (a cluster, a cooperative grid)
    std::uint64_t* epochs = nullptr;     // the worker's race clock (race_clock.hpp)
    GlobalRaceLog* races = nullptr;      // the worker's global-memory race log (nullptr: checks off)
    std::byte* regs = nullptr;           // the running group's frame
    std::uint32_t pc = 0;                // the instruction being executed (for reports)
    std::uint32_t frame_local_base = 0;  // the running frame's .local base

    // The last global allocation an access hit: [ok_begin, ok_end) is known to be live.
    std::uint64_t ok_begin = 1, ok_end = 0;
    const Allocation* ok_allocation = nullptr;
    // The allocation of the last access checked access by access without being cached above (the
    // device heap, memory with unwritten bytes): the race check's footprint for that access.
    std::uint64_t unchecked_begin = 0, unchecked_end = 0;  // empty

    // Shared-access shapes, one slot per hash of the register's lane 0 (ops_memory.cpp): a tile
    // loop's warps each reach memory through a few registers whose values stay the same all kernel
    // long, so the slots hold every warp's of a CTA between barriers.
    static constexpr unsigned shared_shape_slots = 64;
    std::unique_ptr<SharedAddressShape[]> shared_shapes;

    bool faulted = false;                 // a finding stopped the current instruction
    InstructionCounts* counts = nullptr;  // per pc, when profiling (this worker's)
    AccessRecorder* trace = nullptr;      // what each thread did, when tracing (counts are on then too)

    // --- operand access: every operand is a slot of the current frame
    template <class T>
    T* reg(std::uint32_t offset) const noexcept {
        return reinterpret_cast<T*>(regs + offset);
    }
    std::uint32_t pred(std::uint32_t offset) const noexcept {
        std::uint32_t m;
        std::memcpy(&m, regs + offset, 4);
        return m;
    }
    void set_pred(std::uint32_t offset, std::uint32_t value, std::uint32_t mask) const noexcept {
        std::uint32_t m = pred(offset);
        m = (m & ~mask) | (value & mask);
        std::memcpy(regs + offset, &m, 4);
    }

    // Thread and block of a lane of the current warp.
    Dim3 thread_of(unsigned lane) const noexcept;
    std::uint32_t linear_thread(unsigned lane) const noexcept { return warp->first_thread + lane; }

    // Records a finding for `lane` of the current instruction (the first one wins: the launch
    // stops) and marks the instruction faulted. Returns false so handlers can `return x.fail(...)`.
    void fail(Finding finding, unsigned lane, std::uint32_t lanes = 1, CUresult code = CUDA_ERROR_LAUNCH_FAILED);
    // The finding fail() would record, without recording it (the thread, block and site filled in).
    Finding prepare(Finding finding, unsigned lane, std::uint32_t lanes = 1) const;
    // Records a finding prepare() made earlier, as fail() does (the first one wins).
    void report(Finding finding, CUresult code);
    // The site (location, text, function) of the current instruction, filled into a finding.
    void locate(Finding& f) const;
    // A .loc as file names and lines.
    SourceLocation location_of(const ptx::Loc& loc) const;
};

// Index of the lowest set bit; `mask` must not be 0.
inline unsigned first_lane(std::uint32_t mask) noexcept { return static_cast<unsigned>(__builtin_ctz(mask)); }

// Runs `body(lane)` for each lane set in `mask`, lowest first.
template <class F>
inline void for_lanes(std::uint32_t mask, F&& body) {
    while (mask != 0) {
        const unsigned lane = first_lane(mask);
        mask &= mask - 1;
        body(lane);
    }
}

}  // namespace xcuda::cpu

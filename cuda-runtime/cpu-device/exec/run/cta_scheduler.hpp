// Running a group of CTAs on one worker thread: their warps interleaved, barriers, and what is
// found when they cannot all go on. Internal to the engine.
#pragma once

#include "exec/run/barrier_divergence.hpp"
#include "exec/run/exec_context.hpp"
#include "check/global_race.hpp"
#include "check/shared_race.hpp"
#include "check/shared_state.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace xcuda::cpu {

// Memory aligned to a cache line (frames, windows: lanes' slots vectorise, workers do not share
// lines), released as it was allocated (an aligned new[] needs the aligned delete[]).
struct AlignedDelete {
    void operator()(std::byte* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedBytes = std::unique_ptr<std::byte[], AlignedDelete>;
inline AlignedBytes aligned_bytes(std::size_t n) {
    return AlignedBytes(new (std::align_val_t{64}) std::byte[n < 64 ? 64 : n]);
}

// Register frames of one function size, reused across CTAs and launches on a worker.
class FramePool {
public:
    std::byte* take(std::uint32_t bytes);
    void give(std::byte* frame, std::uint32_t bytes);

private:
    struct Free {
        std::uint32_t bytes;
        std::vector<std::byte*> frames;
    };
    std::vector<Free> free_;
    std::vector<AlignedBytes> owned_;
};

// What one worker thread keeps between units and launches.
struct WorkerState {
    std::vector<Warp> warps;
    std::vector<Cta> ctas;
    std::vector<AlignedBytes> shared;                         // one window per CTA slot
    std::size_t shared_bytes = 0;                             // each window's size
    std::vector<std::unique_ptr<SharedShadow>> shadows;       // one per CTA slot
    std::vector<std::unique_ptr<SharedState>> shared_states;  // one per CTA slot
    AlignedBytes local;                                       // every warp's local windows
    std::size_t local_bytes = 0;
    FramePool frames;
    std::uint64_t epochs = 0;  // the race clock (race_clock.hpp)
    GlobalRaceLog race_log;    // this launch's units, for the global-memory race check
    BarrierPaths barrier_paths;
};

enum class WarpStop : std::uint8_t {
    waiting,  // every group waits (barrier, __syncwarp, collective)
    done,     // every lane exited
    yielded,  // used its quantum, or spins on memory: others should run
    failed,   // a finding stopped the launch
};

// Runs warp `w` until it stops (exec_context: x.warp, x.cta set by the caller).
WarpStop run_warp(Exec& x, WorkerState& worker, Warp& w, std::uint64_t quantum);

// Runs CTAs [first, first + count) of the launch (one CTA, a cluster, or a cooperative grid,
// given by their linear block indices in launch order) on this worker to their end.
void run_unit(Exec& x, WorkerState& worker, const std::vector<std::uint64_t>& blocks);

// Device printf / __assertfail / malloc / free calls (device_side_calls.cpp): the lanes `mask` of the
// current group make the call; results go to the call site's result slots.
void run_builtin(Exec& x, const CallSite& call, std::uint32_t mask);

// Takes a group's lanes out of the warp (exit): frames, CTA counts.
void retire_lanes(Exec& x, Warp& w, std::uint16_t frame, std::uint32_t lanes);

}  // namespace xcuda::cpu

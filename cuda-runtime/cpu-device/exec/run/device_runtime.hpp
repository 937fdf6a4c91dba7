// The device-side CUDA runtime (dynamic parallelism): what a kernel compiled with -rdc calls to
// launch grids from the device (libcudadevrt's entry points, __cudaCDP2GetParameterBufferV2,
// __cudaCDP2LaunchDeviceV2 ...), implemented natively: a GPU runs libcudadevrt's machine code,
// which the CPU device cannot.
//
// CUDA 12's semantics (CDP2): a grid launched from the device (a child) is complete before its
// parent grid is; launches into one stream run in order; a tail launch (cudaStreamTailLaunch)
// runs after the parent grid and all its other work; there is no device-side synchronisation.
// Here every child runs after its parent grid's last block, ordinary launches in the order they
// were made, then tail launches in order, each with its own children before the next: an order a
// GPU may also choose, so a correct program computes the same. A parent cannot see its children's
// results before it ends on either.
#pragma once

#include "exec/run/exec_context.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace xcuda::cpu {

// The device runtime's entry points the CPU device implements (CallSite::runtime_entry).
enum class RuntimeEntry : std::uint8_t {
    get_parameter_buffer,     // (alignment, size) -> buffer
    get_parameter_buffer_v2,  // (kernel, grid, block, shared bytes) -> buffer
    launch_device,            // (kernel, buffer, grid, block, shared bytes, stream) -> error
    launch_device_v2,         // (buffer, stream) -> error
    stream_create_with_flags,
    stream_destroy,
    get_last_error,
    peek_at_last_error,
    get_device,
    get_device_count,
    runtime_get_version,
    malloc,
    free,
};

// The entry point a call to `name` is (CDP2's __cudaCDP2X and CDP1's cudaX, with or without
// _ptsz); false for any other name.
bool device_runtime_entry(std::string_view name, RuntimeEntry& entry);

// A grid a thread launched from the device, waiting for its parent grid to end.
struct DeviceLaunch {
    std::uint32_t function = 0;  // Program::functions index of the kernel
    Dim3 grid, block;
    unsigned shared_bytes = 0;
    std::vector<std::byte> parameters;  // copied from the parameter buffer when launched
};

// One launch's device-side runtime state: parameter buffers, the grids its threads launched,
// their streams and last errors. Made before the launch's blocks run; every worker uses it.
class DeviceRuntime {
public:
    // Reserves the parameter buffers in `memory` (before the launch takes its allocation table,
    // so that the parent's stores into them are checked accesses to a live allocation).
    DeviceRuntime(const Program& program, const Module& module, DeviceMemory& memory);
    ~DeviceRuntime();
    DeviceRuntime(const DeviceRuntime&) = delete;
    DeviceRuntime& operator=(const DeviceRuntime&) = delete;
    bool ready() const noexcept { return region_ != 0; }

    // The calls (the lanes of `mask` make them; results go to the call's result slot).
    void call(Exec& x, const CallSite& call, std::uint32_t mask);

    // Runs the grids this launch's threads launched, after its last block, each with its own
    // children. The first failure stops the rest and is the outcome.
    LaunchOutcome run_children(const LaunchSpec& parent, const RunOptions& options, const std::atomic<bool>& cancel);

private:
    struct Slot {
        bool in_use = false;
        bool has_kernel = false;  // V2: the buffer knows its kernel and shape
        DeviceLaunch launch;
    };
    int launch(Exec& x, unsigned lane, std::uint64_t buffer, std::uint64_t stream, const DeviceLaunch* shape);
    void set_error(Exec& x, unsigned lane, int error);
    std::uint64_t thread_key(const Exec& x, unsigned lane) const;

    const Program& program_;
    const Module& module_;
    DeviceMemory& memory_;
    std::uint64_t region_ = 0;      // the parameter buffers, slot_bytes_ each
    std::uint32_t slot_bytes_ = 0;  // the module's largest parameter list, 16-byte aligned
    std::mutex mutex_;
    std::vector<Slot> slots_;
    std::vector<std::uint32_t> free_slots_;
    std::vector<DeviceLaunch> launched_;                 // ordinary streams, in launch order
    std::vector<DeviceLaunch> tail_;                     // cudaStreamTailLaunch, in launch order
    std::unordered_map<std::uint64_t, int> last_error_;  // per thread of the grid
    std::unordered_set<std::uint64_t> streams_;          // created on the device, not yet destroyed
    std::uint64_t next_stream_ = 0x100;                  // above cudaStreamTailLaunch/FireAndForget's handles
};

}  // namespace xcuda::cpu

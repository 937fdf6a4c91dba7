#pragma once
// The per-launch hook behind %cuda_timeit and %%cuda_profile: while a LaunchRecorder exists,
// Kernel::launch hands it the launch, and it brackets the launch with CUDA events on the
// launch's stream. With no recorder, a launch pays one null-pointer test.
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/stream.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xcuda::magics {

class Kernel;
class ModuleImpl;

struct RecordedLaunch {
    std::string kernel;  // "saxpy" or "axpy<float>"
    int device = 0;
    rt::Dim3 grid, block;
    std::size_t dynamic_shared = 0;
    CUstream stream = nullptr;
    int registers = 0;                         // details only
    std::size_t static_shared = 0;             // details only
    std::optional<std::uint64_t> array_bytes;  // details only: see array_argument_bytes
    std::shared_ptr<ModuleImpl> module;        // details only: the compiled cell (for --lines)
    std::string lowered_name;                  // details only: the function's mangled name
    bool graph = false;                        // a graph replay: `kernel` names its kernels
    rt::Event start, end;
};

class LaunchRecorder {
public:
    // details: also read the function's registers and static shared memory and the arrays'
    // sizes (%%cuda_profile); without it only the events are recorded (%cuda_timeit).
    // Becomes the active recorder; one at a time (a second raises UsageError naming the
    // magic that is already recording).
    LaunchRecorder(bool details, std::string owner);
    ~LaunchRecorder();
    LaunchRecorder(const LaunchRecorder&) = delete;
    LaunchRecorder& operator=(const LaunchRecorder&) = delete;

    // Launches through rt::launch between two recorded events. A launch that throws is not
    // recorded (it did not run).
    void launch(const Kernel& kernel, const rt::Function& f, pybind11::handle args, rt::Dim3 grid, rt::Dim3 block,
                std::size_t shared_mem, CUstream stream, void** params, const rt::LaunchOptions& options);

    // A graph replay (`replay` launches it on `stream`) between two recorded events: one entry
    // whose name says the graph's kernels ("graph of 100 kernels: add_one x100").
    void launch_graph(std::string label, CUstream stream, const std::function<void()>& replay);

    const std::vector<RecordedLaunch>& launches() const { return launches_; }
    // GPU milliseconds of each launch so far; waits (interruptibly, without the GIL) for them.
    std::vector<double> elapsed_ms() const;
    void clear() { launches_.clear(); }

private:
    bool details_;
    std::string owner_;
    std::vector<RecordedLaunch> launches_;
};

// The recorder launches go through, or nullptr.
LaunchRecorder* active_launch_recorder() noexcept;

// True while CUPTI's range profiler collects counters on this thread's launches. A graph
// launch is refused then: CUPTI's kernel replay gives it no range and, seen on the H200, no
// kernel launched after it in the same collection gets one either.
bool collecting_counters() noexcept;

// Runs `work` (the code the counter profiler measures) with collecting_counters() true.
void while_collecting_counters(const std::function<void()>& work);

// Sum of `nbytes` of the arrays passed to the kernel's pointer parameters: an upper bound on
// the bytes a launch moves (the arrays passed, not the bytes the kernel touches). nullopt
// when a pointer argument has no nbytes (a raw address), so the figure would be a guess.
std::optional<std::uint64_t> array_argument_bytes(const Kernel& kernel, pybind11::handle args);

}  // namespace xcuda::magics

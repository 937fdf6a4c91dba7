#pragma once
// Everything xcuda remembers between calls in this process: the selected device and its
// contexts, the compile cache and registered headers, the staging pools, the launch recorder
// and the launch caches. One Session, made on first use and never destroyed: its members hold
// CUDA handles and Python objects, and a static destructor would release them after the driver
// and the interpreter may already be gone at exit (the driver frees the process's resources).
//
// Not here, on purpose: what depends only on the interpreter (interned attribute names, type
// objects and modules looked up once, pybind11 type records, numpy dtypes per element type),
// which are constants of the process rather than state, and the thread_local markers of a graph
// capture and a counter collection, which belong to the thread that runs them.
#include <xcuda/compile/compile_cell.hpp>
#include <xcuda/compile/header_registry.hpp>
#include <xcuda/rt/context.hpp>
#include <xcuda/rt/memory.hpp>

#include <pybind11/pybind11.h>

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace xcuda::magics {

class Kernel;
class LaunchRecorder;
class ModuleImpl;
struct KernelBinding;
struct KnownArrayTypes;
struct TimelineRecording;

class Session {
public:
    // --- the device (session/device_state.cpp)
    int selected_device = 0;
    bool device_chosen = false;        // selected_device holds the default once asked
    bool launched_since_sync = false;  // a launch the post-cell synchronisation has not waited for
    // Every launch this process made (%%cuda_check counts them through xcuda._core._launch_count,
    // bound in launch/device_objects.cpp).
    std::uint64_t launches = 0;
    std::map<int, std::unique_ptr<rt::PrimaryContext>> contexts;  // retained on first use, by ordinal
    bool sync_after_cell = true;        // session/post_cell_sync.cpp: a cell waits for the kernels it launched
    std::string gpu_work_left_running;  // what an interrupt left running on the GPU (session/gpu_work_left_running.cpp)

    // --- compiling (the compile session: session.cpp; used by kernels/module_object.cpp and
    // kernels/pickling.cpp; headers registered by ipython/magic_header.cpp)
    // The compile session (and its cache) is made on first compile, not with the Session: it
    // reads its cache settings from the environment, which a user may set after `import xcuda`.
    compile::CompileSession& compiler();
    compile::HeaderRegistry headers;

    // --- staging numpy arguments (session/staging_pool.cpp)
    struct StagingCache {
        std::vector<rt::DeviceBuffer> free;
        std::size_t bytes = 0;
    };
    std::map<int, StagingCache> staging;              // by device ordinal
    std::vector<rt::DeviceBuffer> abandoned_staging;  // still used by work an interrupt walked away from

    // --- launching (the recorder: kernels/launch_recorder.cpp; the caches: kernels/kernel_object.cpp)
    // Why launches leave the plain path now, one bit per reason (session/launch_detours.hpp): the
    // device is not chosen yet until the first current_device().
    unsigned launch_detours = 1u;
    LaunchRecorder* recorder = nullptr;  // %%cuda_profile / %cuda_timeit / Kernel.profile recording launches
    std::string recorder_owner;          // who it is, for the message to a second one

    // The last xcuda.Stream given to kernel[..., stream] and its handle (a new reference).
    PyObject* last_stream = nullptr;
    CUstream last_stream_handle = nullptr;

    // The last cacheable kernel[config] and the launcher made for it.
    struct LastLauncher {
        Kernel* kernel = nullptr;  // kept alive by the launcher
        pybind11::object config, launcher;
    };
    LastLauncher last_launcher;

    // The exception a fast launch slot caught, until the bound function it calls rethrows it as
    // the module's other errors are raised; that function, xcuda._rethrow_pending (kernels/launch_slots.cpp).
    std::exception_ptr pending_launch_exception;
    PyObject* rethrow_pending = nullptr;
    // What the launch path learnt of the array types and dtypes it met (launch/known_arrays.cpp).
    std::shared_ptr<KnownArrayTypes> known_array_types;

    // The Kernel bindings of the most recent compiled modules, most recent first
    // (kernels/module_object.cpp).
    struct RecentBindings {
        std::weak_ptr<const compile::CompiledModule> module;
        std::vector<std::shared_ptr<const KernelBinding>> bindings;
    };
    std::list<RecentBindings> recent_bindings;

    // --- the CPU device (kernels/cpu_launches.cpp): the kernels launched on it, by lowered name,
    // so a failed check is reported with their parameters' names and the cell's lines (read where
    // KernelCheckError is translated, in kernels/, and by profiling/cpu_line_counts.cpp); and
    // whether the first cell that launched on it has said so.
    struct CpuLaunched {
        std::shared_ptr<const KernelBinding> binding;
        std::weak_ptr<ModuleImpl> module;
    };
    std::map<std::string, CpuLaunched> cpu_launched;
    bool cpu_device_announced = false;

    // --- the timeline (profiling/timeline_recording.cpp): the recording %%cuda_timeline runs, one at a time.
    std::shared_ptr<TimelineRecording> timeline;
    // --- unpickling (kernels/pickling.cpp): modules rebuilt here, by a digest of what was pickled.
    std::map<std::string, std::weak_ptr<ModuleImpl>> rebuilt_modules;

    // --- interrupts (session/interrupt.cpp): the exception a signal handler raised during a wait, owned
    // (new references) until it is restored. Only the thread that waits touches it, with the GIL.
    PyObject* interrupt_type = nullptr;
    PyObject* interrupt_value = nullptr;
    PyObject* interrupt_traceback = nullptr;

private:
    std::unique_ptr<compile::CompileSession> compiler_;
};

// This process's Session. Needs the GIL, like everything it holds.
// Inline: a launch asks for it several times; out of line it cost 16-20 instructions a launch
// (bench/probes/launch_callgrind.py). Never destroyed: see above.
inline Session& session() {
    static Session* const s = new Session();
    return *s;
}

}  // namespace xcuda::magics

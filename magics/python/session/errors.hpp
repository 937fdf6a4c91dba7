#pragma once
// The Python exception tree of docs/DESIGN.md, and the translation of the runtime's C++
// exceptions into it:
//   CudaError
//     CompileError              .log, .line, .column, .source_line; IPython renders it without traceback
//     DriverError               .code, .name, .call
//       LaunchError
//         KernelCheckError      the CPU device's checks: .kind, .line, .thread, .block, .parameter, ...
//       OutOfMemoryError        (also a MemoryError)
//       ContextLostError
//     NoDeviceError
//     KernelStillRunningError   an interrupted cell's kernel still runs on the GPU
//     ProfilerUnavailableError  counters or PC sampling cannot run here: .reason
#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

struct ErrorClasses {
    pybind11::handle cuda_error;
    pybind11::handle compile_error;
    pybind11::handle driver_error;
    pybind11::handle launch_error;
    pybind11::handle kernel_check;
    pybind11::handle out_of_memory;
    pybind11::handle no_device;
    pybind11::handle profiler_unavailable;
    pybind11::handle context_lost;
    pybind11::handle kernel_still_running;
};

// Creates the classes in `m` and registers the C++ -> Python translator.
void define_errors(pybind11::module_& m);

// The classes created by define_errors (the interpreter keeps them alive).
const ErrorClasses& error_classes();

// Where a compile error points in the user's cell, for CompileError's attributes.
struct CompileErrorInfo {
    std::string message;      // the whole formatted report, as shown to the user
    std::string log;          // NVRTC's raw log
    int line = 0;             // 1-based line in the cell, 0 when unknown
    int column = 0;           // 1-based, 0 when unknown
    std::string source_line;  // that line of the cell
};

// Sets CompileError as the current Python error and throws pybind11::error_already_set.
[[noreturn]] void raise_compile_error(const CompileErrorInfo& info);

// Sets `type(message)` as the current Python error and throws error_already_set.
[[noreturn]] void raise(pybind11::handle type, const std::string& message);

}  // namespace xcuda::magics

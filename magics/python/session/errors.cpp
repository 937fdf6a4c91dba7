#include "session/errors.hpp"
#include "session/gpu_work_left_running.hpp"
#include "session/interrupt.hpp"

#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/interrupted_work.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <Python.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

ErrorClasses classes;

py::handle new_class(py::module_& m, const char* name, const char* doc, py::tuple bases) {
    const std::string qualified = std::string(py::str(m.attr("__name__"))) + "." + name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
    if (!cls) throw py::error_already_set();
    // The module holds the reference; ErrorClasses keeps borrowed handles to it.
    m.add_object(name, py::handle(cls));
    return cls;
}

py::object driver_error_instance(py::handle cls, const rt::DriverError& e, const std::string& more = "") {
    py::object exc = cls(std::string(e.what()) + more);
    exc.attr("code") = static_cast<int>(e.code());
    exc.attr("name") = e.name();
    exc.attr("call") = e.call();
    return exc;
}

void set_driver_error(py::handle cls, const rt::DriverError& e, const std::string& more = "") {
    py::object exc = driver_error_instance(cls, e, more);
    PyErr_SetObject(cls.ptr(), exc.ptr());
}

// IPython calls this instead of formatting a traceback: a compile error is about the cell's
// CUDA source, and the Python frames of the magic would only hide it.
py::list render_compile_error(py::handle self) {
    py::list lines;
    py::str message = py::str(self.attr("args")[py::int_(0)]);
    lines.append(py::str("\x1b[0;31mCompileError\x1b[0m: ") + message);
    return lines;
}

}  // namespace

const ErrorClasses& error_classes() { return classes; }

void raise(py::handle type, const std::string& message) {
    PyErr_SetString(type.ptr(), message.c_str());
    throw py::error_already_set();
}

void raise_compile_error(const CompileErrorInfo& info) {
    py::object exc = classes.compile_error(info.message);
    exc.attr("log") = info.log;
    exc.attr("line") = info.line;
    exc.attr("column") = info.column;
    exc.attr("source_line") = info.source_line;
    PyErr_SetObject(classes.compile_error.ptr(), exc.ptr());
    throw py::error_already_set();
}

void define_errors(py::module_& m) {
    classes.cuda_error = new_class(m, "CudaError", "Base of every error the CUDA layer raises.",
                                   py::make_tuple(py::handle(PyExc_RuntimeError)));
    classes.compile_error =
        new_class(m, "CompileError",
                  "NVRTC rejected the source. .log is the compiler's output; .line/.column point into the cell.",
                  py::make_tuple(classes.cuda_error));
    classes.driver_error =
        new_class(m, "DriverError", "A CUDA driver call failed. .code (int), .name (CUDA_ERROR_...), .call.",
                  py::make_tuple(classes.cuda_error));
    classes.launch_error = new_class(m, "LaunchError", "A launch was refused (configuration, resources). Not sticky.",
                                     py::make_tuple(classes.driver_error));
    classes.kernel_check = new_class(
        m, "KernelCheckError",
        "A kernel launched on the CPU device failed one of its checks: an out-of-bounds, misaligned or freed "
        "access, a shared- or global-memory race, a divergent barrier, a warp collective with absent threads, a "
        "device assert or trap, or an instruction it cannot run. The message says where in the cell's terms; .kind "
        "('out_of_bounds', 'shared_race', 'global_race', 'divergent_barrier', ...), .line and .other_line (cell "
        "lines), .thread and .block (x, y, z), .other_thread and .other_block (a race's other access, else None), "
        ".parameter (the array parameter's name), .report (the device's own words). Not sticky: the device stays "
        "usable.",
        py::make_tuple(classes.launch_error));
    classes.out_of_memory =
        new_class(m, "OutOfMemoryError", "The device ran out of memory. Not sticky: free memory and retry.",
                  py::make_tuple(classes.driver_error, py::handle(PyExc_MemoryError)));
    classes.context_lost =
        new_class(m, "ContextLostError",
                  "A sticky device fault (illegal address, trap, assert): restart the kernel to use the GPU again.",
                  py::make_tuple(classes.driver_error));
    classes.no_device =
        new_class(m, "NoDeviceError", "No usable CUDA driver or device.", py::make_tuple(classes.cuda_error));
    classes.kernel_still_running = new_class(
        m, "KernelStillRunningError",
        "An interrupt stopped a cell while the GPU ran its kernel, and the kernel still runs (a GPU cannot stop "
        "one): until it ends, what needs the GPU fails with this at once. xcuda.gpu_work_left_running() says "
        "what runs; restarting the kernel ends it.",
        py::make_tuple(classes.cuda_error));
    classes.profiler_unavailable = new_class(
        m, "ProfilerUnavailableError",
        "Hardware counters or PC sampling cannot run here (no CUPTI, counters restricted to administrators, a "
        "virtual GPU): the message says which and the fix. .reason is 'no_cupti', 'not_permitted', 'unsupported' "
        "or 'failed'.",
        py::make_tuple(classes.cuda_error));

    for (const char* attr : {"log", "source_line"}) py::setattr(classes.compile_error, attr, py::str(""));
    for (const char* attr : {"line", "column"}) py::setattr(classes.compile_error, attr, py::int_(0));
    py::setattr(
        classes.compile_error, "_render_traceback_",
        py::cpp_function(render_compile_error, py::is_method(classes.compile_error), py::name("_render_traceback_")));

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const rt::CompileError& e) {
            CompileErrorInfo info;
            info.message = std::string(e.what()) + "\n" + e.log();
            info.log = e.log();
            py::object exc = classes.compile_error(info.message);
            exc.attr("log") = info.log;
            PyErr_SetObject(classes.compile_error.ptr(), exc.ptr());
        } catch (const rt::LaunchError& e) {
            set_driver_error(classes.launch_error, e);
        } catch (const rt::OutOfMemoryError& e) {
            set_driver_error(classes.out_of_memory, e);
        } catch (const rt::ContextLostError& e) {
            // The runtime names the kernel that ran last, and repeats this first fault on every
            // later call.
            set_driver_error(classes.context_lost, e, " (%cuda_restart does it keeping the notebook's variables)");
        } catch (const rt::DriverError& e) {
            set_driver_error(classes.driver_error, e);
        } catch (const rt::NoDeviceError& e) {
            PyErr_SetString(classes.no_device.ptr(), e.what());
        } catch (const rt::ProfilerUnavailable& e) {
            using Why = rt::ProfilerUnavailable::Why;
            const char* reason = e.why() == Why::no_cupti        ? "no_cupti"
                                 : e.why() == Why::not_permitted ? "not_permitted"
                                 : e.why() == Why::unsupported   ? "unsupported"
                                 : e.why() == Why::busy          ? "busy"
                                                                 : "failed";
            py::object exc = classes.profiler_unavailable(e.what());
            exc.attr("reason") = reason;
            PyErr_SetObject(classes.profiler_unavailable.ptr(), exc.ptr());
        } catch (const rt::InterruptedWorkRunning& e) {
            PyErr_SetString(classes.kernel_still_running.ptr(), e.what());
        } catch (const rt::CudaError& e) {
            PyErr_SetString(classes.cuda_error.ptr(), e.what());
        } catch (const rt::Interrupted&) {
            note_interrupt_of_a_wait();
            restore_interrupt_error();
        }
    });
}

}  // namespace xcuda::magics

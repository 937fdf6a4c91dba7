#include "session/post_cell_sync.hpp"
#include "session/device_state.hpp"
#include "session/gpu_work_left_running.hpp"
#include "session/session.hpp"

#include <pybind11/eval.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

py::object* callback = nullptr;  // the registered function (never freed: lives with the interpreter)

// The user stopped the cell (KeyboardInterrupt): control comes back now, not after the kernel
// it left running; the next cell's end (or an explicit wait) synchronises instead.
bool interrupted(const py::object& result) {
    if (result.is_none()) return false;
    py::object error = result.attr("error_in_exec");
    return !error.is_none() && PyErr_GivenExceptionMatches(error.ptr(), PyExc_KeyboardInterrupt);
}

void after_cell(py::object result) {
    if (!session().sync_after_cell || !launched_since_sync() || interrupted(result)) return;
    // A kernel an earlier interrupt left running: waiting for it could take forever. The next
    // use of the GPU says so instead.
    if (gpu_work_left_running()) return;
    try {
        // Through Python, so the runtime's exceptions arrive translated to xcuda's classes.
        py::module_::import("xcuda").attr("synchronize")();
    } catch (py::error_already_set& e) {
        // The cell's own error: shown in it, and the execution reply says "error".
        py::object ip = py::module_::import("IPython").attr("get_ipython")();
        if (!result.is_none()) result.attr("error_in_exec") = e.value();
        // An error raised from C++ code carries no traceback: None, not a null handle (which
        // pybind11 cannot pass and would turn into a RuntimeError hiding the real one).
        py::object tb = e.trace() ? py::reinterpret_borrow<py::object>(e.trace()) : py::none();
        ip.attr("showtraceback")(py::make_tuple(e.type(), e.value(), tb));
    }
}

}  // namespace

void set_sync_after_cell(bool on) { session().sync_after_cell = on; }

void register_post_cell_sync(py::object ip) {
    if (!callback) {
        // IPython (through backcall) reads the callback's signature, which builtins lack: a
        // Python lambda carries one.
        py::object wrap = py::eval("lambda f: (lambda result=None: f(result))");
        callback = new py::object(wrap(py::cpp_function(after_cell, py::arg("result") = py::none())));
    }
    py::object events = ip.attr("events");
    unregister_post_cell_sync(ip);
    events.attr("register")("post_run_cell", *callback);
}

void unregister_post_cell_sync(py::object ip) {
    if (!callback) return;
    py::list registered = ip.attr("events").attr("callbacks")["post_run_cell"];
    if (registered.contains(*callback)) ip.attr("events").attr("unregister")("post_run_cell", *callback);
}

}  // namespace xcuda::magics

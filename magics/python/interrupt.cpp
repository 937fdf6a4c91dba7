#include "interrupt.hpp"

#include <xcuda/rt/wait.hpp>

#include <Python.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// The exception a signal handler raised during a wait, owned (new references), until the
// translator restores it. Only the thread that waits touches it, with the GIL held.
PyObject* pending_type = nullptr;
PyObject* pending_value = nullptr;
PyObject* pending_traceback = nullptr;

bool check_signals() {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    Py_XDECREF(pending_type);
    Py_XDECREF(pending_value);
    Py_XDECREF(pending_traceback);
    PyErr_Fetch(&pending_type, &pending_value, &pending_traceback);
    return true;
}

}  // namespace

void install_interrupt_check() { rt::set_interrupt_check(check_signals); }

void restore_interrupt_error() {
    if (pending_type) {
        PyErr_Restore(pending_type, pending_value, pending_traceback);
        pending_type = pending_value = pending_traceback = nullptr;
    } else {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
}

}  // namespace xcuda::magics

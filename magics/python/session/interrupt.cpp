#include "session/interrupt.hpp"
#include "session/session.hpp"

#include <xcuda/rt/wait.hpp>

#include <Python.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

bool check_signals() {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    Session& s = session();
    Py_XDECREF(s.interrupt_type);
    Py_XDECREF(s.interrupt_value);
    Py_XDECREF(s.interrupt_traceback);
    PyErr_Fetch(&s.interrupt_type, &s.interrupt_value, &s.interrupt_traceback);
    return true;
}

}  // namespace

void install_interrupt_check() { rt::set_interrupt_check(check_signals); }

void restore_interrupt_error() {
    Session& s = session();
    if (s.interrupt_type) {
        PyErr_Restore(s.interrupt_type, s.interrupt_value, s.interrupt_traceback);
        s.interrupt_type = s.interrupt_value = s.interrupt_traceback = nullptr;
    } else {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
}

}  // namespace xcuda::magics

#include "kernels/launch_slots.hpp"
#include "kernels/kernel_object.hpp"
#include "session/session.hpp"

#include <Python.h>

#include <exception>
#include <typeinfo>
#include <utility>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// The exception a slot caught is rethrown inside a pybind11-bound function (Session's
// rethrow_pending) so that it becomes the same Python exception as anywhere else in the module
// (the module's translators, then pybind11's own). Only errors take this path.
PyObject* raise_current_exception() {
    try {
        throw;
    } catch (py::error_already_set& e) {
        e.restore();
        return nullptr;
    } catch (...) {
        session().pending_launch_exception = std::current_exception();
    }
    PyObject* result = PyObject_CallNoArgs(session().rethrow_pending);
    Py_XDECREF(result);  // always null: the function rethrows
    return nullptr;
}

template <class T>
py::detail::value_and_holder value_and_holder_of(PyObject* self) {
    static const py::detail::type_info* info = py::detail::get_type_info(typeid(T));
    return reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder(info);
}

PyObject* kernel_subscript(PyObject* self, PyObject* config) {
    try {
        auto v_h = value_and_holder_of<Kernel>(self);
        if (!v_h.value_ptr()) {
            PyErr_SetString(PyExc_TypeError,
                            "this xcuda.Kernel was never initialised: kernels come from %%cuda or "
                            "xcuda.compile()");
            return nullptr;
        }
        return launcher_for(v_h.holder<std::shared_ptr<Kernel>>(), config).release().ptr();
    } catch (...) {
        return raise_current_exception();
    }
}

PyObject* launcher_call(PyObject* self, PyObject* args, PyObject* kwargs) {
    try {
        auto* l = value_and_holder_of<Launcher>(self).value_ptr<Launcher>();
        if (!l) {
            PyErr_SetString(PyExc_TypeError, "this xcuda.Launcher was never initialised: write kernel[grid, block]");
            return nullptr;
        }
        if (kwargs && PyDict_GET_SIZE(kwargs) != 0) {
            PyErr_Format(PyExc_TypeError,
                         "%s[grid, block](...) takes the kernel's arguments by position, not by keyword (got %zd "
                         "keyword argument%s)",
                         l->kernel->name().c_str(), PyDict_GET_SIZE(kwargs), PyDict_GET_SIZE(kwargs) == 1 ? "" : "s");
            return nullptr;
        }
        l->kernel->launch(args, l->grid, l->block, l->shared_mem, l->stream, l->options, &l->validated);
    } catch (...) {
        return raise_current_exception();
    }
    Py_RETURN_NONE;
}

}  // namespace

void install_launch_slots(py::module_& m, py::handle kernel_type, py::handle launcher_type) {
    m.def("_rethrow_pending", [] {
        std::exception_ptr e = std::exchange(session().pending_launch_exception, nullptr);
        if (e) std::rethrow_exception(e);
    });
    session().rethrow_pending = py::object(m.attr("_rethrow_pending")).release().ptr();
    auto* kernel = reinterpret_cast<PyTypeObject*>(kernel_type.ptr());
    auto* launcher = reinterpret_cast<PyTypeObject*>(launcher_type.ptr());
    kernel->tp_as_mapping->mp_subscript = kernel_subscript;
    launcher->tp_call = launcher_call;
    PyType_Modified(kernel);
    PyType_Modified(launcher);
}

}  // namespace xcuda::magics

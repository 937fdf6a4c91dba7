// The floor of any Python -> C++ call with four arguments, for launch_callgrind.py: a pybind11
// function taking four handles (pybind11's dispatcher, as every m.def pays), and a type whose
// tp_call does nothing (what xcuda's Launcher is called through: launch_slots.cpp).
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {
struct Nop {};

PyObject* nop_call(PyObject*, PyObject*, PyObject*) { Py_RETURN_NONE; }
}  // namespace

PYBIND11_MODULE(xcuda_bare_call, m) {
    m.def("f4", [](py::handle, py::handle, py::handle, py::handle) {});
    auto nop = py::class_<Nop>(m, "Nop").def(py::init<>());
    auto* type = reinterpret_cast<PyTypeObject*>(nop.ptr());
    type->tp_call = nop_call;
    PyType_Modified(type);
}

#pragma once
// Attribute reads and no-argument method calls on instances of one known type, resolved once
// instead of on every call. PyObject_GetAttr walks the type's lookup and descriptor dispatch each
// time; on the launch path (CuPy: 4 attributes per array, torch: 6) that was a measurable part of
// a launch. Only the plain case is shortened: a C getset descriptor (what Cython and PyTorch
// define) or a C method descriptor on a type without its own __getattribute__; anything else
// goes through PyObject_GetAttr as before. A getset is a data descriptor, so an instance dict
// could not have shadowed it anyway.
#include <Python.h>

namespace xcuda::magics {

// `type`'s own descriptor for `name` when it is of `kind` and the type reads attributes the
// generic way; else nullptr. A new reference: kept by its user for the life of the process.
inline PyObject* plain_descriptor(PyTypeObject* type, PyObject* name, PyTypeObject* kind) {
    if (type->tp_getattro != PyObject_GenericGetAttr) return nullptr;
    PyObject* descr = _PyType_Lookup(type, name);  // borrowed
    if (descr == nullptr || !Py_IS_TYPE(descr, kind)) return nullptr;
    Py_INCREF(descr);
    return descr;
}

class FastAttr {
public:
    FastAttr() = default;
    FastAttr(PyTypeObject* type, PyObject* name) : name_(name) {
        if (PyObject* descr = plain_descriptor(type, name, &PyGetSetDescr_Type)) {
            const PyGetSetDef* def = reinterpret_cast<PyGetSetDescrObject*>(descr)->d_getset;
            get_ = def->get;  // null for a write-only attribute: then PyObject_GetAttr says so
            closure_ = def->closure;
        }
    }
    // A new reference, or nullptr with an error set.
    PyObject* operator()(PyObject* obj) const { return get_ ? get_(obj, closure_) : PyObject_GetAttr(obj, name_); }

private:
    PyObject* name_ = nullptr;
    getter get_ = nullptr;
    void* closure_ = nullptr;
};

class FastMethod {
public:
    FastMethod() = default;
    FastMethod(PyTypeObject* type, PyObject* name)
        : name_(name), descr_(plain_descriptor(type, name, &PyMethodDescr_Type)) {}
    // obj.name(): a new reference, or nullptr with an error set.
    PyObject* operator()(PyObject* obj) const {
        if (descr_ == nullptr) return PyObject_CallMethodNoArgs(obj, name_);
        PyObject* args[] = {obj};
        return PyObject_Vectorcall(descr_, args, 1, nullptr);
    }

private:
    PyObject* name_ = nullptr;
    PyObject* descr_ = nullptr;
};

}  // namespace xcuda::magics

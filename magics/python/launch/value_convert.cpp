#include "launch/value_convert.hpp"
#include "launch/scalar_convert.hpp"
#include "session/errors.hpp"

#include <Python.h>

#include <cstring>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

using compile::ScalarType;

void store_element(ScalarType element, py::handle value, const std::string& what, std::uint8_t* dst) {
    std::uint64_t slot = 0;
    convert_scalar(element, value, what, &slot);
    std::memcpy(dst, &slot, compile::scalar_size(element));  // little-endian: the low bytes
}

const char* example_for(ScalarType element) {
    switch (element) {
        case ScalarType::float16:
        case ScalarType::bfloat16:
        case ScalarType::float32:
        case ScalarType::float64: return "1.0";
        default: return "1";
    }
}

}  // namespace

void convert_vector(ScalarType element, int components, py::handle value, const std::string& what, std::uint8_t* dst) {
    PyObject* obj = value.ptr();
    const bool sequence =
        PyTuple_Check(obj) || PyList_Check(obj) ||
        (PySequence_Check(obj) && !PyUnicode_Check(obj) && !PyBytes_Check(obj) && !PyByteArray_Check(obj));
    std::string example = "(";
    for (int i = 0; i < components; ++i) example += std::string(i ? ", " : "") + example_for(element);
    example += components == 1 ? ",)" : ")";
    if (!sequence) {
        raise(PyExc_TypeError, what + " got " + describe_value(value) + ": pass " + std::to_string(components) +
                                   " numbers, e.g. " + example);
    }
    const Py_ssize_t n = PySequence_Size(obj);
    if (n < 0) throw py::error_already_set();
    if (n != components) {
        raise(PyExc_TypeError, what + " takes " + std::to_string(components) + " numbers, got " + std::to_string(n) +
                                   " in " + describe_value(value) + ": pass e.g. " + example);
    }
    const std::size_t step = compile::scalar_size(element);
    for (int i = 0; i < components; ++i) {
        py::object item = py::reinterpret_steal<py::object>(PySequence_GetItem(obj, i));
        if (!item) throw py::error_already_set();
        store_element(element, item, what + " component " + std::to_string(i), dst + std::size_t(i) * step);
    }
}

void convert_complex(ScalarType element, py::handle value, const std::string& what, std::uint8_t* dst) {
    PyObject* obj = value.ptr();
    double re = 0, im = 0;
    if (PyComplex_Check(obj)) {
        re = PyComplex_RealAsDouble(obj);
        im = PyComplex_ImagAsDouble(obj);
    } else if (PyTuple_Check(obj) && PyTuple_GET_SIZE(obj) == 2) {
        std::uint64_t parts[2] = {0, 0};
        store_element(element, PyTuple_GET_ITEM(obj, 0), what + " (real part)",
                      reinterpret_cast<std::uint8_t*>(&parts[0]));
        store_element(element, PyTuple_GET_ITEM(obj, 1), what + " (imaginary part)",
                      reinterpret_cast<std::uint8_t*>(&parts[1]));
        const std::size_t step = compile::scalar_size(element);
        std::memcpy(dst, &parts[0], step);
        std::memcpy(dst + step, &parts[1], step);
        return;
    } else if (PyObject_HasAttrString(obj, "__complex__") || PyFloat_Check(obj) || PyLong_Check(obj) ||
               PyIndex_Check(obj) || PyObject_HasAttrString(obj, "__float__")) {
        // numpy.complex64 is not a Python complex; it and real numbers convert through complex()
        if (PyBool_Check(obj)) raise(PyExc_TypeError, what + " got a bool: pass a complex number such as 1+2j");
        py::object c =
            py::reinterpret_steal<py::object>(PyObject_CallOneArg(reinterpret_cast<PyObject*>(&PyComplex_Type), obj));
        if (!c) throw py::error_already_set();
        re = PyComplex_RealAsDouble(c.ptr());
        im = PyComplex_ImagAsDouble(c.ptr());
    } else {
        raise(PyExc_TypeError, what + " got " + describe_value(value) +
                                   ": pass a complex number (1+2j, numpy.complex64/complex128) or a (re, im) pair");
    }
    if (element == ScalarType::float32) {
        const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
        std::memcpy(dst, parts, sizeof parts);
    } else {
        const double parts[2] = {re, im};
        std::memcpy(dst, parts, sizeof parts);
    }
}

void convert_sized_integer(std::size_t size, py::handle value, const std::string& what, std::uint8_t* dst) {
    py::object index;
    PyObject* obj = python_int_of(value, index, what, "pass an int (an integer of " + std::to_string(size) + " bytes)");
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    unsigned long long bits = static_cast<unsigned long long>(v);
    bool fits = overflow == 0;
    if (overflow > 0 && size == 8) {
        bits = PyLong_AsUnsignedLongLong(obj);
        fits = !PyErr_Occurred();
        PyErr_Clear();
    }
    if (fits && size < 8) {
        const long long lo = -(1LL << (8 * size - 1));
        const long long hi = static_cast<long long>((1ULL << (8 * size)) - 1);
        fits = v >= lo && v <= hi;
    }
    if (!fits) {
        const int bits_n = int(8 * size);
        raise(PyExc_OverflowError, what + " got " + describe_value(value) + ": out of range for an integer of " +
                                       std::to_string(size) + " bytes (-2**" + std::to_string(bits_n - 1) + " to 2**" +
                                       std::to_string(bits_n) + "-1)");
    }
    std::memcpy(dst, &bits, size);
}

namespace {

// Why a numpy struct (a structured scalar or array) is not `size` bytes of `type`: its dtype packs
// the fields C++ would align, it has a field too many or too few (or of another type), or the
// array holds more than one element.
std::string struct_dtype_hint(py::handle value, std::size_t size, const std::string& type) {
    py::object dtype = value.attr("dtype");
    py::object names = dtype.attr("names");
    if (names.is_none()) {
        return "a " + py::str(dtype).cast<std::string>() +
               " array is not a struct; pass a numpy structured scalar "
               "or one-element array whose fields are " +
               type + "'s";
    }
    std::string fields;
    py::dict all = dtype.attr("fields");
    for (py::handle name : names) {
        fields += (fields.empty() ? "" : ", ") + name.cast<std::string>() + ": " +
                  py::str(all[name].cast<py::tuple>()[0]).cast<std::string>();
    }
    const auto itemsize = dtype.attr("itemsize").cast<std::size_t>();
    if (itemsize == size) return "pass one element (a[0]) or a one-element array, not " + type + "s in a row";
    const bool aligned = dtype.attr("isalignedstruct").cast<bool>();
    const std::size_t as_cpp = aligned ? itemsize
                                       : py::module_::import("numpy")
                                             .attr("dtype")(dtype.attr("descr"), py::arg("align") = true)
                                             .attr("itemsize")
                                             .cast<std::size_t>();
    if (!aligned && as_cpp == size) {
        return "its dtype packs the fields (" + fields + ": " + std::to_string(itemsize) +
               " bytes); laid out as C++ lays them out they take " + std::to_string(size) +
               ": build it with np.dtype([...], align=True)";
    }
    return "its dtype's fields (" + fields + ") take " + std::to_string(as_cpp) +
           " bytes laid out as C++ lays them out, not " + std::to_string(size) +
           ": a field is missing, extra or of "
           "another type; compare them with " +
           type + "'s declaration in the cell";
}

}  // namespace

void convert_struct_bytes(py::handle value, std::size_t size, std::size_t align, const std::string& what,
                          const std::string& type, std::uint8_t* dst) {
    PyObject* obj = value.ptr();
    const std::string layout = std::to_string(size) + " bytes, alignment " + std::to_string(align);
    const std::string ways =
        "a numpy structured scalar or one-element array whose dtype lays out the fields as C++ "
        "does (np.dtype([...], align=True)), a ctypes.Structure, or bytes of length " +
        std::to_string(size);
    if (!PyObject_CheckBuffer(obj) || PyUnicode_Check(obj)) {
        raise(PyExc_TypeError,
              what + " is passed by value (" + layout + "): got " + describe_value(value) + "; pass " + ways);
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) throw py::error_already_set();
    const auto got = static_cast<std::size_t>(view.len);
    if (got == size) std::memcpy(dst, view.buf, size);
    PyBuffer_Release(&view);
    if (got != size) {
        std::string fix = "pass " + ways;
        const std::string tname = Py_TYPE(obj)->tp_name;
        if (tname == "numpy.void" || tname == "numpy.ndarray") fix = struct_dtype_hint(value, size, type);
        raise(PyExc_TypeError,
              what + " is " + layout + ": got " + std::to_string(got) + " bytes from " + tname + "; " + fix);
    }
}

}  // namespace xcuda::magics

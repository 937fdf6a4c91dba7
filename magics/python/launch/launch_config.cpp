#include "launch/launch_config.hpp"
#include "launch/device_objects.hpp"
#include "session/errors.hpp"

#include <Python.h>

#include <cstdint>
#include <string>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

std::string shown(py::handle v) { return py::repr(v).cast<std::string>(); }

unsigned positive(py::handle v, const char* what, py::handle whole) {
    if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) {
        raise(PyExc_TypeError, std::string(what) + " must be an int or a tuple of up to 3 ints, got " + shown(whole));
    }
    const long long n = v.cast<long long>();
    if (n < 1 || n > 0x7fffffffLL) {
        raise(PyExc_ValueError,
              std::string(what) + " " + shown(whole) + ": every dimension must be a positive int below 2**31");
    }
    return static_cast<unsigned>(n);
}

}  // namespace

rt::Dim3 parse_dim3(py::handle value, const char* what) {
    PyObject* obj = value.ptr();
    if (PyLong_CheckExact(obj)) return rt::Dim3(positive(value, what, value));
    if (PyTuple_Check(obj) || PyList_Check(obj)) {
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (n < 1 || n > 3) {
            raise(PyExc_ValueError, std::string(what) + " " + shown(value) + ": give 1 to 3 dimensions (x, y, z)");
        }
        PyObject** items = PySequence_Fast_ITEMS(obj);
        rt::Dim3 d;
        d.x = positive(items[0], what, value);
        if (n > 1) d.y = positive(items[1], what, value);
        if (n > 2) d.z = positive(items[2], what, value);
        return d;
    }
    return rt::Dim3(positive(value, what, value));
}

CUstream parse_stream(py::handle value) {
    PyObject* obj = value.ptr();
    if (obj == Py_None) return nullptr;
    if (py::isinstance<Stream>(value)) return value.cast<const Stream&>().handle();
    auto from_int = [](py::handle h) {
        return reinterpret_cast<CUstream>(static_cast<std::uintptr_t>(h.cast<unsigned long long>()));
    };
    if (PyLong_Check(obj)) return from_int(value);
    if (py::hasattr(value, "__cuda_stream__")) {
        py::tuple t = value.attr("__cuda_stream__")();
        return from_int(t[1]);
    }
    for (const char* attr : {"cuda_stream", "ptr", "handle"}) {
        if (py::hasattr(value, attr)) {
            py::object h = value.attr(attr);
            if (PyLong_Check(h.ptr())) return from_int(h);
        }
    }
    raise(PyExc_TypeError, "stream must be None, an xcuda.Stream, a CuPy/PyTorch/Numba stream or an int handle, got " +
                               std::string(Py_TYPE(obj)->tp_name));
}

std::size_t parse_shared_mem(py::handle value) {
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
        raise(PyExc_TypeError, "shared_mem must be an int (bytes of dynamic shared memory), got " + shown(value));
    }
    const long long n = value.cast<long long>();
    if (n < 0) raise(PyExc_ValueError, "shared_mem " + std::to_string(n) + ": must be >= 0 bytes");
    return static_cast<std::size_t>(n);
}

bool parse_cooperative(py::handle value) {
    if (!PyBool_Check(value.ptr())) {
        raise(PyExc_TypeError, "cooperative must be True or False, got " + shown(value));
    }
    return value.ptr() == Py_True;
}

std::optional<rt::Dim3> parse_cluster(py::handle value) {
    if (value.is_none()) return std::nullopt;
    return parse_dim3(value, "cluster");
}

const std::vector<LaunchKeyword>& launch_keywords() {
    static const std::vector<LaunchKeyword> keywords = {
        {"grid", nullptr, false,
         [](LaunchKeywords& k, py::handle v) { k.grid = py::reinterpret_borrow<py::object>(v); }},
        {"block", nullptr, false,
         [](LaunchKeywords& k, py::handle v) { k.block = py::reinterpret_borrow<py::object>(v); }},
        {"shared_mem", "0", false,
         [](LaunchKeywords& k, py::handle v) { k.shared_mem = py::reinterpret_borrow<py::object>(v); }},
        {"stream", "None", false,
         [](LaunchKeywords& k, py::handle v) { k.stream = py::reinterpret_borrow<py::object>(v); }},
        {"cooperative", "False", true,
         [](LaunchKeywords& k, py::handle v) { k.options.cooperative = parse_cooperative(v); }},
        {"cluster", "None", true, [](LaunchKeywords& k, py::handle v) { k.options.cluster = parse_cluster(v); }},
    };
    return keywords;
}

std::string launch_keywords_text(bool defaults, bool options_only, const char* separator) {
    std::string out;
    for (const LaunchKeyword& k : launch_keywords()) {
        if (options_only && !k.option) continue;
        out += std::string(out.empty() ? "" : separator) + k.name + "=" +
               (defaults && k.shown_default ? k.shown_default : "");
    }
    return out;
}

bool LaunchKeywords::take(const std::string& key, py::handle value, bool options_only) {
    for (const LaunchKeyword& k : launch_keywords()) {
        if ((k.option || !options_only) && key == k.name) {
            k.take(*this, value);
            return true;
        }
    }
    return false;
}

}  // namespace xcuda::magics

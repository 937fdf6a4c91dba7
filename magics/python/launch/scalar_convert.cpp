#include "launch/scalar_convert.hpp"
#include "session/errors.hpp"

#include <Python.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

namespace py = pybind11;

namespace xcuda::magics {

using compile::ScalarType;

PyObject* python_int_of(py::handle value, py::object& holder, const std::string& what, const std::string& fix) {
    PyObject* obj = value.ptr();
    if (PyLong_Check(obj)) return obj;
    if (PyFloat_Check(obj) || !PyIndex_Check(obj))
        raise(PyExc_TypeError, what + " got " + describe_value(value) + ": " + fix);
    holder = py::reinterpret_steal<py::object>(PyNumber_Index(obj));
    if (!holder) throw py::error_already_set();
    return holder.ptr();
}

std::string describe_value(py::handle value) {
    std::string type = Py_TYPE(value.ptr())->tp_name;
    std::string text;
    try {
        text = py::repr(value).cast<std::string>();
    } catch (const py::error_already_set&) {
        return type;
    }
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    if (PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())) return text;
    return type + " " + text;
}

namespace {

[[noreturn]] void wrong_kind(py::handle value, const std::string& what, const char* fix) {
    raise(PyExc_TypeError, what + " got " + describe_value(value) + ": " + fix);
}

template <typename T>
void store(std::uint64_t* slot, T v) {
    *slot = 0;
    std::memcpy(slot, &v, sizeof v);
}

// Python int (or anything with __index__, e.g. numpy integers) -> integer of `type`.
void convert_integer(ScalarType type, py::handle value, const std::string& what, std::uint64_t* slot) {
    py::object index;
    PyObject* obj = python_int_of(value, index, what, "pass an int");
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    unsigned long long u = 0;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred())
            PyErr_Clear();
        else if (type == ScalarType::uint64)
            return store(slot, u);
    }
    auto out_of_range = [&](const char* range) {
        raise(PyExc_OverflowError, what + " got " + describe_value(value) + ": out of range for " +
                                       compile::scalar_name(type) + " (" + range + ")");
    };
    if (overflow != 0) {
        out_of_range(type == ScalarType::uint64 ? "0..18446744073709551615" : "a 64-bit integer");
    }
    switch (type) {
        case ScalarType::int8:
            if (v < INT8_MIN || v > INT8_MAX) out_of_range("-128..127");
            return store(slot, static_cast<std::int8_t>(v));
        case ScalarType::uint8:
            if (v < 0 || v > UINT8_MAX) out_of_range("0..255");
            return store(slot, static_cast<std::uint8_t>(v));
        case ScalarType::int16:
            if (v < INT16_MIN || v > INT16_MAX) out_of_range("-32768..32767");
            return store(slot, static_cast<std::int16_t>(v));
        case ScalarType::uint16:
            if (v < 0 || v > UINT16_MAX) out_of_range("0..65535");
            return store(slot, static_cast<std::uint16_t>(v));
        case ScalarType::int32:
            if (v < INT32_MIN || v > INT32_MAX) out_of_range("-2147483648..2147483647");
            return store(slot, static_cast<std::int32_t>(v));
        case ScalarType::uint32:
            if (v < 0 || v > static_cast<long long>(UINT32_MAX)) out_of_range("0..4294967295");
            return store(slot, static_cast<std::uint32_t>(v));
        case ScalarType::int64: return store(slot, static_cast<std::int64_t>(v));
        case ScalarType::uint64:
            if (v < 0) out_of_range("0..18446744073709551615");
            return store(slot, static_cast<std::uint64_t>(v));
        default: break;
    }
}

double as_double(py::handle value, const std::string& what) {
    PyObject* obj = value.ptr();
    if (PyFloat_CheckExact(obj)) return PyFloat_AS_DOUBLE(obj);
    if (PyLong_Check(obj)) {
        double d = PyLong_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            raise(PyExc_OverflowError,
                  what + " got " + describe_value(value) + ": too large for a floating-point parameter");
        }
        return d;
    }
    // numpy floating scalars, 0-d arrays, Decimal, Fraction: anything with __float__.
    if (PyFloat_Check(obj) || (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_float)) {
        double d = PyFloat_AsDouble(obj);
        if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
        return d;
    }
    wrong_kind(value, what, "pass a float");
}

void check_float_range(double d, double max, py::handle value, const std::string& what, ScalarType type) {
    if (std::isfinite(d) && std::fabs(d) > max) {
        raise(PyExc_OverflowError, what + " got " + describe_value(value) + ": out of range for " +
                                       compile::scalar_name(type) + " (magnitude up to " +
                                       py::repr(py::float_(max)).cast<std::string>() + ")");
    }
}

bool is_numpy_bool(py::handle value) {
    const char* name = Py_TYPE(value.ptr())->tp_name;
    return std::strcmp(name, "numpy.bool_") == 0 || std::strcmp(name, "numpy.bool") == 0;
}

}  // namespace

std::uint16_t float_to_half_bits(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t biased = (x >> 23) & 0xffu;
    std::uint32_t mant = x & 0x7fffffu;
    if (biased == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
    const int exp = static_cast<int>(biased) - 127 + 15;
    if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return static_cast<std::uint16_t>(sign);
        mant |= 0x800000u;
        const int shift = 14 - exp;
        std::uint32_t h = mant >> shift;
        const std::uint32_t rem = mant & ((1u << shift) - 1u);
        const std::uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct
    return static_cast<std::uint16_t>(h);
}

std::uint16_t float_to_bfloat16_bits(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<std::uint16_t>(x >> 16);
}

void convert_scalar(ScalarType type, py::handle value, const std::string& what, std::uint64_t* slot) {
    switch (type) {
        case ScalarType::bool_: {
            PyObject* obj = value.ptr();
            if (PyBool_Check(obj) || is_numpy_bool(value)) return store(slot, static_cast<bool>(PyObject_IsTrue(obj)));
            if (PyLong_Check(obj)) {
                long v = PyLong_AsLong(obj);
                if (v == 0 || v == 1) return store(slot, v == 1);
            }
            wrong_kind(value, what, "pass True or False");
        }
        case ScalarType::float32: {
            const double d = as_double(value, what);
            check_float_range(d, FLT_MAX, value, what, type);
            return store(slot, static_cast<float>(d));
        }
        case ScalarType::float64: return store(slot, as_double(value, what));
        case ScalarType::float16: {
            const double d = as_double(value, what);
            check_float_range(d, 65504.0, value, what, type);
            return store(slot, float_to_half_bits(static_cast<float>(d)));
        }
        case ScalarType::bfloat16: {
            const double d = as_double(value, what);
            check_float_range(d, 3.3895313892515355e38, value, what, type);
            return store(slot, float_to_bfloat16_bits(static_cast<float>(d)));
        }
        case ScalarType::none:
            raise(PyExc_TypeError, what + ": xcuda cannot pass a parameter of this type from Python");
        default: return convert_integer(type, value, what, slot);
    }
}

}  // namespace xcuda::magics

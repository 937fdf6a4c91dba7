#pragma once
// A Python number to exactly the bytes of a kernel's scalar parameter, range-checked.
#include <xcuda/compile/kernel_signature.hpp>

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace xcuda::magics {

// Writes the value of `value` as `type` into `slot` (8 bytes, zeroed beyond the value).
// `what` names the parameter for messages ("argument `n` (int)"). Raises TypeError for a value
// of the wrong kind (a float for an int, a str, ...) and OverflowError for one out of range.
void convert_scalar(compile::ScalarType type, pybind11::handle value, const std::string& what, std::uint64_t* slot);

// A value as messages show it: "3", "2.5", "str 'abc'", "numpy.void (1, 2.)" (cut at 40 characters).
std::string describe_value(pybind11::handle value);

// `value` as a Python int: itself, or its __index__ (numpy integers) kept alive in `holder`.
// A float or anything else is a TypeError "<what> got <value>: <fix>".
PyObject* python_int_of(pybind11::handle value, pybind11::object& holder, const std::string& what,
                        const std::string& fix);

// IEEE binary16 and bfloat16 bits of `f`, rounded to nearest even.
std::uint16_t float_to_half_bits(float f);
std::uint16_t float_to_bfloat16_bits(float f);

}  // namespace xcuda::magics

#pragma once
// By-value kernel arguments that are not plain scalars: CUDA vector types, complex numbers,
// integers known only by their width, and structs passed as their bytes. The sizes come from
// the compiled PTX (compile::ValueLayout); the Python value must fill exactly those bytes.
#include <xcuda/compile/kernel_signature.hpp>

#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace xcuda::magics {

// `components` numbers (a tuple, a list, or a 1-D numpy array of that many) as `element`s,
// contiguous from dst. `what`: "argument `v` (float2)".
void convert_vector(compile::ScalarType element, int components, pybind11::handle value, const std::string& what,
                    std::uint8_t* dst);

// A complex number (Python/numpy complex, a real number, or a (re, im) pair) as two `element`s.
void convert_complex(compile::ScalarType element, pybind11::handle value, const std::string& what, std::uint8_t* dst);

// An integer of `size` bytes whose signedness the source did not say (an enum, an alias from
// a header): any value in the signed or the unsigned range, two's complement.
void convert_sized_integer(std::size_t size, pybind11::handle value, const std::string& what, std::uint8_t* dst);

// Exactly `size` bytes from an object with the buffer protocol: a numpy structured scalar or
// one-element structured array, a ctypes.Structure, bytes, bytearray, memoryview. `type` is
// the C++ type for messages.
void convert_struct_bytes(pybind11::handle value, std::size_t size, std::size_t align, const std::string& what,
                          const std::string& type, std::uint8_t* dst);

}  // namespace xcuda::magics

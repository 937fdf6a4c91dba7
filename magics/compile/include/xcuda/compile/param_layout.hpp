// How each kernel parameter lies in the launch's parameter buffer, read from the compiled code
// (the PTX `.entry` declaration NVRTC produced for it), and what a by-value parameter the
// signature parser could not type is: a CUDA vector type, a complex number, or opaque bytes
// (a user struct, an enum, a class). Sizes and alignments never come from guessing at C++:
// the PTX says them; the type name only says how to read a Python value into those bytes.
#pragma once

#include "xcuda/compile/kernel_signature.hpp"

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace xcuda::compile {

// One `.param` of a PTX entry.
struct PtxParam {
    enum class Class { integer, floating, bytes } cls = Class::bytes;  // .u/.s/.b N, .f N, .b8 x[N]
    std::size_t size = 0;                                              // bytes
    std::size_t align = 0;                                             // bytes (the element width for integer/floating)
};

// The parameters of `.entry name(...)` in `ptx`, in order; nullopt when there is no such entry.
// Never throws on any input.
std::optional<std::vector<PtxParam>> ptx_entry_params(std::string_view ptx, std::string_view entry);

// What a by-value parameter holds, for passing a Python value.
struct ValueLayout {
    enum class Kind {
        declared,  // the signature parser's own ParamKind (scalar or pointer) holds
        vector,    // float2, int4, double3, __half2, ...: `components` x `element`, contiguous
        complex,   // cuFloatComplex, cuDoubleComplex, cuda::std::complex<T>: 2 x `element`
        integer,   // an integer of `size` bytes whose type the source did not say (enum, alias
                   // from a header): signedness unknown, so either range is accepted
        floating,  // a float/double of `size` bytes known only from the PTX
        bytes,     // a struct/class/union: exactly `size` bytes, laid out as C++ lays them out
        unknown,   // the PTX said nothing about it (no entry found): cannot be passed
    } kind = Kind::declared;
    ScalarType element = ScalarType::none;  // vector/complex components
    int components = 0;
    std::size_t size = 0;  // from the PTX; 0 when unknown
    std::size_t align = 0;
};

// The layout of each parameter of `decl` given its PTX entry parameters (same count, or
// Kind::unknown for the by-value ones the parser could not type).
std::vector<ValueLayout> value_layouts(const KernelDecl& decl, const std::optional<std::vector<PtxParam>>& ptx);

// A CUDA vector or complex type named by `type` (without cv): {element, components}, or
// {none, 0}. "float2" -> {float32, 2}; "cuDoubleComplex" -> {float64, 2}; "double4_16a" ->
// {float64, 4}. Complex types report components 2 and set *is_complex.
std::pair<ScalarType, int> vector_type(std::string_view type, bool* is_complex = nullptr) noexcept;

}  // namespace xcuda::compile

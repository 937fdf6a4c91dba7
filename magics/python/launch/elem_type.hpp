#pragma once
// Element types of arrays as the interchange protocols describe them (array-interface typestr,
// DLPack dtype), compared against what a kernel parameter points to.
#include <xcuda/compile/kernel_signature.hpp>

#include <string>
#include <string_view>

namespace xcuda::magics {

struct ElemType {
    // 'f' float, 'i' signed, 'u' unsigned, 'b' bool, 'c' complex, 'B' bfloat16, 'V' other.
    char kind = 'V';
    int bytes = 0;

    bool operator==(const ElemType& o) const { return kind == o.kind && bytes == o.bytes; }
    bool operator!=(const ElemType& o) const { return !(*this == o); }
};

// "<f4", "|b1", "<i8"; 'V' for what it cannot read. Byte order '>' is reported as kind 'V'
// (a big-endian array cannot be handed to the GPU as is).
ElemType elem_type_from_typestr(std::string_view typestr);
// "float32", "int64", "bool", "bfloat16", "complex64", "void16".
std::string elem_type_name(const ElemType& t);
// "<f4" (what __cuda_array_interface__ and numpy.dtype() take); bfloat16 has none ("" ).
std::string elem_type_typestr(const ElemType& t);
// The element type a pointer to `s` expects; kind 'V' for ScalarType::none.
ElemType elem_type_of(compile::ScalarType s);

}  // namespace xcuda::magics

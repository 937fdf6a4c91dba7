#include "launch/elem_type.hpp"

namespace xcuda::magics {

ElemType elem_type_from_typestr(std::string_view typestr) {
    if (typestr.size() < 3 || typestr[0] == '>') return {};
    char kind = typestr[1];
    int bytes = 0;
    for (char c : typestr.substr(2)) {
        if (c < '0' || c > '9' || bytes > 1 << 20) return {};
        bytes = bytes * 10 + (c - '0');
    }
    switch (kind) {
        case 'f':
        case 'i':
        case 'u':
        case 'b':
        case 'c': return {kind, bytes};
        default: return {'V', bytes};
    }
}

std::string elem_type_name(const ElemType& t) {
    const std::string bits = std::to_string(t.bytes * 8);
    switch (t.kind) {
        case 'f': return "float" + bits;
        case 'i': return "int" + bits;
        case 'u': return "uint" + bits;
        case 'b': return "bool";
        case 'c': return "complex" + bits;
        case 'B': return "bfloat16";
        default: return "void" + bits;
    }
}

std::string elem_type_typestr(const ElemType& t) {
    if (t.kind == 'B') return "";
    return std::string(t.kind == 'b' ? "|" : "<") + t.kind + std::to_string(t.bytes);
}

ElemType elem_type_of(compile::ScalarType s) {
    using S = compile::ScalarType;
    switch (s) {
        case S::bool_: return {'b', 1};
        case S::int8: return {'i', 1};
        case S::uint8: return {'u', 1};
        case S::int16: return {'i', 2};
        case S::uint16: return {'u', 2};
        case S::int32: return {'i', 4};
        case S::uint32: return {'u', 4};
        case S::int64: return {'i', 8};
        case S::uint64: return {'u', 8};
        case S::float16: return {'f', 2};
        case S::bfloat16: return {'B', 2};
        case S::float32: return {'f', 4};
        case S::float64: return {'f', 8};
        case S::none: break;
    }
    return {};
}

}  // namespace xcuda::magics

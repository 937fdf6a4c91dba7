// What the integer families (ops_integer.cpp, ops_bits.cpp) share while they decode: which types
// are integers, and the emitter of a handler whose operands all have the instruction's type.
#pragma once

#include "exec/decode/decode.hpp"
#include "exec/ops/int_types.hpp"

#include <cstdint>

namespace xcuda::cpu {

inline bool is_integer(Ty t) { return !is_float(t) && t != Ty::pred && t != Ty::none; }

// Emits H for an integer type with `sources` operands, all of type t.
template <template <class> class H>
inline bool emit_same_typed(Emitter& e, int sources) {
    const Ty t = e.suffixes().type();
    if (!is_integer(t)) return false;
    Handler h = by_integer_type<H>(t);
    if (h == nullptr) return false;
    e.emit_operation(h, t, sources);
    return true;
}

}  // namespace xcuda::cpu

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
    // Operands are emitted first: a special-register source materialises before the Inst.
    std::uint32_t ops[4];
    ops[0] = 0;
    for (int i = 1; i <= sources; ++i) ops[i] = e.source(e.operand(i), t);
    const std::uint32_t d = e.destination(e.operand(0), t);
    Inst& in = e.emit(h);
    in.op[0] = d;
    for (int i = 1; i <= sources; ++i) in.op[i] = ops[i];
    return true;
}

}  // namespace xcuda::cpu

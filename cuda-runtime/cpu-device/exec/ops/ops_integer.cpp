// Integer arithmetic as the PTX ISA defines it for .s/.u 16/32/64: wrap-around arithmetic, the
// .hi/.lo/.wide products, carries, saturation, 24-bit products, sums of absolute differences.
// Division by zero gives what the GPU's division sequence gives (all ones for the quotient, the
// dividend for the remainder), never SIGFPE. Logic, shifts and bit fields are ops_bits.cpp's.
#include "exec/ops/integer_decode.hpp"
#include "exec/ops/lanes.hpp"

#include <algorithm>
#include <climits>
#include <limits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;

// --- same-typed arithmetic --------------------------------------------------------------------
// Each operation as a class template whose Op<T>::of is one lane's result, its operands all of the
// instruction's type T; Lanes<Op, Sources>::Of<T>::run runs it over the active lanes (the handler
// by_integer_type picks for T).

template <template <class> class Op, int Sources>
struct Lanes {
    template <class T>
    struct Of {
        static void run(Exec& x, const Inst& in, U32 m) {
            same_typed<T, Sources>(x, in, m, [](auto... a) { return Op<T>::of(a...); });
        }
    };
};

template <class T>
struct Add {
    static T of(T a, T b) { return wrap_add(a, b); }
};
template <class T>
struct Sub {
    static T of(T a, T b) { return wrap_sub(a, b); }
};

template <class T>
T saturate_to(std::int64_t v) {
    return static_cast<T>(std::clamp<std::int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// add.sat.s32, sub.sat.s32 (.s32 only).
template <class T>
struct AddSat {
    static T of(T a, T b) { return saturate_to<T>(std::int64_t{a} + b); }
};
template <class T>
struct SubSat {
    static T of(T a, T b) { return saturate_to<T>(std::int64_t{a} - b); }
};

template <class T>
struct MulLo {
    static T of(T a, T b) { return wrap_mul(a, b); }
};
// The high half of the product, computed in the wider type.
template <class T>
T high_half(T a, T b) {
    using W = typename Wider<T>::type;
    return static_cast<T>((static_cast<W>(a) * static_cast<W>(b)) >> (8 * sizeof(T)));
}
template <class T>
struct MulHi {
    static T of(T a, T b) { return high_half(a, b); }
};
template <class T>
struct MulWide {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        binary<W, T, T>(x, in, m, [](T a, T b) { return static_cast<W>(static_cast<W>(a) * static_cast<W>(b)); });
    }
};
template <class T>
struct MadLo {
    static T of(T a, T b, T c) { return wrap_add(wrap_mul(a, b), c); }
};
template <class T>
struct MadHi {
    static T of(T a, T b, T c) { return wrap_add(high_half(a, b), c); }
};
template <class T>
struct MadWide {
    static void run(Exec& x, const Inst& in, U32 m) {
        using W = typename Wider<T>::type;
        ternary<W, T, T, W>(x, in, m,
                            [](T a, T b, W c) { return wrap_add<W>(static_cast<W>(a) * static_cast<W>(b), c); });
    }
};

// mad.hi.sat.s32: the high word of a*b, plus c, saturated.
template <class T>
struct MadHiSat {
    static T of(T a, T b, T c) {
        const std::int64_t hi = (std::int64_t{a} * b) >> 32;
        return saturate_to<T>(hi + c);
    }
};

// mul24/mad24: the low 24 bits of each operand (sign-extended for .s32), 48-bit product.
template <class T>
std::int64_t low24(T v) {
    if constexpr (std::is_signed_v<T>)
        return static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<U32>(v) << 8) >> 8);
    return static_cast<std::int64_t>(v & 0xFFFFFFu);
}
template <class T>
struct Mul24Lo {
    static T of(T a, T b) { return static_cast<T>(static_cast<U32>(low24(a) * low24(b))); }
};
template <class T>
struct Mul24Hi {
    static T of(T a, T b) { return static_cast<T>(static_cast<U32>((low24(a) * low24(b)) >> 16)); }
};
template <class T>
struct Mad24Lo {
    static T of(T a, T b, T c) { return wrap_add(Mul24Lo<T>::of(a, b), c); }
};

// Division and remainder: no host trap for x / 0 or INT_MIN / -1.
template <class T>
struct Div {
    static T of(T a, T b) {
        if (b == 0) return static_cast<T>(~T{0});  // what the GPU's division sequence returns
        if constexpr (std::is_signed_v<T>) {
            if (a == std::numeric_limits<T>::min() && b == -1) return a;
        }
        return static_cast<T>(a / b);
    }
};
template <class T>
struct Rem {
    static T of(T a, T b) {
        if (b == 0) return a;
        if constexpr (std::is_signed_v<T>) {
            if (b == -1) return 0;
        }
        return static_cast<T>(a % b);
    }
};

template <class T>
struct Abs {
    static T of(T a) { return a < 0 ? wrap_neg(a) : a; }
};
template <class T>
struct Neg {
    static T of(T a) { return wrap_neg(a); }
};
template <class T>
struct Min {
    static T of(T a, T b) { return a < b ? a : b; }
};
template <class T>
struct Max {
    static T of(T a, T b) { return a > b ? a : b; }
};
// max.relu.s32, min.relu.s32 (.s32 only).
template <class T>
struct MaxRelu {
    static T of(T a, T b) { return std::max({a, b, T{0}}); }
};
template <class T>
struct MinRelu {
    static T of(T a, T b) { return std::max(std::min(a, b), T{0}); }
};

template <class T>
struct Sad {  // |a - b| + c
    static T of(T a, T b, T c) { return wrap_add(static_cast<T>(a > b ? wrap_sub(a, b) : wrap_sub(b, a)), c); }
};

// The handler of an operation defined for .s32 only.
template <template <class> class Op, int Sources>
constexpr Handler s32_only = &Lanes<Op, Sources>::template Of<std::int32_t>::run;

// --- carries ---------------------------------------------------------------------------------
// add.cc / addc / sub.cc / subc / mad.cc / madc: the carry flag is a lane mask (Emitter::carry),
// in op[3] (or op[4] for mad); `sub` bit 0: carry-in used, bit 1: carry-out written.

template <class T, bool Subtract>
struct AddCarry {
    static void run(Exec& x, const Inst& in, U32 m) {
        T* d = slot<T>(x, in.op[0]);
        const T* a = slot<T>(x, in.op[1]);
        const T* b = slot<T>(x, in.op[2]);
        const U32 cf = x.pred(in.op[3]);
        U32 out = 0;
        using W = typename Wider<std::make_unsigned_t<T>>::type;
        for_lanes(m, [&](unsigned l) {
            const W ua = static_cast<std::make_unsigned_t<T>>(a[l]);
            const W ub = static_cast<std::make_unsigned_t<T>>(b[l]);
            const W cin = (in.sub & 1u) ? ((cf >> l) & 1u) : 0u;
            W r;
            bool carry;
            if (Subtract) {  // the borrow is the carry flag (CUDA's sub.cc sets CF on borrow)
                r = ua - ub - cin;
                carry = ua < ub + cin;
            } else {
                r = ua + ub + cin;
                carry = (r >> (8 * sizeof(T))) != 0;
            }
            d[l] = static_cast<T>(r);
            out |= static_cast<U32>(carry) << l;
        });
        if (in.sub & 2u) x.set_pred(in.op[3], out, m);
    }
};

template <class T>
struct MadCarry {  // mad{c}.{lo,hi}{.cc}: op[4] the carry flag; `size` 1: .hi
    static void run(Exec& x, const Inst& in, U32 m) {
        using UT = std::make_unsigned_t<T>;
        using W = typename Wider<T>::type;
        using UW = typename Wider<UT>::type;
        T* d = slot<T>(x, in.op[0]);
        const T* a = slot<T>(x, in.op[1]);
        const T* b = slot<T>(x, in.op[2]);
        const T* c = slot<T>(x, in.op[3]);
        const U32 cf = x.pred(in.op[4]);
        U32 out = 0;
        for_lanes(m, [&](unsigned l) {
            const W p = static_cast<W>(a[l]) * static_cast<W>(b[l]);
            const UT part = in.size == 1 ? static_cast<UT>(static_cast<UW>(p) >> (8 * sizeof(T))) : static_cast<UT>(p);
            const UW cin = (in.sub & 1u) ? ((cf >> l) & 1u) : 0u;
            const UW r = UW{part} + static_cast<UT>(c[l]) + cin;
            d[l] = static_cast<T>(static_cast<UT>(r));
            out |= static_cast<U32>((r >> (8 * sizeof(T))) != 0) << l;
        });
        if (in.sub & 2u) x.set_pred(in.op[4], out, m);
    }
};

// --- decoders ---------------------------------------------------------------------------------

// Decodes Op for an integer type.
template <template <class> class Op, int Sources>
bool emit_lanes(Emitter& e) {
    return emit_same_typed<Lanes<Op, Sources>::template Of>(e, Sources);
}

Ty wider_type(Ty t) {
    switch (t) {
        case Ty::s16: return Ty::s32;
        case Ty::u16: return Ty::u32;
        case Ty::s32: return Ty::s64;
        case Ty::u32: return Ty::u64;
        case Ty::s64:
        case Ty::u64: return Ty::b128;
        default: return Ty::none;
    }
}

bool decode_add(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("cc")) return false;  // decode_add_carry
    if (s.sat) {
        if (t != Ty::s32) e.error("add.sat is only defined for .s32");
        e.emit_operation(s32_only<AddSat, 2>, t, 2);
        return true;
    }
    return emit_lanes<Add, 2>(e);
}
bool decode_sub(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t) || s.has("cc")) return false;
    if (s.sat) {
        if (t != Ty::s32) e.error("sub.sat is only defined for .s32");
        e.emit_operation(s32_only<SubSat, 2>, t, 2);
        return true;
    }
    return emit_lanes<Sub, 2>(e);
}

template <bool Subtract>
bool decode_carry(Emitter& e, bool carry_in) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    Handler h = nullptr;
    switch (t) {
        case Ty::s32: h = &AddCarry<std::int32_t, Subtract>::run; break;
        case Ty::u32:
        case Ty::b32: h = &AddCarry<std::uint32_t, Subtract>::run; break;
        case Ty::s64: h = &AddCarry<std::int64_t, Subtract>::run; break;
        case Ty::u64:
        case Ty::b64: h = &AddCarry<std::uint64_t, Subtract>::run; break;
        default: e.error("carry arithmetic needs a 32- or 64-bit type");
    }
    Inst& in = e.emit_operation(h, t, 2);
    in.op[3] = e.carry();
    in.sub = static_cast<std::uint8_t>((carry_in ? 1u : 0u) | (s.has("cc") ? 2u : 0u));
    return true;
}
bool decode_add_carry(Emitter& e) { return e.suffixes().has("cc") && decode_carry<false>(e, false); }
bool decode_sub_carry(Emitter& e) { return e.suffixes().has("cc") && decode_carry<true>(e, false); }
bool decode_addc(Emitter& e) { return decode_carry<false>(e, true); }
bool decode_subc(Emitter& e) { return decode_carry<true>(e, true); }

// mad{c}.{lo,hi}{.cc} of a 32- or 64-bit type (nullptr for others), and its emission: op[4] the
// carry flag, `sub` as AddCarry's.
Handler mad_carry_handler(Ty t) {
    switch (t) {
        case Ty::s32: return &MadCarry<std::int32_t>::run;
        case Ty::u32: return &MadCarry<std::uint32_t>::run;
        case Ty::s64: return &MadCarry<std::int64_t>::run;
        case Ty::u64: return &MadCarry<std::uint64_t>::run;
        default: return nullptr;
    }
}
void emit_mad_carry(Emitter& e, Handler h, std::uint8_t sub) {
    Inst& in = e.emit_operation(h, e.suffixes().type(), 3);
    in.op[4] = e.carry();
    in.size = e.suffixes().has("hi") ? 1 : 0;
    in.sub = sub;
}

bool decode_mul(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("wide")) {
        Handler h = by_integer_type<MulWide>(t);
        if (h == nullptr || wider_type(t) == Ty::b128) e.error("mul.wide is defined for 16- and 32-bit types");
        e.emit_operation(h, wider_type(t), {t, t});
        return true;
    }
    if (s.has("hi")) return emit_lanes<MulHi, 2>(e);
    return emit_lanes<MulLo, 2>(e);  // .lo (required by PTX, tolerated when missing)
}

bool decode_mad(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("cc")) {
        const Handler h = mad_carry_handler(t);
        if (h == nullptr) e.error("mad.cc needs a 32- or 64-bit type");
        emit_mad_carry(e, h, 2);
        return true;
    }
    if (s.has("wide")) {
        Handler h = by_integer_type<MadWide>(t);
        if (h == nullptr || wider_type(t) == Ty::b128) e.error("mad.wide is defined for 16- and 32-bit types");
        e.emit_operation(h, wider_type(t), {t, t, wider_type(t)});
        return true;
    }
    if (s.has("hi")) {
        if (s.sat) {
            if (t != Ty::s32) e.error("mad.hi.sat is only defined for .s32");
            e.emit_operation(s32_only<MadHiSat, 3>, t, 3);
            return true;
        }
        return emit_lanes<MadHi, 3>(e);
    }
    return emit_lanes<MadLo, 3>(e);
}

bool decode_madc(Emitter& e) {
    const Handler h = mad_carry_handler(e.suffixes().type());
    if (h == nullptr) return false;
    emit_mad_carry(e, h, static_cast<std::uint8_t>(1u | (e.suffixes().has("cc") ? 2u : 0u)));
    return true;
}

bool decode_mul24(Emitter& e) { return e.suffixes().has("hi") ? emit_lanes<Mul24Hi, 2>(e) : emit_lanes<Mul24Lo, 2>(e); }
bool decode_mad24(Emitter& e) {
    if (e.suffixes().has("hi")) {
        e.unsupported("mad24.hi is not implemented by the CPU device");
        return true;
    }
    return emit_lanes<Mad24Lo, 3>(e);
}

bool decode_div(Emitter& e) { return emit_lanes<Div, 2>(e); }
bool decode_rem(Emitter& e) { return emit_lanes<Rem, 2>(e); }
bool decode_abs(Emitter& e) { return emit_lanes<Abs, 1>(e); }
bool decode_neg(Emitter& e) { return emit_lanes<Neg, 1>(e); }
bool decode_sad(Emitter& e) { return emit_lanes<Sad, 3>(e); }

bool decode_minmax(Emitter& e, bool is_max) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (!is_integer(t)) return false;
    if (s.has("relu")) {
        if (t != Ty::s32) e.error("the .relu form is only implemented for .s32");
        e.emit_operation(is_max ? s32_only<MaxRelu, 2> : s32_only<MinRelu, 2>, t, 2);
        return true;
    }
    return is_max ? emit_lanes<Max, 2>(e) : emit_lanes<Min, 2>(e);
}
bool decode_min(Emitter& e) { return decode_minmax(e, false); }
bool decode_max(Emitter& e) { return decode_minmax(e, true); }

}  // namespace

void register_integer_ops(OpTable& t) {
    add_op(t, "add", decode_add);
    add_op(t, "add", decode_add_carry);
    add_op(t, "sub", decode_sub);
    add_op(t, "sub", decode_sub_carry);
    add_op(t, "addc", decode_addc);
    add_op(t, "subc", decode_subc);
    add_op(t, "mul", decode_mul);
    add_op(t, "mad", decode_mad);
    add_op(t, "madc", decode_madc);
    add_op(t, "mul24", decode_mul24);
    add_op(t, "mad24", decode_mad24);
    add_op(t, "div", decode_div);
    add_op(t, "rem", decode_rem);
    add_op(t, "abs", decode_abs);
    add_op(t, "neg", decode_neg);
    add_op(t, "sad", decode_sad);
    add_op(t, "min", decode_min);
    add_op(t, "max", decode_max);
}

}  // namespace xcuda::cpu

// Floating-point arithmetic on .f32, .f64, .f16, .bf16 and their x2 pairs: add sub mul mad fma
// div rcp sqrt rsqrt ex2 lg2 sin cos tanh min max abs neg copysign testp. The semantics are
// float_semantics.hpp's and float_formats.hpp's; here they are chosen by type and modifiers and
// run over the active lanes. Every handler runs inside an fp::Environment, so the host's
// floating-point state (rounding mode, flush-to-zero) left by other code cannot change a result.
#include "exec/decode/decode.hpp"
#include "exec/ops/float_formats.hpp"
#include "exec/ops/float_semantics.hpp"
#include "exec/ops/fma_lanes.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/ops/rounding_mode.hpp"

#include <type_traits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U16 = std::uint16_t;

// Inst::sub of an .f32/.f64 operation: bits 0-2 the rounding, 3 .ftz, 4 .sat.
std::uint8_t mode_bits(const Suffixes& s) {
    return static_cast<std::uint8_t>(static_cast<unsigned>(round_of(s.rounding)) | (s.ftz ? 8u : 0u) |
                                     (s.sat ? 16u : 0u));
}
fp::Mode mode_of(const Inst& in) {
    return {static_cast<fp::Round>(in.sub & 7u), (in.sub & 8u) != 0, (in.sub & 16u) != 0};
}

// --- f32 and f64 -------------------------------------------------------------------------------

// Each operation as a type, so that the lane loops call its functions directly and the compiler
// inlines (and vectorises) the .rn ones: f32<Ftz> the f32 .rn forms without and with .ftz, f64 the
// f64 .rn form, `any` the f32 form with any modifiers and the f64 form in any rounding mode. They
// are float_semantics.hpp's functions of the operation's name.
#define XCUDA_FLOAT_OPERATION(Type, name)    \
    struct Type {                            \
        template <bool Ftz, class... F32>    \
        static float f32(F32... a) {         \
            return fp::name##_rn<Ftz>(a...); \
        }                                    \
        template <class... F64>              \
        static double f64(F64... a) {        \
            return fp::name##_rn(a...);      \
        }                                    \
        template <class... Args>             \
        static auto any(Args... a) {         \
            return fp::name(a...);           \
        }                                    \
    };
XCUDA_FLOAT_OPERATION(Add, add)
XCUDA_FLOAT_OPERATION(Sub, sub)
XCUDA_FLOAT_OPERATION(Mul, mul)
XCUDA_FLOAT_OPERATION(Div, div)
XCUDA_FLOAT_OPERATION(Fma, fma)
XCUDA_FLOAT_OPERATION(Rcp, rcp)
XCUDA_FLOAT_OPERATION(Sqrt, sqrt)
#undef XCUDA_FLOAT_OPERATION

// Op on `Sources` f32 sources. The .rn forms without .sat run the inline functions; the others
// call out.
template <class Op, int Sources>
void f32_operation(Exec& x, const Inst& in, U32 m) {
    const fp::Mode mode = mode_of(in);
    const fp::Environment env(mode.round);
    if constexpr (std::is_same_v<Op, Fma>) {
        if (mode.round == fp::Round::nearest && !mode.sat && !mode.ftz) {  // the common fma.rn.f32
            fp::fma_rn_lanes(x.reg<float>(in.op[0]), x.reg<float>(in.op[1]), x.reg<float>(in.op[2]),
                             x.reg<float>(in.op[3]), m);
            return;
        }
    }
    if (mode.round != fp::Round::nearest || mode.sat) {
        same_typed<float, Sources>(x, in, m, [mode](auto... a) { return Op::any(a..., mode); });
    } else if (mode.ftz) {
        same_typed<float, Sources>(x, in, m, [](auto... a) { return Op::template f32<true>(a...); });
    } else {
        same_typed<float, Sources>(x, in, m, [](auto... a) { return Op::template f32<false>(a...); });
    }
}
template <class Op, int Sources>
void f64_operation(Exec& x, const Inst& in, U32 m) {
    const fp::Round r = mode_of(in).round;
    const fp::Environment env(r);
    if (r == fp::Round::nearest) {
        same_typed<double, Sources>(x, in, m, [](auto... a) { return Op::f64(a...); });
    } else {
        same_typed<double, Sources>(x, in, m, [r](auto... a) { return Op::any(a..., r); });
    }
}

// The approximate functions: `sub` bit 3 is .ftz.
template <class T, T (*Fn)(T, bool)>
void approx(Exec& x, const Inst& in, U32 m) {
    const bool ftz = mode_of(in).ftz;
    const fp::Environment env;
    unary<T, T>(x, in, m, [ftz](T a) { return Fn(a, ftz); });
}
float tanh_f32(float a, bool) { return fp::tanh_approx(a); }
double rcp_approx_f64(double a, bool) { return fp::rcp_approx_ftz(a); }

template <bool Ftz>
void abs_f32(Exec& x, const Inst& in, U32 m) {
    unary<float, float>(x, in, m, fp::abs_f32<Ftz>);
}
template <bool Ftz>
void neg_f32(Exec& x, const Inst& in, U32 m) {
    unary<float, float>(x, in, m, fp::neg_f32<Ftz>);
}
void abs_f64(Exec& x, const Inst& in, U32 m) { unary<double, double>(x, in, m, fp::abs_f64); }
void neg_f64(Exec& x, const Inst& in, U32 m) { unary<double, double>(x, in, m, fp::neg_f64); }

template <class T>
void copy_sign(Exec& x, const Inst& in, U32 m) {
    binary<T, T, T>(x, in, m, [](T a, T b) { return fp::copysign_of(a, b); });
}

// min/max: `sub` bit 0 .ftz, 1 .NaN, 2 .xorsign.abs; `size` 3: a third source (op[3]).
fp::MinMax min_max_flags(std::uint8_t sub) { return {(sub & 1u) != 0, (sub & 2u) != 0, (sub & 4u) != 0}; }
template <class T, bool Max>
void min_max(Exec& x, const Inst& in, U32 m) {
    const fp::MinMax f = min_max_flags(in.sub);
    const fp::Environment env;
    if (in.size == 3) {
        ternary<T, T, T, T>(x, in, m, [f](T a, T b, T c) { return fp::min_max(fp::min_max(a, b, Max, f), c, Max, f); });
    } else {
        binary<T, T, T>(x, in, m, [f](T a, T b) { return fp::min_max(a, b, Max, f); });
    }
}

// testp.{class}.type p, a: `sub` is the class.
template <class T>
void testp(Exec& x, const Inst& in, U32 m) {
    const auto c = static_cast<fp::Class>(in.sub);
    const T* a = slot<T>(x, in.op[1]);
    x.set_pred(in.op[0], lane_bits(m, [&](unsigned l) { return fp::test(c, a[l]); }), m);
}

// --- f16, bf16 and their pairs -------------------------------------------------------------------
// `sub`: bit 0 bf16, 1 .ftz, 2 .sat, 3 .relu, 4 .NaN, 5 .xorsign.abs. A pair holds its first
// element in the low half; every operation applies to both halves.

struct HalfFlags {
    fp::HalfMode mode;
    fp::MinMax minmax;
};
HalfFlags half_flags(std::uint8_t sub) {
    HalfFlags f;
    f.mode.format = (sub & 1u) ? fp::Format::bf16 : fp::Format::f16;
    f.mode.ftz = (sub & 2u) != 0;
    f.mode.sat = (sub & 4u) != 0;
    f.mode.relu = (sub & 8u) != 0;
    f.minmax.nan = (sub & 16u) != 0;
    f.minmax.xorsign_abs = (sub & 32u) != 0;
    return f;
}

U16 low(U32 v) { return static_cast<U16>(v); }
U16 high(U32 v) { return static_cast<U16>(v >> 16); }
U32 pair(U16 lo, U16 hi) { return U32{lo} | (U32{hi} << 16); }

U16 h_add(U16 a, U16 b, const HalfFlags& f) { return fp::half_add(a, b, f.mode); }
U16 h_sub(U16 a, U16 b, const HalfFlags& f) { return fp::half_sub(a, b, f.mode); }
U16 h_mul(U16 a, U16 b, const HalfFlags& f) { return fp::half_mul(a, b, f.mode); }
U16 h_min(U16 a, U16 b, const HalfFlags& f) { return fp::half_min_max(a, b, false, f.mode, f.minmax); }
U16 h_max(U16 a, U16 b, const HalfFlags& f) { return fp::half_min_max(a, b, true, f.mode, f.minmax); }
U16 h_fma(U16 a, U16 b, U16 c, const HalfFlags& f) { return fp::half_fma(a, b, c, f.mode); }
U16 h_neg(U16 a, const HalfFlags& f) { return fp::half_neg(a, f.mode); }
U16 h_abs(U16 a, const HalfFlags& f) { return fp::half_abs(a, f.mode); }
U16 h_ex2(U16 a, const HalfFlags& f) { return fp::half_ex2_approx(a, f.mode); }
U16 h_tanh(U16 a, const HalfFlags& f) { return fp::half_tanh_approx(a, f.mode); }

// Op on `Sources` f16 or bf16 sources, or on both halves of pairs.
template <auto Op, int Sources>
void half_operation(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    same_typed<U16, Sources>(x, in, m, [&f](auto... a) { return Op(a..., f); });
}
template <auto Op, int Sources>
void pair_operation(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    same_typed<U32, Sources>(x, in, m, [&f](auto... a) { return pair(Op(low(a)..., f), Op(high(a)..., f)); });
}

// --- decoders ----------------------------------------------------------------------------------

bool is_half(Ty t) { return t == Ty::f16 || t == Ty::bf16; }
bool is_pair(Ty t) { return t == Ty::f16x2 || t == Ty::bf16x2; }

std::uint8_t half_bits(const Suffixes& s) {
    const Ty t = s.type();
    return static_cast<std::uint8_t>((t == Ty::bf16 || t == Ty::bf16x2 ? 1u : 0u) | (s.ftz ? 2u : 0u) |
                                     (s.sat ? 4u : 0u) | (s.has("relu") ? 8u : 0u) | (s.has("NaN") ? 16u : 0u) |
                                     (s.has("xorsign") ? 32u : 0u));
}

// One operation's handlers by type; nullptr where the type does not take it.
struct Handlers {
    Handler f32 = nullptr, f64 = nullptr, half = nullptr, pair = nullptr;
};

bool decode_with(Emitter& e, const Handlers& h, int sources) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    Handler handler = nullptr;
    std::uint8_t sub = mode_bits(s);
    if (t == Ty::f32) {
        handler = h.f32;
    } else if (t == Ty::f64) {
        handler = h.f64;
    } else if (is_half(t)) {
        handler = h.half;
        sub = half_bits(s);
    } else if (is_pair(t)) {
        handler = h.pair;
        sub = half_bits(s);
    } else {
        return false;  // an integer type: another family's
    }
    if (handler == nullptr) return false;
    e.emit_operation(handler, t, sources).sub = sub;
    return true;
}

// Op decoded for .f32 and .f64 and, where it has one, Half (its f16/bf16 function) for the
// half types and their pairs.
template <class Op, int Sources, auto Half = nullptr>
bool decode_operation(Emitter& e) {
    Handlers h{&f32_operation<Op, Sources>, &f64_operation<Op, Sources>};
    if constexpr (Half != nullptr) {
        h.half = &half_operation<Half, Sources>;
        h.pair = &pair_operation<Half, Sources>;
    }
    return decode_with(e, h, Sources);
}
// mad.rnd.f32/.f64 is fma (sm_20 on); fma.rn.oob is left to the unsupported path.
bool decode_fma(Emitter& e) { return !e.suffixes().has("oob") && decode_operation<Fma, 3, h_fma>(e); }
// rcp.approx.ftz.f64 is the only approximate f64 form; rcp.approx.f32 is rcp.rn.
bool decode_rcp(Emitter& e) {
    if (e.suffixes().type() == Ty::f64 && e.suffixes().has("approx")) {
        return decode_with(e, {nullptr, &approx<double, rcp_approx_f64>}, 1);
    }
    return decode_operation<Rcp, 1>(e);
}
bool decode_rsqrt(Emitter& e) {
    return decode_with(e, {&approx<float, fp::rsqrt_approx>, &approx<double, fp::rsqrt_approx>}, 1);
}
bool decode_ex2(Emitter& e) {
    return decode_with(
        e, {&approx<float, fp::ex2_approx>, nullptr, &half_operation<h_ex2, 1>, &pair_operation<h_ex2, 1>}, 1);
}
bool decode_lg2(Emitter& e) { return decode_with(e, {&approx<float, fp::lg2_approx>}, 1); }
bool decode_sin(Emitter& e) { return decode_with(e, {&approx<float, fp::sin_approx>}, 1); }
bool decode_cos(Emitter& e) { return decode_with(e, {&approx<float, fp::cos_approx>}, 1); }
bool decode_tanh(Emitter& e) {
    return decode_with(e, {&approx<float, tanh_f32>, nullptr, &half_operation<h_tanh, 1>, &pair_operation<h_tanh, 1>},
                       1);
}
bool decode_abs(Emitter& e) {
    const Handler f32 = e.suffixes().ftz ? &abs_f32<true> : &abs_f32<false>;
    return decode_with(e, {f32, &abs_f64, &half_operation<h_abs, 1>, &pair_operation<h_abs, 1>}, 1);
}
bool decode_neg(Emitter& e) {
    const Handler f32 = e.suffixes().ftz ? &neg_f32<true> : &neg_f32<false>;
    return decode_with(e, {f32, &neg_f64, &half_operation<h_neg, 1>, &pair_operation<h_neg, 1>}, 1);
}
bool decode_copysign(Emitter& e) { return decode_with(e, {&copy_sign<float>, &copy_sign<double>}, 2); }

template <bool Max>
bool decode_min_max(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::f32 && t != Ty::f64) {
        constexpr auto op = Max ? h_max : h_min;
        return decode_with(e, {nullptr, nullptr, &half_operation<op, 2>, &pair_operation<op, 2>}, 2);
    }
    const int sources = e.operand_count() == 4 ? 3 : 2;  // sm_100's three-input form
    const auto sub =
        static_cast<std::uint8_t>((s.ftz ? 1u : 0u) | (s.has("NaN") ? 2u : 0u) | (s.has("xorsign") ? 4u : 0u));
    Inst& in = e.emit_operation(t == Ty::f32 ? &min_max<float, Max> : &min_max<double, Max>, t, sources);
    in.sub = sub;
    in.size = static_cast<std::uint8_t>(sources);
    return true;
}

bool decode_testp(Emitter& e) {
    const Suffixes& s = e.suffixes();
    static const char* const classes[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
    int c = -1;
    for (int i = 0; i < 6; ++i) {
        if (s.has(classes[i])) c = i;
    }
    const Ty t = s.type();
    if (c < 0 || (t != Ty::f32 && t != Ty::f64)) return false;
    const std::uint32_t a = e.source(e.operand(1), t);
    const std::uint32_t p = e.predicate_destination(e.operand(0));
    Inst& in = e.emit(t == Ty::f32 ? &testp<float> : &testp<double>);
    in.op[0] = p;
    in.op[1] = a;
    in.sub = static_cast<std::uint8_t>(c);
    return true;
}

}  // namespace

void register_float_ops(OpTable& t) {
    add_op(t, "add", decode_operation<Add, 2, h_add>);
    add_op(t, "sub", decode_operation<Sub, 2, h_sub>);
    add_op(t, "mul", decode_operation<Mul, 2, h_mul>);
    add_op(t, "mad", decode_fma);
    add_op(t, "fma", decode_fma);
    add_op(t, "div", decode_operation<Div, 2>);
    add_op(t, "rcp", decode_rcp);
    add_op(t, "sqrt", decode_operation<Sqrt, 1>);
    add_op(t, "rsqrt", decode_rsqrt);
    add_op(t, "ex2", decode_ex2);
    add_op(t, "lg2", decode_lg2);
    add_op(t, "sin", decode_sin);
    add_op(t, "cos", decode_cos);
    add_op(t, "tanh", decode_tanh);
    add_op(t, "min", decode_min_max<false>);
    add_op(t, "max", decode_min_max<true>);
    add_op(t, "abs", decode_abs);
    add_op(t, "neg", decode_neg);
    add_op(t, "copysign", decode_copysign);
    add_op(t, "testp", decode_testp);
}

}  // namespace xcuda::cpu

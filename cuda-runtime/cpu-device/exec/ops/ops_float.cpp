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
// inlines (and vectorises) the .rn ones: f32 .rn without and with .ftz, f32 with any modifiers,
// f64 .rn, f64 in any rounding mode.
struct Add {
    template <bool Ftz>
    static float f32(float a, float b) {
        return fp::add_rn<Ftz>(a, b);
    }
    static float any(float a, float b, fp::Mode m) { return fp::add(a, b, m); }
    static double f64(double a, double b) { return fp::add_rn(a, b); }
    static double any(double a, double b, fp::Round r) { return fp::add(a, b, r); }
};
struct Sub {
    template <bool Ftz>
    static float f32(float a, float b) {
        return fp::sub_rn<Ftz>(a, b);
    }
    static float any(float a, float b, fp::Mode m) { return fp::sub(a, b, m); }
    static double f64(double a, double b) { return fp::sub_rn(a, b); }
    static double any(double a, double b, fp::Round r) { return fp::sub(a, b, r); }
};
struct Mul {
    template <bool Ftz>
    static float f32(float a, float b) {
        return fp::mul_rn<Ftz>(a, b);
    }
    static float any(float a, float b, fp::Mode m) { return fp::mul(a, b, m); }
    static double f64(double a, double b) { return fp::mul_rn(a, b); }
    static double any(double a, double b, fp::Round r) { return fp::mul(a, b, r); }
};
struct Div {
    template <bool Ftz>
    static float f32(float a, float b) {
        return fp::div_rn<Ftz>(a, b);
    }
    static float any(float a, float b, fp::Mode m) { return fp::div(a, b, m); }
    static double f64(double a, double b) { return fp::div_rn(a, b); }
    static double any(double a, double b, fp::Round r) { return fp::div(a, b, r); }
};
struct Fma {
    template <bool Ftz>
    static float f32(float a, float b, float c) {
        return fp::fma_rn<Ftz>(a, b, c);
    }
    static float any(float a, float b, float c, fp::Mode m) { return fp::fma(a, b, c, m); }
    static double f64(double a, double b, double c) { return fp::fma_rn(a, b, c); }
    static double any(double a, double b, double c, fp::Round r) { return fp::fma(a, b, c, r); }
};
struct Rcp {
    template <bool Ftz>
    static float f32(float a) {
        return fp::rcp_rn<Ftz>(a);
    }
    static float any(float a, fp::Mode m) { return fp::rcp(a, m); }
    static double f64(double a) { return fp::rcp_rn(a); }
    static double any(double a, fp::Round r) { return fp::rcp(a, r); }
};
struct Sqrt {
    template <bool Ftz>
    static float f32(float a) {
        return fp::sqrt_rn<Ftz>(a);
    }
    static float any(float a, fp::Mode m) { return fp::sqrt(a, m); }
    static double f64(double a) { return fp::sqrt_rn(a); }
    static double any(double a, fp::Round r) { return fp::sqrt(a, r); }
};

// The .rn forms without .sat run the inline functions; the others call out.
template <class Op>
void f32_binary(Exec& x, const Inst& in, U32 m) {
    const fp::Mode mode = mode_of(in);
    const fp::Environment env(mode.round);
    if (mode.round != fp::Round::nearest || mode.sat) {
        binary<float, float, float>(x, in, m, [mode](float a, float b) { return Op::any(a, b, mode); });
    } else if (mode.ftz) {
        binary<float, float, float>(x, in, m, [](float a, float b) { return Op::template f32<true>(a, b); });
    } else {
        binary<float, float, float>(x, in, m, [](float a, float b) { return Op::template f32<false>(a, b); });
    }
}
template <class Op>
void f32_ternary(Exec& x, const Inst& in, U32 m) {
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
        ternary<float, float, float, float>(x, in, m,
                                            [mode](float a, float b, float c) { return Op::any(a, b, c, mode); });
    } else if (mode.ftz) {
        ternary<float, float, float, float>(x, in, m,
                                            [](float a, float b, float c) { return Op::template f32<true>(a, b, c); });
    } else {
        ternary<float, float, float, float>(x, in, m,
                                            [](float a, float b, float c) { return Op::template f32<false>(a, b, c); });
    }
}
template <class Op>
void f32_unary(Exec& x, const Inst& in, U32 m) {
    const fp::Mode mode = mode_of(in);
    const fp::Environment env(mode.round);
    if (mode.round != fp::Round::nearest || mode.sat) {
        unary<float, float>(x, in, m, [mode](float a) { return Op::any(a, mode); });
    } else if (mode.ftz) {
        unary<float, float>(x, in, m, [](float a) { return Op::template f32<true>(a); });
    } else {
        unary<float, float>(x, in, m, [](float a) { return Op::template f32<false>(a); });
    }
}
template <class Op>
void f64_binary(Exec& x, const Inst& in, U32 m) {
    const fp::Round r = mode_of(in).round;
    const fp::Environment env(r);
    if (r == fp::Round::nearest) {
        binary<double, double, double>(x, in, m, [](double a, double b) { return Op::f64(a, b); });
    } else {
        binary<double, double, double>(x, in, m, [r](double a, double b) { return Op::any(a, b, r); });
    }
}
template <class Op>
void f64_ternary(Exec& x, const Inst& in, U32 m) {
    const fp::Round r = mode_of(in).round;
    const fp::Environment env(r);
    if (r == fp::Round::nearest) {
        ternary<double, double, double, double>(x, in, m,
                                                [](double a, double b, double c) { return Op::f64(a, b, c); });
    } else {
        ternary<double, double, double, double>(x, in, m,
                                                [r](double a, double b, double c) { return Op::any(a, b, c, r); });
    }
}
template <class Op>
void f64_unary(Exec& x, const Inst& in, U32 m) {
    const fp::Round r = mode_of(in).round;
    const fp::Environment env(r);
    if (r == fp::Round::nearest) {
        unary<double, double>(x, in, m, [](double a) { return Op::f64(a); });
    } else {
        unary<double, double>(x, in, m, [r](double a) { return Op::any(a, r); });
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

template <U16 (*Op)(U16, const HalfFlags&)>
void half_unary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    unary<U16, U16>(x, in, m, [&f](U16 a) { return Op(a, f); });
}
template <U16 (*Op)(U16, const HalfFlags&)>
void pair_unary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    unary<U32, U32>(x, in, m, [&f](U32 a) { return pair(Op(low(a), f), Op(high(a), f)); });
}
template <U16 (*Op)(U16, U16, const HalfFlags&)>
void half_binary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    binary<U16, U16, U16>(x, in, m, [&f](U16 a, U16 b) { return Op(a, b, f); });
}
template <U16 (*Op)(U16, U16, const HalfFlags&)>
void pair_binary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    binary<U32, U32, U32>(x, in, m,
                          [&f](U32 a, U32 b) { return pair(Op(low(a), low(b), f), Op(high(a), high(b), f)); });
}
template <U16 (*Op)(U16, U16, U16, const HalfFlags&)>
void half_ternary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    ternary<U16, U16, U16, U16>(x, in, m, [&f](U16 a, U16 b, U16 c) { return Op(a, b, c, f); });
}
template <U16 (*Op)(U16, U16, U16, const HalfFlags&)>
void pair_ternary(Exec& x, const Inst& in, U32 m) {
    const HalfFlags f = half_flags(in.sub);
    const fp::Environment env;
    ternary<U32, U32, U32, U32>(x, in, m, [&f](U32 a, U32 b, U32 c) {
        return pair(Op(low(a), low(b), low(c), f), Op(high(a), high(b), high(c), f));
    });
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

// d, a[, b[, c]], all of type t; the sources are resolved first (they may emit micro-ops).
Inst& emit_operation(Emitter& e, Handler h, Ty t, int sources, std::uint8_t sub) {
    std::uint32_t ops[4] = {0, 0, 0, 0};
    for (int i = 1; i <= sources; ++i) ops[i] = e.source(e.operand(i), t);
    const std::uint32_t d = e.destination(e.operand(0), t);
    Inst& in = e.emit(h);
    in.op[0] = d;
    for (int i = 1; i <= sources; ++i) in.op[i] = ops[i];
    in.sub = sub;
    return in;
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
    emit_operation(e, handler, t, sources, sub);
    return true;
}

bool decode_add(Emitter& e) {
    return decode_with(e, {&f32_binary<Add>, &f64_binary<Add>, &half_binary<h_add>, &pair_binary<h_add>}, 2);
}
bool decode_sub(Emitter& e) {
    return decode_with(e, {&f32_binary<Sub>, &f64_binary<Sub>, &half_binary<h_sub>, &pair_binary<h_sub>}, 2);
}
bool decode_mul(Emitter& e) {
    return decode_with(e, {&f32_binary<Mul>, &f64_binary<Mul>, &half_binary<h_mul>, &pair_binary<h_mul>}, 2);
}
// mad.rnd.f32/.f64 is fma (sm_20 on); fma.rn.oob is left to the unsupported path.
bool decode_fma(Emitter& e) {
    if (e.suffixes().has("oob")) return false;
    return decode_with(e, {&f32_ternary<Fma>, &f64_ternary<Fma>, &half_ternary<h_fma>, &pair_ternary<h_fma>}, 3);
}
bool decode_div(Emitter& e) { return decode_with(e, {&f32_binary<Div>, &f64_binary<Div>}, 2); }
// rcp.approx.ftz.f64 is the only approximate f64 form; rcp.approx.f32 is rcp.rn.
bool decode_rcp(Emitter& e) {
    if (e.suffixes().type() == Ty::f64 && e.suffixes().has("approx")) {
        return decode_with(e, {nullptr, &approx<double, rcp_approx_f64>}, 1);
    }
    return decode_with(e, {&f32_unary<Rcp>, &f64_unary<Rcp>}, 1);
}
bool decode_sqrt(Emitter& e) { return decode_with(e, {&f32_unary<Sqrt>, &f64_unary<Sqrt>}, 1); }
bool decode_rsqrt(Emitter& e) {
    return decode_with(e, {&approx<float, fp::rsqrt_approx>, &approx<double, fp::rsqrt_approx>}, 1);
}
bool decode_ex2(Emitter& e) {
    return decode_with(e, {&approx<float, fp::ex2_approx>, nullptr, &half_unary<h_ex2>, &pair_unary<h_ex2>}, 1);
}
bool decode_lg2(Emitter& e) { return decode_with(e, {&approx<float, fp::lg2_approx>}, 1); }
bool decode_sin(Emitter& e) { return decode_with(e, {&approx<float, fp::sin_approx>}, 1); }
bool decode_cos(Emitter& e) { return decode_with(e, {&approx<float, fp::cos_approx>}, 1); }
bool decode_tanh(Emitter& e) {
    return decode_with(e, {&approx<float, tanh_f32>, nullptr, &half_unary<h_tanh>, &pair_unary<h_tanh>}, 1);
}
bool decode_abs(Emitter& e) {
    const Handler f32 = e.suffixes().ftz ? &abs_f32<true> : &abs_f32<false>;
    return decode_with(e, {f32, &abs_f64, &half_unary<h_abs>, &pair_unary<h_abs>}, 1);
}
bool decode_neg(Emitter& e) {
    const Handler f32 = e.suffixes().ftz ? &neg_f32<true> : &neg_f32<false>;
    return decode_with(e, {f32, &neg_f64, &half_unary<h_neg>, &pair_unary<h_neg>}, 1);
}
bool decode_copysign(Emitter& e) { return decode_with(e, {&copy_sign<float>, &copy_sign<double>}, 2); }

template <bool Max>
bool decode_min_max(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type();
    if (t != Ty::f32 && t != Ty::f64) {
        return decode_with(
            e, {nullptr, nullptr, &half_binary < Max ? h_max : h_min >, &pair_binary < Max ? h_max : h_min > }, 2);
    }
    const int sources = e.operand_count() == 4 ? 3 : 2;  // sm_100's three-input form
    const auto sub =
        static_cast<std::uint8_t>((s.ftz ? 1u : 0u) | (s.has("NaN") ? 2u : 0u) | (s.has("xorsign") ? 4u : 0u));
    Inst& in = emit_operation(e, t == Ty::f32 ? &min_max<float, Max> : &min_max<double, Max>, t, sources, sub);
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
    add_op(t, "add", decode_add);
    add_op(t, "sub", decode_sub);
    add_op(t, "mul", decode_mul);
    add_op(t, "mad", decode_fma);
    add_op(t, "fma", decode_fma);
    add_op(t, "div", decode_div);
    add_op(t, "rcp", decode_rcp);
    add_op(t, "sqrt", decode_sqrt);
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

// Comparisons and selections: setp and set on integer and floating-point operands (with the
// optional .and/.or/.xor of a third predicate, and setp's second destination), selp and slct.
#include "exec/decode/decode.hpp"
#include "exec/ops/float_formats.hpp"
#include "exec/ops/float_semantics.hpp"
#include "exec/ops/lanes.hpp"

#include <type_traits>

namespace xcuda::cpu {
namespace {

using U32 = std::uint32_t;
using U16 = std::uint16_t;

// The source types of a comparison.
template <class T>
struct Int {};
template <class F>
struct Float {};
template <fp::Format Format, bool Pair>
struct Half {};

// Inst fields of setp and set: `sub` the comparison (a Cmp for integers, an fp::Compare for
// floats); `size` bits 0-1 the BoolOp, bit 2 `!c`, bit 3 .ftz; op[1], op[2] the operands, op[3]
// the predicate c (with a BoolOp). setp: op[0] p, op[4] q or no_guard. set: op[0] d, imm the
// value of true.
constexpr unsigned negate_c = 4u, ftz_flag = 8u;

// The comparison of each lane in `mask`, as a lane mask; `half` picks a pair's element.
template <class T>
U32 compare_lanes(Int<T>, const Exec& x, const Inst& in, U32 mask, unsigned) {
    using UT = std::make_unsigned_t<T>;
    const T* a = slot<T>(x, in.op[1]);
    const T* b = slot<T>(x, in.op[2]);
    auto lanes = [&](auto cmp) { return lane_bits(mask, [&](unsigned l) { return cmp(a[l], b[l]); }); };
    switch (static_cast<Cmp>(in.sub)) {
        case Cmp::eq: return lanes([](T p, T q) { return p == q; });
        case Cmp::ne: return lanes([](T p, T q) { return p != q; });
        case Cmp::lt: return lanes([](T p, T q) { return p < q; });
        case Cmp::le: return lanes([](T p, T q) { return p <= q; });
        case Cmp::gt: return lanes([](T p, T q) { return p > q; });
        case Cmp::ge: return lanes([](T p, T q) { return p >= q; });
        case Cmp::lo: return lanes([](T p, T q) { return UT(p) < UT(q); });
        case Cmp::ls: return lanes([](T p, T q) { return UT(p) <= UT(q); });
        case Cmp::hi: return lanes([](T p, T q) { return UT(p) > UT(q); });
        case Cmp::hs: return lanes([](T p, T q) { return UT(p) >= UT(q); });
        default: return 0;
    }
}

template <fp::Compare C, class T, class V>
U32 float_lanes(const T* a, const T* b, U32 mask, V value) {
    return lane_bits(mask, [&](unsigned l) { return fp::compare<C>(value(a[l]), value(b[l])); });
}
template <class T, class V>
U32 float_compare_lanes(fp::Compare c, const T* a, const T* b, U32 mask, V value) {
    using fp::Compare;
    switch (c) {
        case Compare::eq: return float_lanes<Compare::eq>(a, b, mask, value);
        case Compare::ne: return float_lanes<Compare::ne>(a, b, mask, value);
        case Compare::lt: return float_lanes<Compare::lt>(a, b, mask, value);
        case Compare::le: return float_lanes<Compare::le>(a, b, mask, value);
        case Compare::gt: return float_lanes<Compare::gt>(a, b, mask, value);
        case Compare::ge: return float_lanes<Compare::ge>(a, b, mask, value);
        case Compare::equ: return float_lanes<Compare::equ>(a, b, mask, value);
        case Compare::neu: return float_lanes<Compare::neu>(a, b, mask, value);
        case Compare::ltu: return float_lanes<Compare::ltu>(a, b, mask, value);
        case Compare::leu: return float_lanes<Compare::leu>(a, b, mask, value);
        case Compare::gtu: return float_lanes<Compare::gtu>(a, b, mask, value);
        case Compare::geu: return float_lanes<Compare::geu>(a, b, mask, value);
        case Compare::num: return float_lanes<Compare::num>(a, b, mask, value);
        case Compare::nan: return float_lanes<Compare::nan>(a, b, mask, value);
    }
    return 0;
}

template <class F>
U32 compare_lanes(Float<F>, const Exec& x, const Inst& in, U32 mask, unsigned) {
    const fp::Environment env;  // no denormals-are-zero from the host: subnormals compare as themselves
    const F* a = slot<F>(x, in.op[1]);
    const F* b = slot<F>(x, in.op[2]);
    const auto c = static_cast<fp::Compare>(in.sub);
    if (in.size & ftz_flag) return float_compare_lanes(c, a, b, mask, [](F v) { return fp::flush(v); });
    return float_compare_lanes(c, a, b, mask, [](F v) { return v; });
}

template <fp::Format Format, bool Pair>
U32 compare_lanes(Half<Format, Pair>, const Exec& x, const Inst& in, U32 mask, unsigned half) {
    const fp::Environment env;
    fp::HalfMode m;
    m.format = Format;
    m.ftz = (in.size & ftz_flag) != 0;
    const auto c = static_cast<fp::Compare>(in.sub);
    using T = std::conditional_t<Pair, U32, U16>;
    const T* a = slot<T>(x, in.op[1]);
    const T* b = slot<T>(x, in.op[2]);
    const unsigned shift = 16 * half;
    return float_compare_lanes(c, a, b, mask, [&](T v) { return fp::half_value(static_cast<U16>(v >> shift), m); });
}

U32 combine(const Inst& in, U32 t, U32 c) {
    switch (static_cast<BoolOp>(in.size & 3u)) {
        case BoolOp::and_: return t & c;
        case BoolOp::or_: return t | c;
        case BoolOp::xor_: return t ^ c;
        default: return t;
    }
}
// The predicate c, read before any destination is written (p may be c).
U32 third(const Exec& x, const Inst& in) {
    if ((in.size & 3u) == 0) return 0;
    const U32 c = x.pred(in.op[3]);
    return (in.size & negate_c) ? ~c : c;
}

// setp p[|q], a, b[, c]: p = BoolOp(t, c), q = BoolOp(!t, c).
template <class S>
struct Setp {
    static void run(Exec& x, const Inst& in, U32 m) {
        const U32 c = third(x, in);
        const U32 t = compare_lanes(S{}, x, in, m, 0);
        x.set_pred(in.op[0], combine(in, t, c), m);
        if (in.op[4] != no_guard) x.set_pred(in.op[4], combine(in, ~t, c), m);
    }
};
// setp on a pair: p from the low elements, q from the high ones.
template <class S>
struct SetpPair {
    static void run(Exec& x, const Inst& in, U32 m) {
        const U32 c = third(x, in);
        const U32 t0 = compare_lanes(S{}, x, in, m, 0);
        const U32 t1 = compare_lanes(S{}, x, in, m, 1);
        x.set_pred(in.op[0], combine(in, t0, c), m);
        x.set_pred(in.op[4], combine(in, t1, c), m);
    }
};
// set d, a, b[, c]: d = BoolOp(t, c) ? true value : 0.
template <class S, class D>
struct Set {
    static void run(Exec& x, const Inst& in, U32 m) {
        const U32 t = combine(in, compare_lanes(S{}, x, in, m, 0), third(x, in));
        const auto one = static_cast<D>(in.imm);
        each_lane(m, slot<D>(x, in.op[0]), [&](unsigned l) { return ((t >> l) & 1u) ? one : D{0}; });
    }
};
template <class S>
using Set16 = Set<S, U16>;
template <class S>
using Set32 = Set<S, U32>;
// set on a pair: each half of d from its elements.
template <class S>
struct SetPair {
    static void run(Exec& x, const Inst& in, U32 m) {
        const U32 c = third(x, in);
        const U32 t0 = combine(in, compare_lanes(S{}, x, in, m, 0), c);
        const U32 t1 = combine(in, compare_lanes(S{}, x, in, m, 1), c);
        const U32 one = static_cast<U16>(in.imm);  // each half: 0xFFFF for integer types
        each_lane(m, slot<U32>(x, in.op[0]),
                  [&](unsigned l) { return (((t0 >> l) & 1u) ? one : 0u) | ((((t1 >> l) & 1u) ? one : 0u) << 16); });
    }
};

template <template <class> class H>
Handler by_source(Ty t) {
    switch (t) {
        case Ty::s16: return &H<Int<std::int16_t>>::run;
        case Ty::u16:
        case Ty::b16: return &H<Int<std::uint16_t>>::run;
        case Ty::s32: return &H<Int<std::int32_t>>::run;
        case Ty::u32:
        case Ty::b32: return &H<Int<std::uint32_t>>::run;
        case Ty::s64: return &H<Int<std::int64_t>>::run;
        case Ty::u64:
        case Ty::b64: return &H<Int<std::uint64_t>>::run;
        case Ty::f32: return &H<Float<float>>::run;
        case Ty::f64: return &H<Float<double>>::run;
        case Ty::f16: return &H<Half<fp::Format::f16, false>>::run;
        case Ty::bf16: return &H<Half<fp::Format::bf16, false>>::run;
        default: return nullptr;
    }
}
template <template <class> class H>
Handler by_pair(Ty t) {
    switch (t) {
        case Ty::f16x2: return &H<Half<fp::Format::f16, true>>::run;
        case Ty::bf16x2: return &H<Half<fp::Format::bf16, true>>::run;
        default: return nullptr;
    }
}

bool is_pair(Ty t) { return t == Ty::f16x2 || t == Ty::bf16x2; }

// `sub` of a comparison of type t: integers keep the Cmp, floats take the fp::Compare.
std::uint8_t comparison_code(const Emitter& e, Ty t) {
    const Cmp c = e.suffixes().cmp;
    if (c == Cmp::none) e.error("expected a comparison (.eq, .lt, ...)");
    if (!is_float(t)) {
        if (c >= Cmp::equ) e.error("unordered comparisons are for floating-point operands");
        return static_cast<std::uint8_t>(c);
    }
    switch (c) {
        case Cmp::eq: return static_cast<std::uint8_t>(fp::Compare::eq);
        case Cmp::ne: return static_cast<std::uint8_t>(fp::Compare::ne);
        case Cmp::lt: return static_cast<std::uint8_t>(fp::Compare::lt);
        case Cmp::le: return static_cast<std::uint8_t>(fp::Compare::le);
        case Cmp::gt: return static_cast<std::uint8_t>(fp::Compare::gt);
        case Cmp::ge: return static_cast<std::uint8_t>(fp::Compare::ge);
        case Cmp::equ: return static_cast<std::uint8_t>(fp::Compare::equ);
        case Cmp::neu: return static_cast<std::uint8_t>(fp::Compare::neu);
        case Cmp::ltu: return static_cast<std::uint8_t>(fp::Compare::ltu);
        case Cmp::leu: return static_cast<std::uint8_t>(fp::Compare::leu);
        case Cmp::gtu: return static_cast<std::uint8_t>(fp::Compare::gtu);
        case Cmp::geu: return static_cast<std::uint8_t>(fp::Compare::geu);
        case Cmp::num: return static_cast<std::uint8_t>(fp::Compare::num);
        case Cmp::nan: return static_cast<std::uint8_t>(fp::Compare::nan);
        default: e.error("unsigned comparisons (.lo .ls .hi .hs) are for integer operands");
    }
}

// The operands a, b and the optional c of setp/set, resolved before anything is emitted.
struct Comparison {
    std::uint32_t a = 0, b = 0, c = 0;
    std::uint8_t size = 0;
};
Comparison comparison_operands(Emitter& e, Ty t) {
    const Suffixes& s = e.suffixes();
    Comparison k;
    k.a = e.source(e.operand(1), t);
    k.b = e.source(e.operand(2), t);
    k.size = static_cast<std::uint8_t>(static_cast<unsigned>(s.bool_op) | (s.ftz ? ftz_flag : 0u));
    if (s.bool_op != BoolOp::none) {
        bool negated = false;
        k.c = e.predicate(e.operand(3), &negated);
        if (negated) k.size = static_cast<std::uint8_t>(k.size | negate_c);
    }
    return k;
}

bool decode_setp(Emitter& e) {
    const Ty t = e.suffixes().type();
    const bool pair = is_pair(t);
    const Handler h = pair ? by_pair<SetpPair>(t) : by_source<Setp>(t);
    if (h == nullptr) return false;
    const std::uint8_t code = comparison_code(e, t);
    const Comparison k = comparison_operands(e, t);
    const ptx::Operand& dst = e.operand(0);
    const std::uint32_t p = e.predicate_destination(dst);
    std::uint32_t q = no_guard;
    if (!dst.pair.empty() || pair) {
        ptx::Operand second;  // `p|q`: the parser keeps q's name beside p's
        if (!dst.pair.empty() && dst.pair != "_") {
            second.kind = ptx::Operand::Kind::reg;
            second.name = dst.pair;
        }
        q = e.predicate_destination(second);
    }
    Inst& in = e.emit(h);
    in.op[0] = p;
    in.op[1] = k.a;
    in.op[2] = k.b;
    in.op[3] = k.c;
    in.op[4] = q;
    in.sub = code;
    in.size = k.size;
    return true;
}

// The value set writes for true in a destination of type d.
std::uint32_t true_value(Ty d) {
    switch (d) {
        case Ty::f32: return 0x3F800000u;
        case Ty::f16:
        case Ty::f16x2: return 0x3C00u;
        case Ty::bf16:
        case Ty::bf16x2: return 0x3F80u;
        case Ty::u16:
        case Ty::s16:
        case Ty::b16: return 0xFFFFu;
        default: return 0xFFFFFFFFu;
    }
}

bool decode_set(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty d = s.type(0), t = s.type(1);
    Handler h = nullptr;
    Ty result = d;
    if (is_pair(t)) {
        h = by_pair<SetPair>(t);
        result = Ty::b32;
    } else if (type_size(d) == 2) {
        h = by_source<Set16>(t);
    } else if (type_size(d) == 4) {
        h = by_source<Set32>(t);
    }
    if (h == nullptr) return false;
    const std::uint8_t code = comparison_code(e, t);
    const Comparison k = comparison_operands(e, t);
    const std::uint32_t dst = e.destination(e.operand(0), result);
    Inst& in = e.emit(h);
    in.op[0] = dst;
    in.op[1] = k.a;
    in.op[2] = k.b;
    in.op[3] = k.c;
    in.sub = code;
    in.size = k.size;
    in.imm = true_value(d);
    return true;
}

// selp.type d, a, b, c: c ? a : b. `sub` 1: c is negated.
template <class T>
void selp(Exec& x, const Inst& in, U32 m) {
    const U32 c = x.pred(in.op[3]) ^ (in.sub ? 0xFFFFFFFFu : 0u);
    const T* a = slot<T>(x, in.op[1]);
    const T* b = slot<T>(x, in.op[2]);
    each_lane(m, slot<T>(x, in.op[0]), [&](unsigned l) { return ((c >> l) & 1u) ? a[l] : b[l]; });
}

// slct.dtype.{s32,f32} d, a, b, c: c >= 0 ? a : b (a NaN c selects b). `sub` 1: .ftz.
template <class T, class C>
void slct(Exec& x, const Inst& in, U32 m) {
    const bool ftz = in.sub != 0;
    const fp::Environment env;
    ternary<T, T, T, C>(x, in, m, [ftz](T a, T b, C c) {
        if constexpr (std::is_floating_point_v<C>) {
            if (ftz) c = fp::flush(c);
        }
        return c >= C{0} ? a : b;
    });
}

template <class T>
Handler slct_for(Ty c) {
    if (c == Ty::s32) return &slct<T, std::int32_t>;
    if (c == Ty::f32) return &slct<T, float>;
    return nullptr;
}

// selp and slct: d = one of a and b, as c says; `sub` is their one modifier bit. The destination
// is resolved after the sources, as for every instruction.
void emit_choice(Emitter& e, Handler h, Ty t, std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint8_t sub) {
    const std::uint32_t d = e.destination(e.operand(0), t);
    Inst& in = e.emit(h);
    in.op[0] = d;
    in.op[1] = a;
    in.op[2] = b;
    in.op[3] = c;
    in.sub = sub;
}

bool decode_selp(Emitter& e) {
    const Ty t = e.suffixes().type();
    Handler h = nullptr;
    switch (type_size(t)) {
        case 2: h = &selp<U16>; break;
        case 4: h = &selp<U32>; break;
        case 8: h = &selp<std::uint64_t>; break;
        default: return false;
    }
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t);
    bool negated = false;
    const std::uint32_t c = e.predicate(e.operand(3), &negated);
    emit_choice(e, h, t, a, b, c, negated ? 1 : 0);
    return true;
}

bool decode_slct(Emitter& e) {
    const Suffixes& s = e.suffixes();
    const Ty t = s.type(0), ct = s.type(1);
    Handler h = nullptr;
    switch (type_size(t)) {
        case 2: h = slct_for<U16>(ct); break;
        case 4: h = slct_for<U32>(ct); break;
        case 8: h = slct_for<std::uint64_t>(ct); break;
        default: break;
    }
    if (h == nullptr) return false;
    const std::uint32_t a = e.source(e.operand(1), t), b = e.source(e.operand(2), t), c = e.source(e.operand(3), ct);
    emit_choice(e, h, t, a, b, c, s.ftz ? 1 : 0);
    return true;
}

}  // namespace

void register_compare_ops(OpTable& t) {
    add_op(t, "setp", decode_setp);
    add_op(t, "set", decode_set);
    add_op(t, "selp", decode_selp);
    add_op(t, "slct", decode_slct);
}

}  // namespace xcuda::cpu

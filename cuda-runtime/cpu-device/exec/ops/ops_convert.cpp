// cvt: conversions between integer types (truncation, extension, .sat), from floats to integers
// (rounded to an integral value, saturated), from integers to floats and between floating-point
// formats (rounded as the modifier says, .ftz, .sat, .satfinite, .relu), and the packing forms
// (f16x2, bf16x2, e4m3x2, e5m2x2). The arithmetic is float_formats.hpp's.
//
// PTX lets cvt name registers wider than its types: a wider source is truncated to the source
// type, and a result is sign-extended (signed integer types) or zero-extended (the others) to a
// wider destination. The 8-bit types always live in wider registers.
#include "exec/decode/decode.hpp"
#include "exec/ops/float_formats.hpp"
#include "exec/ops/float_semantics.hpp"
#include "exec/ops/int_types.hpp"
#include "exec/ops/lanes.hpp"
#include "exec/ops/rounding_mode.hpp"

#include <algorithm>
#include <cstring>

namespace xcuda::cpu {
namespace {

using U64 = std::uint64_t;
using U32 = std::uint32_t;
using U16 = std::uint16_t;

// One side of a scalar conversion: an integer of `bits` bits, or (bits 0) a float format.
struct Side {
    std::uint8_t bits;
    bool is_signed;
    fp::Format format;
    bool is_float() const { return bits == 0; }
};

// What a scalar cvt does, kept in Inst::imm.
struct Conversion {
    enum Flag : std::uint8_t { integral = 1, ftz = 2, sat = 4, satfinite = 8, relu = 16 };
    Side from, to;
    fp::Round round;
    std::uint8_t flags;  // Flag bits; integral: .rni .rzi .rmi .rpi between floats
    bool has(Flag f) const { return (flags & f) != 0; }
};
static_assert(sizeof(Conversion) <= sizeof(std::int64_t), "a Conversion must fit in Inst::imm");

std::int64_t pack(const Conversion& c) {
    std::int64_t v = 0;
    std::memcpy(&v, &c, sizeof c);
    return v;
}
Conversion unpack(const Inst& in) {
    Conversion c;
    std::memcpy(&c, &in.imm, sizeof c);
    return c;
}

// The integer a source register holds, as its type reads it: sign- or zero-extended to 64 bits.
U64 extend(U64 v, unsigned bits, bool is_signed) {
    if (bits >= 64) return v;
    const unsigned unused = 64 - bits;
    if (is_signed) return static_cast<U64>(static_cast<std::int64_t>(v << unused) >> unused);
    return v & ((U64{1} << bits) - 1);
}

// --- the four kinds of scalar conversion, on the source's bits, giving the destination's bits
// already extended for a wider register.

U64 integer_to_integer(U64 a, const Conversion& c) {
    const U64 v = extend(a, c.from.bits, c.from.is_signed);
    if (!c.has(Conversion::sat)) return extend(v, c.to.bits, c.to.is_signed);
    // Saturation: the source value (as a 65-bit quantity) clamped to the destination's range.
    const int128 value = c.from.is_signed ? int128{static_cast<std::int64_t>(v)} : int128{v};
    const int128 max = c.to.is_signed ? (int128{1} << (c.to.bits - 1)) - 1 : (int128{1} << c.to.bits) - 1;
    const int128 min = c.to.is_signed ? -(int128{1} << (c.to.bits - 1)) : int128{0};
    return extend(static_cast<U64>(std::clamp(value, min, max)), c.to.bits, c.to.is_signed);
}

double float_value(U64 a, const Conversion& c) {
    if (c.has(Conversion::ftz) && c.from.format == fp::Format::f32 && fp::is_subnormal(a, fp::Format::f32)) {
        return 0.0;
    }
    return fp::to_double(a, c.from.format);
}

U64 float_to_integer(U64 a, const Conversion& c) {
    return extend(fp::to_integer(float_value(a, c), c.round, c.to.bits, c.to.is_signed), c.to.bits, c.to.is_signed);
}

// A float result: .ftz (f32), .sat (clamped to [+0.0, 1.0], NaN to +0.0), .relu.
U64 float_result(U64 r, const Conversion& c) {
    const fp::Format f = c.to.format;
    if (c.has(Conversion::ftz) && f == fp::Format::f32 && fp::is_subnormal(r, f)) r &= 0x80000000u;
    const bool sat = c.has(Conversion::sat);
    if (!sat && !c.has(Conversion::relu)) return r;
    if (fp::is_nan(r, f)) return sat ? 0 : r;
    const double v = fp::to_double(r, f);
    if (!(v > 0)) return 0;  // -0.0 included: the range starts at +0.0
    if (sat && v > 1) return fp::from_double(1.0, f, fp::Round::nearest);
    return r;
}

U64 integer_to_float(U64 a, const Conversion& c) {
    const U64 v = extend(a, c.from.bits, c.from.is_signed);
    const bool negative = c.from.is_signed && static_cast<std::int64_t>(v) < 0;
    return float_result(fp::from_integer(negative, negative ? U64{0} - v : v, c.to.format, c.round), c);
}

U64 float_to_float(U64 a, const Conversion& c) {
    if (c.has(Conversion::ftz) && c.from.format == fp::Format::f32 && fp::is_subnormal(a, fp::Format::f32)) {
        a &= 0x80000000u;
    }
    if (c.has(Conversion::integral)) {
        const double v = fp::to_double(a, c.from.format);  // an f64 NaN keeps its payload
        return float_result(fp::from_double(fp::round_integral(v, c.round), c.to.format, fp::Round::nearest), c);
    }
    return float_result(fp::convert(a, c.from.format, c.to.format, c.round, c.has(Conversion::satfinite)), c);
}

using Convert = U64 (*)(U64, const Conversion&);

// cvt d, a with registers of S and D (unsigned types of the registers' sizes).
template <class S, class D, Convert F>
void scalar(Exec& x, const Inst& in, U32 m) {
    const Conversion c = unpack(in);
    const fp::Environment env;
    unary<D, S>(x, in, m, [&c](S a) { return static_cast<D>(F(static_cast<U64>(a), c)); });
}

template <class S, Convert F>
Handler to_register(unsigned bytes) {
    switch (bytes) {
        case 2: return &scalar<S, U16, F>;
        case 4: return &scalar<S, U32, F>;
        case 8: return &scalar<S, U64, F>;
        default: return nullptr;
    }
}
template <Convert F>
Handler scalar_handler(unsigned source_bytes, unsigned destination_bytes) {
    switch (source_bytes) {
        case 2: return to_register<U16, F>(destination_bytes);
        case 4: return to_register<U32, F>(destination_bytes);
        case 8: return to_register<U64, F>(destination_bytes);
        default: return nullptr;
    }
}

// --- packing forms: the first source goes to the high element, the second to the low one.

// cvt.frnd{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b and cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32
// d, a, b: each f32 rounded to the element format. D: the pair's register type.
template <class D>
void pack_f32(Exec& x, const Inst& in, U32 m) {
    const Conversion c = unpack(in);
    const fp::Environment env;
    constexpr unsigned half = 4 * sizeof(D);
    binary<D, float, float>(x, in, m, [&c](float a, float b) {
        const U64 hi = float_to_float(fp::bits_of(a), c), lo = float_to_float(fp::bits_of(b), c);
        return static_cast<D>((hi << half) | lo);
    });
}
// cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a and cvt.rn{.relu}.{f16x2,bf16x2}.{e4m3x2,e5m2x2}
// d, a: element by element, the high one to the high one. S, D: the pairs' register types.
template <class S, class D>
void convert_pair(Exec& x, const Inst& in, U32 m) {
    const Conversion c = unpack(in);
    const fp::Environment env;
    constexpr unsigned in_half = 4 * sizeof(S), out_half = 4 * sizeof(D);
    unary<D, S>(x, in, m, [&c](S a) {
        const U64 hi = float_to_float(static_cast<U64>(a) >> in_half, c);
        const U64 lo = float_to_float(static_cast<U64>(a) & ((U64{1} << in_half) - 1), c);
        return static_cast<D>((hi << out_half) | lo);
    });
}

// --- decoding ---------------------------------------------------------------------------------

bool integral_rounding(Rounding r) {
    return r == Rounding::rni || r == Rounding::rzi || r == Rounding::rmi || r == Rounding::rpi;
}

// The element format of a float type (a pair's element for the x2 types); false for others.
bool format_of(Ty t, fp::Format& f) {
    switch (t) {
        case Ty::f16:
        case Ty::f16x2: f = fp::Format::f16; return true;
        case Ty::bf16:
        case Ty::bf16x2: f = fp::Format::bf16; return true;
        case Ty::tf32: f = fp::Format::tf32; return true;
        case Ty::f32: f = fp::Format::f32; return true;
        case Ty::f64: f = fp::Format::f64; return true;
        case Ty::e4m3:
        case Ty::e4m3x2: f = fp::Format::e4m3; return true;
        case Ty::e5m2:
        case Ty::e5m2x2: f = fp::Format::e5m2; return true;
        default: return false;
    }
}

bool side_of(Ty t, Side& s) {
    if (t == Ty::none || t == Ty::pred || t == Ty::b128) return false;
    s = Side{0, false, fp::Format::f32};
    if (is_float(t)) return format_of(t, s.format);
    s.is_signed = is_signed(t);
    s.bits = static_cast<std::uint8_t>(8 * type_size(t));
    return true;
}

bool is_float_pair(Ty t) { return t == Ty::f16x2 || t == Ty::bf16x2 || t == Ty::e4m3x2 || t == Ty::e5m2x2; }

Ty register_type(unsigned bytes) {
    switch (bytes) {
        case 2: return Ty::b16;
        case 4: return Ty::b32;
        default: return Ty::b64;
    }
}

// The register size an operand of type t occupies: the register's own (it may be wider), else the
// type's (immediates and special registers), at least 16 bits.
unsigned operand_bytes(const Emitter& e, const ptx::Operand& o, Ty t) {
    const unsigned declared = e.register_size(o);
    const unsigned needed = std::max(2u, type_size(t));
    if (declared == 0) return needed;
    if (declared < type_size(t)) {
        e.error("register " + o.name + " is narrower than the ." + type_name(t) + " operand");
    }
    return declared;
}

Conversion conversion_of(const Emitter& e) {
    const Suffixes& s = e.suffixes();
    const auto& words = e.instruction().suffixes;
    const bool satfinite = std::find(words.begin(), words.end(), "satfinite") != words.end();
    Conversion c{};
    c.round = round_of(s.rounding);
    c.flags =
        static_cast<std::uint8_t>((integral_rounding(s.rounding) ? Conversion::integral : 0) |
                                  (s.ftz ? Conversion::ftz : 0) | (s.sat && !satfinite ? Conversion::sat : 0) |
                                  (satfinite ? Conversion::satfinite : 0) | (s.has("relu") ? Conversion::relu : 0));
    return c;
}

bool decode_packing(Emitter& e, Ty d, Ty a, Conversion c) {
    c.to = c.from = Side{0, false, fp::Format::f32};
    if (!format_of(d, c.to.format) || !format_of(a, c.from.format)) return false;
    Handler h = nullptr;
    int sources = 1;
    if (a == Ty::f32 && e.operand_count() == 3) {
        h = type_size(d) == 4 ? &pack_f32<U32> : &pack_f32<U16>;
        sources = 2;
    } else if (is_float_pair(a)) {
        h = type_size(a) == 4 ? (type_size(d) == 2 ? &convert_pair<U32, U16> : &convert_pair<U32, U32>)
                              : (type_size(d) == 4 ? &convert_pair<U16, U32> : &convert_pair<U16, U16>);
    } else {
        return false;
    }
    std::uint32_t ops[3] = {0, 0, 0};
    for (int i = 1; i <= sources; ++i) ops[i] = e.source(e.operand(i), a);
    const std::uint32_t dst = e.destination(e.operand(0), d);
    Inst& in = e.emit(h);
    in.op[0] = dst;
    for (int i = 1; i <= sources; ++i) in.op[i] = ops[i];
    in.imm = pack(c);
    return true;
}

bool decode_cvt(Emitter& e) {
    const Suffixes& s = e.suffixes();
    if (s.rounding == Rounding::rs) return false;  // stochastic rounding: left to the unsupported path
    const Ty d = s.type(0), a = s.type(1);
    Conversion c = conversion_of(e);
    if (is_float_pair(d) || is_float_pair(a)) return decode_packing(e, d, a, c);
    if (!side_of(d, c.to) || !side_of(a, c.from)) return false;
    Handler h = nullptr;
    const unsigned source_bytes = operand_bytes(e, e.operand(1), a);
    const unsigned destination_bytes = operand_bytes(e, e.operand(0), d);
    if (!c.from.is_float() && !c.to.is_float()) {
        h = scalar_handler<integer_to_integer>(source_bytes, destination_bytes);
    } else if (c.from.is_float() && !c.to.is_float()) {
        if (s.rounding == Rounding::none) e.error("a float-to-integer cvt needs .rni, .rzi, .rmi or .rpi");
        h = scalar_handler<float_to_integer>(source_bytes, destination_bytes);
    } else if (!c.from.is_float()) {
        if (s.rounding == Rounding::none) e.error("an integer-to-float cvt needs .rn, .rz, .rm or .rp");
        h = scalar_handler<integer_to_float>(source_bytes, destination_bytes);
    } else {
        h = scalar_handler<float_to_float>(source_bytes, destination_bytes);
    }
    if (h == nullptr) return false;
    // An operand of the type's own size is resolved as that type (a float immediate's bits are
    // then the type's), a wider register by its size.
    const std::uint32_t src = e.source(e.operand(1), type_size(a) == source_bytes ? a : register_type(source_bytes));
    const std::uint32_t dst =
        e.destination(e.operand(0), type_size(d) == destination_bytes ? d : register_type(destination_bytes));
    Inst& in = e.emit(h);
    in.op[0] = dst;
    in.op[1] = src;
    in.imm = pack(c);
    return true;
}

}  // namespace

void register_convert_ops(OpTable& t) { add_op(t, "cvt", decode_cvt); }

}  // namespace xcuda::cpu

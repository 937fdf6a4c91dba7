// Encoding, decoding and rounding of PTX's floating-point formats on integer significands.
#include "exec/ops/float_formats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace xcuda::cpu::fp {
namespace {

// A format's fields, as IEEE 754 lays them out. tf32 is rounded as a 19-bit format and stored
// shifted into the top of an f32; e4m3 has no infinity and one NaN encoding (S.1111.111).
struct Layout {
    unsigned mantissa;  // stored significand bits
    unsigned exponent;  // exponent bits
    int bias;
    bool has_inf;
    std::uint64_t max_finite;  // bits (unshifted, unsigned) of the largest finite value
    std::uint64_t nan;         // the canonical NaN, as stored
    unsigned shift;            // where the bits go in the stored value (tf32: 13)
};

const Layout& layout(Format f) {
    static constexpr Layout f16{10, 5, 15, true, 0x7BFFu, canonical_nan_f16, 0};
    static constexpr Layout bf16{7, 8, 127, true, 0x7F7Fu, canonical_nan_bf16, 0};
    static constexpr Layout tf32{10, 8, 127, true, 0x3FBFFu, canonical_nan_f32, 13};
    static constexpr Layout f32{23, 8, 127, true, 0x7F7FFFFFu, canonical_nan_f32, 0};
    static constexpr Layout f64{52, 11, 1023, true, 0x7FEFFFFFFFFFFFFFull, default_nan_f64, 0};
    static constexpr Layout e4m3{3, 4, 7, false, 0x7Eu, 0x7Fu, 0};
    static constexpr Layout e5m2{2, 5, 15, true, 0x7Bu, 0x7Fu, 0};
    switch (f) {
        case Format::f16: return f16;
        case Format::bf16: return bf16;
        case Format::tf32: return tf32;
        case Format::f32: return f32;
        case Format::f64: return f64;
        case Format::e4m3: return e4m3;
        case Format::e5m2: return e5m2;
    }
    return f32;
}

// The exponent and significand fields of `bits` (a tf32 operand is read as the f32 it is stored in).
struct Fields {
    const Layout& layout;
    std::uint64_t exponent, significand, exponent_max, significand_max;
};
Fields fields(std::uint64_t bits, Format f) {
    const Layout& l = layout(f == Format::tf32 ? Format::f32 : f);
    const std::uint64_t exponent_max = (std::uint64_t{1} << l.exponent) - 1;
    const std::uint64_t significand_max = (std::uint64_t{1} << l.mantissa) - 1;
    return {l, (bits >> l.mantissa) & exponent_max, bits & significand_max, exponent_max, significand_max};
}

// A value taken apart: sign * magnitude * 2^exponent.
struct Parts {
    enum class Kind : std::uint8_t { zero, finite, infinite, nan } kind = Kind::zero;
    bool negative = false;
    std::uint64_t magnitude = 0;
    int exponent = 0;
    std::uint64_t payload = 0;  // a NaN's significand field
};

Parts decompose(std::uint64_t bits, Format f) {
    const Fields x = fields(bits, f);
    const Layout& l = x.layout;
    Parts p;
    p.negative = ((bits >> (l.mantissa + l.exponent)) & 1u) != 0;
    if (x.exponent == x.exponent_max && (l.has_inf || x.significand == x.significand_max)) {
        p.kind = (x.significand == 0 && l.has_inf) ? Parts::Kind::infinite : Parts::Kind::nan;
        p.payload = x.significand;
        return p;
    }
    if (x.exponent == 0) {
        if (x.significand == 0) return p;
        p.kind = Parts::Kind::finite;
        p.magnitude = x.significand;
        p.exponent = 1 - l.bias - static_cast<int>(l.mantissa);
        return p;
    }
    p.kind = Parts::Kind::finite;
    p.magnitude = x.significand | (std::uint64_t{1} << l.mantissa);
    p.exponent = static_cast<int>(x.exponent) - l.bias - static_cast<int>(l.mantissa);
    return p;
}

std::uint64_t sign_bit(const Layout& l, bool negative) {
    return negative ? (std::uint64_t{1} << (l.mantissa + l.exponent)) : 0;
}

std::uint64_t stored(const Layout& l, std::uint64_t bits) { return bits << l.shift; }

// 2^e for e in double's normal range, built from its bits.
double pow2(int e) { return f64_of(static_cast<std::uint64_t>(e + 1023) << 52); }

// Past the largest finite value: infinity when rounding goes away from zero, the largest
// finite value otherwise or under .satfinite; e4m3's "infinity" is its NaN.
std::uint64_t overflow(const Layout& l, bool negative, Round r, bool satfinite) {
    const bool away = r == Round::nearest || r == Round::nearest_away || (r == Round::up && !negative) ||
                      (r == Round::down && negative);
    if (satfinite || !away) return stored(l, l.max_finite | sign_bit(l, negative));
    if (!l.has_inf) return l.nan;
    return stored(l, (((std::uint64_t{1} << l.exponent) - 1) << l.mantissa) | sign_bit(l, negative));
}

// sign * magnitude * 2^exponent (magnitude != 0) rounded to the format.
std::uint64_t round_to(const Layout& l, bool negative, std::uint64_t magnitude, int exponent, Round r, bool satfinite) {
    const int top = 63 - __builtin_clzll(magnitude);
    const int leading = exponent + top;  // the unbiased exponent of the leading bit
    const int emin = 1 - l.bias;
    const int quantum = std::max(leading, emin) - static_cast<int>(l.mantissa);  // exponent of one ulp
    const int drop = quantum - exponent;
    std::uint64_t keep, rest, half;
    if (drop <= 0) {
        keep = magnitude << -drop;
        rest = 0;
        half = 1;
    } else if (drop < 64) {
        keep = magnitude >> drop;
        rest = magnitude & ((std::uint64_t{1} << drop) - 1);
        half = std::uint64_t{1} << (drop - 1);
    } else if (drop == 64) {
        keep = 0;
        rest = magnitude;
        half = std::uint64_t{1} << 63;
    } else {  // below half an ulp, but not zero
        keep = 0;
        rest = 1;
        half = 2;
    }
    bool up = false;
    switch (r) {
        case Round::nearest: up = rest > half || (rest == half && (keep & 1u) != 0); break;
        case Round::nearest_away: up = rest >= half; break;
        case Round::zero: break;
        case Round::up: up = rest != 0 && !negative; break;
        case Round::down: up = rest != 0 && negative; break;
    }
    keep += up ? 1u : 0u;
    if (keep == 0) return stored(l, sign_bit(l, negative));
    // A subnormal's bits are its ulp count; a normal one's exponent field adds to the implicit
    // bit, so rounding up into the next binade (or from subnormal to normal) carries by itself.
    const std::uint64_t bits =
        (static_cast<std::uint64_t>(quantum + static_cast<int>(l.mantissa) + l.bias - 1) << l.mantissa) + keep;
    if (bits > l.max_finite) return overflow(l, negative, r, satfinite);
    return stored(l, bits | sign_bit(l, negative));
}

std::uint64_t convert_parts(const Parts& p, Format from, Format to, Round r, bool satfinite) {
    const Layout& l = layout(to);
    switch (p.kind) {
        case Parts::Kind::nan:
            if (to == Format::f64) {
                const unsigned widen = 52 - layout(from == Format::tf32 ? Format::f32 : from).mantissa;
                return sign_bit(l, p.negative) | 0x7FF8000000000000ull | (p.payload << widen);
            }
            return l.nan;
        case Parts::Kind::infinite:
            if (satfinite) return stored(l, l.max_finite | sign_bit(l, p.negative));
            return overflow(l, p.negative, Round::nearest, false);
        case Parts::Kind::zero: return stored(l, sign_bit(l, p.negative));
        case Parts::Kind::finite: break;
    }
    return round_to(l, p.negative, p.magnitude, p.exponent, r, satfinite);
}

bool flushes(const HalfMode& m) { return m.ftz && m.format == Format::f16; }

// An f16 operand's lowest bit is at least 2^-24 and a sum short of overflow is below 2^16, so an
// f16 sum (of operands or of a product and an operand) fits a double's 53 bits, except a product
// below 2^-24 beside a much larger addend, whose rounding in double cannot reach an f16
// midpoint. bf16 has f32's exponent range: its sums are rounded to odd first.
double sum(double x, double y, Format f) { return f == Format::f16 ? x + y : sum_to_odd(x, y); }

// A result rounded to the format, then .ftz, .relu and .sat. The bits of positive values order as
// their values do, so the clamps compare bits.
std::uint16_t half_result(double v, const HalfMode& m) {
    if (std::isnan(v)) return m.sat ? 0 : static_cast<std::uint16_t>(canonical_nan(m.format));
    auto bits = static_cast<std::uint16_t>(from_double(v, m.format, Round::nearest));
    const bool f16 = m.format == Format::f16;
    if (flushes(m) && (bits & 0x7FFFu) < 0x0400u) bits &= 0x8000u;
    if ((m.relu || m.sat) && (bits & 0x8000u) != 0) return 0;  // negative, -0.0 included
    const std::uint16_t one = f16 ? 0x3C00u : 0x3F80u;
    if (m.sat && bits > one) return one;
    return bits;
}

}  // namespace

std::uint64_t canonical_nan(Format f) noexcept { return layout(f).nan; }

bool is_nan(std::uint64_t bits, Format f) noexcept {
    const Fields x = fields(bits, f);
    return x.exponent == x.exponent_max && (x.layout.has_inf ? x.significand != 0 : x.significand == x.significand_max);
}

bool is_subnormal(std::uint64_t bits, Format f) noexcept {
    const Fields x = fields(bits, f);
    return x.exponent == 0 && x.significand != 0;
}

double to_double(std::uint64_t bits, Format f) noexcept {
    if (f == Format::f64) return f64_of(bits);
    const Parts p = decompose(bits, f);
    double v = 0;
    switch (p.kind) {
        case Parts::Kind::nan: return std::numeric_limits<double>::quiet_NaN();
        case Parts::Kind::infinite: v = std::numeric_limits<double>::infinity(); break;
        case Parts::Kind::zero: v = 0; break;
        // Exact: a significand of at most 24 bits times a power of two in double's normal range.
        case Parts::Kind::finite: v = static_cast<double>(p.magnitude) * pow2(p.exponent); break;
    }
    return p.negative ? -v : v;
}

std::uint64_t convert(std::uint64_t bits, Format from, Format to, Round r, bool satfinite) noexcept {
    return convert_parts(decompose(bits, from), from, to, r, satfinite);
}

std::uint64_t from_integer(bool negative, std::uint64_t magnitude, Format f, Round r) noexcept {
    if (magnitude == 0) return 0;
    return round_to(layout(f), negative, magnitude, 0, r, false);
}

double round_integral(double v, Round r) noexcept {
    if (!(std::fabs(v) < 4503599627370496.0)) return v;  // NaN, infinities, and |v| >= 2^52: integral
    double i = v;
    switch (r) {
        case Round::zero: i = std::trunc(v); break;
        case Round::down: i = std::floor(v); break;
        case Round::up: i = std::ceil(v); break;
        case Round::nearest_away: i = std::round(v); break;
        case Round::nearest: {
            i = std::floor(v);
            const double fraction = v - i;  // exact: |v| < 2^52
            if (fraction > 0.5 || (fraction == 0.5 && std::fmod(i, 2.0) != 0.0)) i += 1.0;
            break;
        }
    }
    return i == 0 ? std::copysign(0.0, v) : i;
}

std::uint64_t to_integer(double v, Round r, unsigned bits, bool is_signed) noexcept {
    if (std::isnan(v)) return 0;
    const double i = round_integral(v, r);
    if (is_signed) {
        const double limit = pow2(static_cast<int>(bits) - 1);
        const std::int64_t max = static_cast<std::int64_t>((std::uint64_t{1} << (bits - 1)) - 1);
        if (i >= limit) return static_cast<std::uint64_t>(max);
        if (i < -limit) return static_cast<std::uint64_t>(-max - 1);
        return static_cast<std::uint64_t>(static_cast<std::int64_t>(i));
    }
    const double limit = pow2(static_cast<int>(bits));
    if (i >= limit) return bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    if (i < 0) return 0;
    return static_cast<std::uint64_t>(i);
}

double half_value(std::uint16_t a, HalfMode m) noexcept {
    if (flushes(m) && (a & 0x7C00u) == 0) a &= 0x8000u;
    return to_double(a, m.format);
}

std::uint16_t half_add(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept {
    return half_result(sum(half_value(a, m), half_value(b, m), m.format), m);
}
std::uint16_t half_sub(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept {
    return half_result(sum(half_value(a, m), -half_value(b, m), m.format), m);
}
std::uint16_t half_mul(std::uint16_t a, std::uint16_t b, HalfMode m) noexcept {
    return half_result(half_value(a, m) * half_value(b, m), m);  // exact: 22 significand bits at most
}
std::uint16_t half_fma(std::uint16_t a, std::uint16_t b, std::uint16_t c, HalfMode m) noexcept {
    return half_result(sum(half_value(a, m) * half_value(b, m), half_value(c, m), m.format), m);
}

std::uint16_t half_min_max(std::uint16_t a, std::uint16_t b, bool is_max, HalfMode m, MinMax f) noexcept {
    f.ftz = false;  // flushed by half_value
    const double d = min_max(half_value(a, m), half_value(b, m), is_max, f);
    if (std::isnan(d)) return static_cast<std::uint16_t>(canonical_nan(m.format));
    return static_cast<std::uint16_t>(from_double(d, m.format, Round::nearest));  // exact: an operand
}

std::uint16_t half_neg(std::uint16_t a, HalfMode m) noexcept {
    if (is_nan(a, m.format)) return static_cast<std::uint16_t>(canonical_nan(m.format));
    if (flushes(m) && is_subnormal(a, m.format)) a &= 0x8000u;
    return static_cast<std::uint16_t>(a ^ 0x8000u);
}
std::uint16_t half_abs(std::uint16_t a, HalfMode m) noexcept {
    if (is_nan(a, m.format)) return static_cast<std::uint16_t>(canonical_nan(m.format));
    if (flushes(m) && is_subnormal(a, m.format)) return 0;
    return static_cast<std::uint16_t>(a & 0x7FFFu);
}

std::uint16_t half_ex2_approx(std::uint16_t a, HalfMode m) noexcept {
    const bool ftz = m.ftz;  // bf16's ex2 takes .ftz too
    const double x = (ftz && is_subnormal(a, m.format)) ? 0.0 : to_double(a, m.format);
    std::uint16_t r = static_cast<std::uint16_t>(from_double(std::exp2(x), m.format, Round::nearest));
    if (is_nan(r, m.format)) return static_cast<std::uint16_t>(canonical_nan(m.format));
    if (ftz && is_subnormal(r, m.format)) r &= 0x8000u;
    return r;
}
std::uint16_t half_tanh_approx(std::uint16_t a, HalfMode m) noexcept {
    const std::uint16_t r =
        static_cast<std::uint16_t>(from_double(std::tanh(to_double(a, m.format)), m.format, Round::nearest));
    return is_nan(r, m.format) ? static_cast<std::uint16_t>(canonical_nan(m.format)) : r;
}

}  // namespace xcuda::cpu::fp

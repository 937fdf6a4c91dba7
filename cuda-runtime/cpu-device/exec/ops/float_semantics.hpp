// PTX's floating-point semantics for .f32 and .f64, as pure functions of their operands: rounding
// modifiers, .ftz, .sat, the approximate instructions, min/max, comparisons, classes. The
// instruction handlers (ops_float.cpp, ops_compare.cpp) apply them lane by lane; nothing here
// knows about warps or frames. Narrower formats (f16, bf16, tf32, fp8) are in float_formats.hpp.
//
// NaN results (what NVIDIA GPUs produce; the PTX ISA leaves most of them unspecified):
// - f32: every operation that returns a NaN returns the canonical 0x7FFFFFFF ("The result of a
//   single-precision floating-point operation involving one or more input NaNs is the quiet NaN
//   of bit pattern 0x7fffffff": CUDA C++ Programming Guide, Floating-Point Standard). abs and neg
//   included: the PTX ISA (abs, neg) says NaN inputs give an unspecified NaN.
// - f64: an input NaN propagates, quieted (the first NaN operand, in operand order); a NaN created
//   from numbers (inf - inf, 0 * inf, sqrt(-1)) is 0xFFF8000000000000, CUDA's CUDART_NAN. abs and
//   neg pass a NaN through unchanged (the same guide: "Double-precision floating-point absolute
//   value and negation are not compliant with IEEE-754 with respect to NaNs").
//
// Rounding: the host's own IEEE arithmetic, with the host's floating-point environment set
// around each operation to the instruction's rounding mode, no flush-to-zero, exceptions masked
// (float_semantics.cpp is compiled with -frounding-math so the compiler keeps the operation
// inside). The inline .rn forms below (add_rn ...) leave the environment alone: the handlers
// call them inside an Environment, once per instruction rather than once per lane.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace xcuda::cpu::fp {

// PTX's rounding modifiers: .rn .rz .rm .rp, and .rna (cvt to tf32). The integer rounding
// modifiers .rni .rzi .rmi .rpi of cvt round the same ways, to an integral value.
enum class Round : std::uint8_t { nearest, zero, down, up, nearest_away };

// The calling thread's floating-point environment for the duration of one instruction: IEEE
// default (no flush-to-zero, no denormals-are-zero, every exception masked, so nothing raises
// SIGFPE) with rounding `r`, whatever the host code left set; the previous state comes back on
// destruction. Cheap when the state is already right (one read of the control register).
class Environment {
public:
    explicit Environment(Round r = Round::nearest) noexcept;
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;

private:
    unsigned saved_;
    bool changed_;
};

inline std::uint32_t bits_of(float f) noexcept {
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline std::uint64_t bits_of(double d) noexcept {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
inline float f32_of(std::uint32_t b) noexcept {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}
inline double f64_of(std::uint64_t b) noexcept {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

inline constexpr std::uint32_t canonical_nan_f32 = 0x7FFFFFFFu;
inline constexpr std::uint64_t default_nan_f64 = 0xFFF8000000000000ull;

// The modifiers of an .f32 instruction (.f64 ones take only a rounding mode).
struct Mode {
    Round round = Round::nearest;
    bool ftz = false;  // subnormal inputs and results become zeros of the same sign
    bool sat = false;  // the result is clamped to [+0.0, 1.0]; NaN gives +0.0
};

// --- f32 building blocks (inline: the handlers' loops over lanes vectorise them) ------------

inline bool is_nan(float a) noexcept { return (bits_of(a) & 0x7FFFFFFFu) > 0x7F800000u; }
inline bool is_nan(double a) noexcept { return (bits_of(a) & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull; }

inline float flush(float a) noexcept {
    const std::uint32_t b = bits_of(a);
    return (b & 0x7F800000u) == 0 ? f32_of(b & 0x80000000u) : a;
}
// f64 has no .ftz; rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64 flush all the same.
inline double flush(double a) noexcept {
    const std::uint64_t b = bits_of(a);
    return (b & 0x7FF0000000000000ull) == 0 ? f64_of(b & 0x8000000000000000ull) : a;
}
inline float canonical(float r) noexcept { return is_nan(r) ? f32_of(canonical_nan_f32) : r; }
inline float saturate(float r) noexcept {
    if (!(r > 0.0f)) return 0.0f;  // NaN, -0.0 and negatives
    return r > 1.0f ? 1.0f : r;
}
inline double saturate(double r) noexcept {
    if (!(r > 0.0)) return 0.0;
    return r > 1.0 ? 1.0 : r;
}

// A result of an f32 operation: flushed under .ftz, canonical NaN, then saturated under .sat.
inline float finish(float r, bool ftz, bool sat) noexcept {
    if (ftz) r = flush(r);
    r = canonical(r);
    return sat ? saturate(r) : r;
}

// The .rn forms without .sat; Ftz: the .ftz form.
template <bool Ftz>
inline float in_f32(float a) noexcept {
    return Ftz ? flush(a) : a;
}
template <bool Ftz>
inline float add_rn(float a, float b) noexcept {
    return finish(in_f32<Ftz>(a) + in_f32<Ftz>(b), Ftz, false);
}
template <bool Ftz>
inline float sub_rn(float a, float b) noexcept {
    return finish(in_f32<Ftz>(a) - in_f32<Ftz>(b), Ftz, false);
}
template <bool Ftz>
inline float mul_rn(float a, float b) noexcept {
    return finish(in_f32<Ftz>(a) * in_f32<Ftz>(b), Ftz, false);
}
template <bool Ftz>
inline float fma_rn(float a, float b, float c) noexcept {
    return finish(std::fma(in_f32<Ftz>(a), in_f32<Ftz>(b), in_f32<Ftz>(c)), Ftz, false);
}
template <bool Ftz>
inline float div_rn(float a, float b) noexcept {
    return finish(in_f32<Ftz>(a) / in_f32<Ftz>(b), Ftz, false);
}
template <bool Ftz>
inline float rcp_rn(float a) noexcept {
    return finish(1.0f / in_f32<Ftz>(a), Ftz, false);
}
template <bool Ftz>
inline float sqrt_rn(float a) noexcept {
    return finish(std::sqrt(in_f32<Ftz>(a)), Ftz, false);
}

// Any combination of modifiers.
float add(float a, float b, Mode m) noexcept;
float sub(float a, float b, Mode m) noexcept;
float mul(float a, float b, Mode m) noexcept;
float fma(float a, float b, float c, Mode m) noexcept;
// div.rn/.rz/.rm/.rp (IEEE). div.approx and div.full: the PTX ISA bounds their error (2 ulp);
// the correctly rounded quotient is within them, so they are div.rn with their .ftz.
float div(float a, float b, Mode m) noexcept;
float rcp(float a, Mode m) noexcept;   // rcp.rnd and rcp.approx (as .rn)
float sqrt(float a, Mode m) noexcept;  // sqrt.rnd and sqrt.approx (as .rn)

// --- f64 ------------------------------------------------------------------------------------

inline double quiet(double a) noexcept { return f64_of(bits_of(a) | 0x0008000000000000ull); }
// The NaN an f64 operation returns: its first NaN operand, quieted, else the default NaN.
inline double nan_result(double a) noexcept { return is_nan(a) ? quiet(a) : f64_of(default_nan_f64); }
inline double nan_result(double a, double b) noexcept { return is_nan(a) ? quiet(a) : nan_result(b); }
inline double nan_result(double a, double b, double c) noexcept { return is_nan(a) ? quiet(a) : nan_result(b, c); }

inline double add_rn(double a, double b) noexcept {
    const double r = a + b;
    return is_nan(r) ? nan_result(a, b) : r;
}
inline double sub_rn(double a, double b) noexcept {
    const double r = a - b;
    return is_nan(r) ? nan_result(a, b) : r;
}
inline double mul_rn(double a, double b) noexcept {
    const double r = a * b;
    return is_nan(r) ? nan_result(a, b) : r;
}
inline double fma_rn(double a, double b, double c) noexcept {
    const double r = std::fma(a, b, c);
    return is_nan(r) ? nan_result(a, b, c) : r;
}
inline double div_rn(double a, double b) noexcept {
    const double r = a / b;
    return is_nan(r) ? nan_result(a, b) : r;
}
inline double rcp_rn(double a) noexcept {
    const double r = 1.0 / a;
    return is_nan(r) ? nan_result(a) : r;
}
inline double sqrt_rn(double a) noexcept {
    const double r = std::sqrt(a);
    return is_nan(r) ? nan_result(a) : r;
}

double add(double a, double b, Round r) noexcept;
double sub(double a, double b, Round r) noexcept;
double mul(double a, double b, Round r) noexcept;
double fma(double a, double b, double c, Round r) noexcept;
double div(double a, double b, Round r) noexcept;
double rcp(double a, Round r) noexcept;
double sqrt(double a, Round r) noexcept;
// x + y rounded to double with round-to-odd (the truncation, its last bit set when inexact):
// rounding that once more to a format of at most 51 significand bits gives the correctly
// rounded x + y, in any rounding mode (the f16/bf16 arithmetic of float_formats.hpp).
double sum_to_odd(double x, double y) noexcept;
// rcp.approx.ftz.f64: the PTX ISA calls it a gross approximation; this is the correctly rounded
// reciprocal of the flushed input, flushed.
double rcp_approx_ftz(double a) noexcept;

// --- approximate functions: computed in double, rounded to nearest (within the PTX ISA's
// stated bounds, which allow several ulp). `ftz`: the .ftz form.

float rsqrt_approx(float a, bool ftz) noexcept;
double rsqrt_approx(double a, bool ftz) noexcept;
float ex2_approx(float a, bool ftz) noexcept;
float lg2_approx(float a, bool ftz) noexcept;
float sin_approx(float a, bool ftz) noexcept;
float cos_approx(float a, bool ftz) noexcept;
float tanh_approx(float a) noexcept;

// --- sign operations --------------------------------------------------------------------------

template <bool Ftz>
inline float abs_f32(float a) noexcept {
    return canonical(f32_of(bits_of(in_f32<Ftz>(a)) & 0x7FFFFFFFu));
}
template <bool Ftz>
inline float neg_f32(float a) noexcept {
    return canonical(f32_of(bits_of(in_f32<Ftz>(a)) ^ 0x80000000u));
}
inline double abs_f64(double a) noexcept { return is_nan(a) ? a : f64_of(bits_of(a) & 0x7FFFFFFFFFFFFFFFull); }
inline double neg_f64(double a) noexcept { return is_nan(a) ? a : f64_of(bits_of(a) ^ 0x8000000000000000ull); }

// copysign.type d, a, b: b with the sign of a (a bit operation: NaNs keep their payload).
inline float copysign_of(float a, float b) noexcept {
    return f32_of((bits_of(b) & 0x7FFFFFFFu) | (bits_of(a) & 0x80000000u));
}
inline double copysign_of(double a, double b) noexcept {
    return f64_of((bits_of(b) & 0x7FFFFFFFFFFFFFFFull) | (bits_of(a) & 0x8000000000000000ull));
}

// --- min / max ------------------------------------------------------------------------------

struct MinMax {
    bool ftz = false;          // .ftz (f32)
    bool nan = false;          // .NaN: a NaN operand gives the canonical NaN
    bool xorsign_abs = false;  // .xorsign.abs: compare magnitudes, the result's sign is a's ^ b's
};

template <class F>
F canonical_nan_of() noexcept {
    if constexpr (std::is_same_v<F, float>) return f32_of(canonical_nan_f32);
    return f64_of(default_nan_f64);
}

// PTX's min/max: a NaN operand is ignored unless both are NaN (then the canonical NaN) or .NaN
// is given; -0.0 is less than +0.0.
template <class F>
F min_max(F a, F b, bool is_max, MinMax f) noexcept {
    if (f.ftz) {
        a = flush(a);
        b = flush(b);
    }
    bool negative = false;
    if (f.xorsign_abs) {
        negative = std::signbit(a) != std::signbit(b);
        a = std::fabs(a);
        b = std::fabs(b);
    }
    F d;
    const bool na = is_nan(a), nb = is_nan(b);
    if ((na && nb) || (f.nan && (na || nb))) return canonical_nan_of<F>();
    if (na) {
        d = b;
    } else if (nb) {
        d = a;
    } else if (a == b) {  // equal values differ at most in the sign of a zero
        d = (std::signbit(a) == is_max) ? b : a;
    } else {
        d = ((a < b) != is_max) ? a : b;
    }
    return f.xorsign_abs ? std::copysign(d, negative ? F(-1) : F(1)) : d;
}

// --- comparisons and classes ----------------------------------------------------------------

enum class Compare : std::uint8_t { eq, ne, lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan };

// setp/set's float comparisons: the ordered ones are false when either operand is NaN (ne
// included), the unordered ones (..u) true; num: neither is NaN; nan: either is.
template <Compare C, class F>
inline bool compare(F a, F b) noexcept {
    const bool unordered = a != a || b != b;
    switch (C) {
        case Compare::eq: return a == b;
        case Compare::ne: return !unordered && a != b;
        case Compare::lt: return a < b;
        case Compare::le: return a <= b;
        case Compare::gt: return a > b;
        case Compare::ge: return a >= b;
        case Compare::equ: return unordered || a == b;
        case Compare::neu: return a != b;
        case Compare::ltu: return unordered || a < b;
        case Compare::leu: return unordered || a <= b;
        case Compare::gtu: return unordered || a > b;
        case Compare::geu: return unordered || a >= b;
        case Compare::num: return !unordered;
        case Compare::nan: return unordered;
    }
    return false;
}
// The same with the comparison chosen at run time (tests, decode-time folding).
template <class F>
bool compare(Compare c, F a, F b) noexcept {
    switch (c) {
        case Compare::eq: return compare<Compare::eq>(a, b);
        case Compare::ne: return compare<Compare::ne>(a, b);
        case Compare::lt: return compare<Compare::lt>(a, b);
        case Compare::le: return compare<Compare::le>(a, b);
        case Compare::gt: return compare<Compare::gt>(a, b);
        case Compare::ge: return compare<Compare::ge>(a, b);
        case Compare::equ: return compare<Compare::equ>(a, b);
        case Compare::neu: return compare<Compare::neu>(a, b);
        case Compare::ltu: return compare<Compare::ltu>(a, b);
        case Compare::leu: return compare<Compare::leu>(a, b);
        case Compare::gtu: return compare<Compare::gtu>(a, b);
        case Compare::geu: return compare<Compare::geu>(a, b);
        case Compare::num: return compare<Compare::num>(a, b);
        case Compare::nan: return compare<Compare::nan>(a, b);
    }
    return false;
}

// testp's classes.
enum class Class : std::uint8_t { finite, infinite, number, notanumber, normal, subnormal };

template <class F>
bool test(Class c, F a) noexcept {
    using U = std::conditional_t<std::is_same_v<F, float>, std::uint32_t, std::uint64_t>;
    constexpr U exponent = std::is_same_v<F, float> ? U(0x7F800000u) : U(0x7FF0000000000000ull);
    const U b = static_cast<U>(bits_of(a)) & static_cast<U>(~(U(1) << (8 * sizeof(U) - 1)));
    const bool nan = b > exponent, inf = b == exponent;
    switch (c) {
        case Class::finite: return b < exponent;
        case Class::infinite: return inf;
        case Class::number: return !nan;
        case Class::notanumber: return nan;
        case Class::normal: return b < exponent && (b & exponent) != 0;
        case Class::subnormal: return b != 0 && (b & exponent) == 0;
    }
    return false;
}

}  // namespace xcuda::cpu::fp

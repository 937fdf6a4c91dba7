// The parts of float_semantics.hpp that change or depend on the host's floating-point environment.
// This file is compiled with -frounding-math (exec/CMakeLists.txt): the compiler may neither
// fold nor move an operation across a change of the rounding mode.
#include "exec/ops/float_semantics.hpp"

#include <cfenv>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace xcuda::cpu::fp {
namespace {

#if defined(__SSE2__)
// MXCSR: every exception masked, round to nearest, neither flush-to-zero nor denormals-are-zero.
constexpr unsigned mxcsr_ieee = 0x1F80u;
constexpr unsigned mxcsr_status = 0x3Fu;  // the sticky exception flags: not part of the state we set

unsigned mxcsr_rounding(Round r) {
    switch (r) {
        case Round::zero: return 0x6000u;
        case Round::down: return 0x2000u;
        case Round::up: return 0x4000u;
        default: return 0u;
    }
}
#else
int fenv_rounding(Round r) {
    switch (r) {
        case Round::zero: return FE_TOWARDZERO;
        case Round::down: return FE_DOWNWARD;
        case Round::up: return FE_UPWARD;
        default: return FE_TONEAREST;
    }
}
#endif

// Keeps the compiler from computing `v` before the rounding mode is set, or after it is restored.
template <class T>
inline void opaque(T& v) {
    asm volatile("" : "+m"(v));
}

// op(v...) computed in rounding mode r (.rna has no IEEE arithmetic mode: only cvt takes it,
// and it is not computed here), whatever environment the caller is in.
template <class Op, class... T>
auto rounded(Round r, Op op, T... v) {
    const Environment env(r == Round::nearest_away ? Round::nearest : r);
    (opaque(v), ...);
    auto result = op(v...);
    opaque(result);
    return result;
}

float flush_if(float a, bool ftz) { return ftz ? flush(a) : a; }

}  // namespace

#if defined(__SSE2__)
Environment::Environment(Round r) noexcept : saved_(_mm_getcsr()), changed_(false) {
    const unsigned want = mxcsr_ieee | mxcsr_rounding(r);
    if ((saved_ & ~mxcsr_status) != want) {
        _mm_setcsr(want);
        changed_ = true;
    }
}
Environment::~Environment() {
    if (changed_) _mm_setcsr(saved_);
}
#else
Environment::Environment(Round r) noexcept : saved_(static_cast<unsigned>(std::fegetround())), changed_(false) {
    const int want = fenv_rounding(r);
    if (static_cast<int>(saved_) != want) {
        std::fesetround(want);
        changed_ = true;
    }
}
Environment::~Environment() {
    if (changed_) std::fesetround(static_cast<int>(saved_));
}
#endif

// --- f32 --------------------------------------------------------------------------------------

float add(float a, float b, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    b = flush_if(b, m.ftz);
    return finish(rounded(
                      m.round, [](float x, float y) { return x + y; }, a, b),
                  m.ftz, m.sat);
}
float sub(float a, float b, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    b = flush_if(b, m.ftz);
    return finish(rounded(
                      m.round, [](float x, float y) { return x - y; }, a, b),
                  m.ftz, m.sat);
}
float mul(float a, float b, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    b = flush_if(b, m.ftz);
    return finish(rounded(
                      m.round, [](float x, float y) { return x * y; }, a, b),
                  m.ftz, m.sat);
}
float fma(float a, float b, float c, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    b = flush_if(b, m.ftz);
    c = flush_if(c, m.ftz);
    return finish(rounded(
                      m.round, [](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c),
                  m.ftz, m.sat);
}
float div(float a, float b, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    b = flush_if(b, m.ftz);
    return finish(rounded(
                      m.round, [](float x, float y) { return x / y; }, a, b),
                  m.ftz, m.sat);
}
float rcp(float a, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    return finish(rounded(
                      m.round, [](float x) { return 1.0f / x; }, a),
                  m.ftz, m.sat);
}
float sqrt(float a, Mode m) noexcept {
    a = flush_if(a, m.ftz);
    return finish(rounded(
                      m.round, [](float x) { return std::sqrt(x); }, a),
                  m.ftz, m.sat);
}

// --- f64 --------------------------------------------------------------------------------------

double add(double a, double b, Round r) noexcept {
    const double d = rounded(
        r, [](double x, double y) { return x + y; }, a, b);
    return is_nan(d) ? nan_result(a, b) : d;
}
double sub(double a, double b, Round r) noexcept {
    const double d = rounded(
        r, [](double x, double y) { return x - y; }, a, b);
    return is_nan(d) ? nan_result(a, b) : d;
}
double mul(double a, double b, Round r) noexcept {
    const double d = rounded(
        r, [](double x, double y) { return x * y; }, a, b);
    return is_nan(d) ? nan_result(a, b) : d;
}
double fma(double a, double b, double c, Round r) noexcept {
    const double d = rounded(
        r, [](double x, double y, double z) { return std::fma(x, y, z); }, a, b, c);
    return is_nan(d) ? nan_result(a, b, c) : d;
}
double div(double a, double b, Round r) noexcept {
    const double d = rounded(
        r, [](double x, double y) { return x / y; }, a, b);
    return is_nan(d) ? nan_result(a, b) : d;
}
double rcp(double a, Round r) noexcept {
    const double d = rounded(
        r, [](double x) { return 1.0 / x; }, a);
    return is_nan(d) ? nan_result(a) : d;
}
double sqrt(double a, Round r) noexcept {
    const double d = rounded(
        r, [](double x) { return std::sqrt(x); }, a);
    return is_nan(d) ? nan_result(a) : d;
}
double rcp_approx_ftz(double a) noexcept {
    const double d = flush(rounded(
        Round::nearest, [](double x) { return 1.0 / x; }, flush(a)));
    return is_nan(d) ? nan_result(a) : d;
}

double sum_to_odd(double x, double y) noexcept {
    return rounded(
        Round::nearest,
        [](double p, double q) {
            const double s = p + q;
            if (!std::isfinite(s)) return s;
            // TwoSum: s + e == p + q exactly.
            const double qq = s - p;
            const double e = (p - (s - qq)) + (q - qq);
            if (e == 0) return s;
            // The truncation of p + q is s, or (when s was rounded away from zero) its neighbour
            // toward zero: one less in the magnitude's bits.
            const std::uint64_t t = bits_of(s) - ((s > 0) != (e > 0) ? 1u : 0u);
            return f64_of(t | 1u);
        },
        x, y);
}

// --- approximate functions: the function in double (the environment set for it), rounded to
// nearest.

float rsqrt_approx(float a, bool ftz) noexcept {
    const double x = flush_if(a, ftz);
    return finish(rounded(
                      Round::nearest, [](double v) { return static_cast<float>(1.0 / std::sqrt(v)); }, x),
                  ftz, false);
}
double rsqrt_approx(double a, bool ftz) noexcept {
    double d = rounded(
        Round::nearest, [](double v) { return 1.0 / std::sqrt(v); }, ftz ? flush(a) : a);
    if (ftz) d = flush(d);
    return is_nan(d) ? nan_result(a) : d;
}
float ex2_approx(float a, bool ftz) noexcept {
    const double x = flush_if(a, ftz);
    return finish(rounded(
                      Round::nearest, [](double v) { return static_cast<float>(std::exp2(v)); }, x),
                  ftz, false);
}
float lg2_approx(float a, bool ftz) noexcept {
    const double x = flush_if(a, ftz);
    return finish(rounded(
                      Round::nearest, [](double v) { return static_cast<float>(std::log2(v)); }, x),
                  ftz, false);
}
float sin_approx(float a, bool ftz) noexcept {
    const double x = flush_if(a, ftz);
    return finish(rounded(
                      Round::nearest, [](double v) { return static_cast<float>(std::sin(v)); }, x),
                  ftz, false);
}
float cos_approx(float a, bool ftz) noexcept {
    const double x = flush_if(a, ftz);
    return finish(rounded(
                      Round::nearest, [](double v) { return static_cast<float>(std::cos(v)); }, x),
                  ftz, false);
}
float tanh_approx(float a) noexcept {
    const double x = a;
    return canonical(rounded(
        Round::nearest, [](double v) { return static_cast<float>(std::tanh(v)); }, x));
}

}  // namespace xcuda::cpu::fp

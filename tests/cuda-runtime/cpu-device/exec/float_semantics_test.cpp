// PTX's .f32/.f64 semantics (exec/ops/float_semantics.hpp): goldens for the edges of each operation:
// NaN results, signed zeros, subnormals with and without .ftz, every rounding mode, .sat,
// overflow, min/max and comparisons with NaN operands, testp's classes, the approximations'
// special values; and that the host's floating-point state neither leaks in nor is left changed.
// Goldens that are NVIDIA hardware behaviour rather than IEEE 754 say so and cite where.
#include "exec/ops/float_semantics.hpp"

#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <utility>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace fp = xcuda::cpu::fp;
using fp::Mode;
using fp::Round;

namespace {

float F(std::uint32_t b) { return fp::f32_of(b); }
double D(std::uint64_t b) { return fp::f64_of(b); }
std::uint32_t B(float f) { return fp::bits_of(f); }
std::uint64_t B(double d) { return fp::bits_of(d); }

constexpr Round all_rounds[] = {Round::nearest, Round::zero, Round::down, Round::up};

Mode in(Round r, bool ftz = false, bool sat = false) { return Mode{r, ftz, sat}; }

// CUDA C++ Programming Guide, "Floating-Point Standard": a single-precision operation with NaN
// operands returns 0x7fffffff; so does one that creates a NaN (hardware behaviour, not IEEE).
TEST(FloatF32, NaNResultsAreTheCanonicalNaN) {
    const float quiet_payload = F(0x7FC00001u), signaling = F(0x7F800001u), negative = F(0xFFC00000u);
    const float inf = INFINITY;
    for (Round r : all_rounds) {
        EXPECT_EQ(B(fp::add(quiet_payload, 1.0f, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::add(1.0f, signaling, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::mul(negative, 2.0f, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::sub(inf, inf, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::mul(0.0f, inf, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::fma(0.0f, inf, 1.0f, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::div(0.0f, 0.0f, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::sqrt(-1.0f, in(r))), 0x7FFFFFFFu);
        EXPECT_EQ(B(fp::rcp(negative, in(r))), 0x7FFFFFFFu);
    }
    EXPECT_EQ(B(fp::add_rn<false>(quiet_payload, 1.0f)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::add_rn<true>(negative, 1.0f)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::sub_rn<false>(inf, inf)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::mul_rn<false>(0.0f, inf)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::fma_rn<false>(1.0f, 1.0f, signaling)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::div_rn<false>(inf, inf)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::sqrt_rn<false>(-inf)), 0x7FFFFFFFu);
}

TEST(FloatF32, SignedZeros) {
    EXPECT_EQ(B(fp::add_rn<false>(-0.0f, -0.0f)), 0x80000000u);
    EXPECT_EQ(B(fp::add_rn<false>(-0.0f, 0.0f)), 0x00000000u);
    EXPECT_EQ(B(fp::mul_rn<false>(-0.0f, 5.0f)), 0x80000000u);
    EXPECT_EQ(B(fp::fma_rn<false>(-0.0f, 1.0f, -0.0f)), 0x80000000u);
    // An exact zero sum of opposite operands is +0, except when rounding down (IEEE 754 6.3).
    EXPECT_EQ(B(fp::add(1.0f, -1.0f, in(Round::nearest))), 0x00000000u);
    EXPECT_EQ(B(fp::add(1.0f, -1.0f, in(Round::zero))), 0x00000000u);
    EXPECT_EQ(B(fp::add(1.0f, -1.0f, in(Round::up))), 0x00000000u);
    EXPECT_EQ(B(fp::add(1.0f, -1.0f, in(Round::down))), 0x80000000u);
    EXPECT_EQ(B(fp::sub(2.0f, 2.0f, in(Round::down))), 0x80000000u);
    EXPECT_EQ(B(fp::sqrt(-0.0f, in(Round::nearest))), 0x80000000u);
    EXPECT_EQ(B(fp::div(1.0f, -0.0f, in(Round::nearest))), 0xFF800000u);
}

TEST(FloatF32, RoundingModesOnTiesAndBetween) {
    const float tie = F(0x33800000u);  // 2^-24: half an ulp of 1.0
    // 1 + 2^-24: a tie between 1 and 1 + 2^-23.
    EXPECT_EQ(B(fp::add(1.0f, tie, in(Round::nearest))), 0x3F800000u);
    EXPECT_EQ(B(fp::add(1.0f, tie, in(Round::zero))), 0x3F800000u);
    EXPECT_EQ(B(fp::add(1.0f, tie, in(Round::down))), 0x3F800000u);
    EXPECT_EQ(B(fp::add(1.0f, tie, in(Round::up))), 0x3F800001u);
    EXPECT_EQ(B(fp::add(-1.0f, -tie, in(Round::nearest))), 0xBF800000u);
    EXPECT_EQ(B(fp::add(-1.0f, -tie, in(Round::zero))), 0xBF800000u);
    EXPECT_EQ(B(fp::add(-1.0f, -tie, in(Round::down))), 0xBF800001u);
    EXPECT_EQ(B(fp::add(-1.0f, -tie, in(Round::up))), 0xBF800000u);
    // Ties go to the even neighbour: 1 + 2^-23 + 2^-24 rounds up to 1 + 2^-22.
    EXPECT_EQ(B(fp::add(F(0x3F800001u), tie, in(Round::nearest))), 0x3F800002u);
    EXPECT_EQ(B(fp::add_rn<false>(F(0x3F800001u), tie)), 0x3F800002u);
    // 1/3 lies above the midpoint of its neighbours.
    EXPECT_EQ(B(fp::div(1.0f, 3.0f, in(Round::nearest))), 0x3EAAAAABu);
    EXPECT_EQ(B(fp::div(1.0f, 3.0f, in(Round::zero))), 0x3EAAAAAAu);
    EXPECT_EQ(B(fp::div(1.0f, 3.0f, in(Round::down))), 0x3EAAAAAAu);
    EXPECT_EQ(B(fp::div(1.0f, 3.0f, in(Round::up))), 0x3EAAAAABu);
    EXPECT_EQ(B(fp::div(-1.0f, 3.0f, in(Round::zero))), 0xBEAAAAAAu);
    EXPECT_EQ(B(fp::div(-1.0f, 3.0f, in(Round::down))), 0xBEAAAAABu);
    EXPECT_EQ(B(fp::div(-1.0f, 3.0f, in(Round::up))), 0xBEAAAAAAu);
    EXPECT_EQ(B(fp::rcp(3.0f, in(Round::nearest))), 0x3EAAAAABu);
    EXPECT_EQ(B(fp::rcp(3.0f, in(Round::zero))), 0x3EAAAAAAu);
    // sqrt(2) = 1.41421356..., between 0x3FB504F3 (below, nearer) and 0x3FB504F4.
    EXPECT_EQ(B(fp::sqrt(2.0f, in(Round::nearest))), 0x3FB504F3u);
    EXPECT_EQ(B(fp::sqrt(2.0f, in(Round::zero))), 0x3FB504F3u);
    EXPECT_EQ(B(fp::sqrt(2.0f, in(Round::down))), 0x3FB504F3u);
    EXPECT_EQ(B(fp::sqrt(2.0f, in(Round::up))), 0x3FB504F4u);
    EXPECT_EQ(B(fp::mul(3.0f, F(0x3EAAAAABu), in(Round::down))), 0x3F800000u);
    EXPECT_EQ(B(fp::mul(3.0f, F(0x3EAAAAABu), in(Round::up))), 0x3F800001u);
}

TEST(FloatF32, FmaRoundsOnce) {
    // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; a rounded product would give 0.
    const float a = F(0x3F800800u), c = F(0xBF801000u);
    EXPECT_EQ(B(fp::fma_rn<false>(a, a, c)), 0x33800000u);
    for (Round r : all_rounds) EXPECT_EQ(B(fp::fma(a, a, c, in(r))), 0x33800000u);
    // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46: a tie at 2^-22's precision.
    const float b = F(0x3F800001u);
    EXPECT_EQ(B(fp::fma(b, b, -1.0f, in(Round::nearest))), 0x34800000u);
    EXPECT_EQ(B(fp::fma(b, b, -1.0f, in(Round::zero))), 0x34800000u);
    EXPECT_EQ(B(fp::fma(b, b, -1.0f, in(Round::up))), 0x34800001u);
}

TEST(FloatF32, SubnormalsAreExactWithoutFtz) {
    EXPECT_EQ(B(fp::add_rn<false>(F(1), F(1))), 2u);
    EXPECT_EQ(B(fp::sub_rn<false>(F(0x00800000u), F(1))), 0x007FFFFFu);
    // 2^-100 * 2^-30 = 2^-130, a subnormal: 2^19 times the smallest one.
    EXPECT_EQ(B(fp::mul_rn<false>(F(0x0D800000u), F(0x30800000u))), 0x00080000u);
    EXPECT_EQ(B(fp::mul(F(0x0D800000u), F(0x30800000u), in(Round::up))), 0x00080000u);
    // 2^-150 is half the smallest subnormal: a tie, to even (zero); up gives the subnormal.
    EXPECT_EQ(B(fp::mul(F(1), 0.5f, in(Round::nearest))), 0u);
    EXPECT_EQ(B(fp::mul(F(1), 0.5f, in(Round::up))), 1u);
    EXPECT_EQ(B(fp::mul(F(0x80000001u), 0.5f, in(Round::down))), 0x80000001u);
    EXPECT_EQ(B(fp::mul(F(0x80000001u), 0.5f, in(Round::nearest))), 0x80000000u);
}

// PTX ISA, add/mul/fma "Subnormal numbers": .ftz flushes subnormal inputs and results to
// sign-preserving zero.
TEST(FloatF32, FtzFlushesInputsAndResultsKeepingTheSign) {
    const Mode ftz = in(Round::nearest, true);
    EXPECT_EQ(B(fp::add(F(1), F(1), ftz)), 0u);
    EXPECT_EQ(B(fp::add_rn<true>(F(1), F(1))), 0u);
    EXPECT_EQ(B(fp::add(F(0x80000001u), -0.0f, ftz)), 0x80000000u);
    EXPECT_EQ(B(fp::add_rn<true>(F(0x80000001u), F(0x80000001u))), 0x80000000u);
    EXPECT_EQ(B(fp::mul(F(0x0D800000u), F(0x30800000u), ftz)), 0u);
    EXPECT_EQ(B(fp::mul_rn<true>(F(0x8D800000u), F(0x30800000u))), 0x80000000u);
    EXPECT_EQ(B(fp::fma_rn<true>(F(0x00400000u), 2.0f, F(0x00400000u))), 0u);  // flushed inputs: 0*2 + 0
    EXPECT_EQ(B(fp::fma_rn<false>(F(0x00400000u), 2.0f, F(0x00400000u))), 0x00C00000u);
    EXPECT_EQ(B(fp::div(1.0f, F(0x00000010u), ftz)), 0x7F800000u);  // 1 / flushed(+sub) = +inf
    EXPECT_EQ(B(fp::div_rn<true>(1.0f, F(0x80000010u))), 0xFF800000u);
    EXPECT_EQ(B(fp::sqrt_rn<true>(F(0x80000010u))), 0x80000000u);  // sqrt(-0) = -0, not NaN
    EXPECT_EQ(B(fp::rcp_rn<true>(F(0x00000001u))), 0x7F800000u);
    // The smallest normal is not flushed.
    EXPECT_EQ(B(fp::add_rn<true>(F(0x00800000u), 0.0f)), 0x00800000u);
    for (Round r : all_rounds) EXPECT_EQ(B(fp::mul(F(0x00800000u), 0.5f, in(r, true))), 0u);
}

// PTX ISA, add: ".sat clamps the result to [0.0, 1.0]. NaN results are flushed to +0.0f." The
// lower end is +0.0 (CUDA's __saturatef: "clamp to [+0.0, 1.0]"), so -0.0 gives +0.0 too.
TEST(FloatF32, SatClampsToTheUnitInterval) {
    const Mode sat = in(Round::nearest, false, true);
    EXPECT_EQ(fp::add(0.5f, 0.75f, sat), 1.0f);
    EXPECT_EQ(fp::add(0.5f, 0.25f, sat), 0.75f);
    EXPECT_EQ(B(fp::add(-0.5f, 0.25f, sat)), 0u);
    EXPECT_EQ(B(fp::add(-0.0f, -0.0f, sat)), 0u);
    EXPECT_EQ(B(fp::sub(INFINITY, INFINITY, sat)), 0u);
    EXPECT_EQ(B(fp::add(F(0x7FC00001u), 0.0f, sat)), 0u);
    EXPECT_EQ(fp::mul(INFINITY, 1.0f, sat), 1.0f);
    EXPECT_EQ(fp::fma(2.0f, 0.25f, 0.25f, sat), 0.75f);
    EXPECT_EQ(fp::add(1.0f, F(0x33800000u), in(Round::up, false, true)), 1.0f);
}

TEST(FloatF32, OverflowFollowsTheRoundingDirection) {
    const float max = FLT_MAX;
    EXPECT_EQ(B(fp::mul(max, 2.0f, in(Round::nearest))), 0x7F800000u);
    EXPECT_EQ(B(fp::mul(max, 2.0f, in(Round::zero))), 0x7F7FFFFFu);
    EXPECT_EQ(B(fp::mul(max, 2.0f, in(Round::down))), 0x7F7FFFFFu);
    EXPECT_EQ(B(fp::mul(max, 2.0f, in(Round::up))), 0x7F800000u);
    EXPECT_EQ(B(fp::mul(-max, 2.0f, in(Round::zero))), 0xFF7FFFFFu);
    EXPECT_EQ(B(fp::mul(-max, 2.0f, in(Round::down))), 0xFF800000u);
    EXPECT_EQ(B(fp::mul(-max, 2.0f, in(Round::up))), 0xFF7FFFFFu);
    EXPECT_EQ(B(fp::add(max, F(0x73000000u), in(Round::nearest))), 0x7F800000u);  // + half an ulp: a tie, to even (inf)
    EXPECT_EQ(B(fp::add(max, F(0x72FFFFFFu), in(Round::nearest))), 0x7F7FFFFFu);
}

// CUDA C++ Programming Guide, "Floating-Point Standard": f64 NaN inputs propagate (IEEE); a NaN
// made from numbers is CUDA's CUDART_NAN (math_constants.h), 0xfff8000000000000.
TEST(FloatF64, NaNsPropagateQuietedAndInvalidOperationsGiveTheDefaultNaN) {
    const double snan = D(0x7FF0000000000001ull), neg_snan = D(0xFFF0000000000005ull);
    const double q1 = D(0x7FF8000000000001ull), q2 = D(0x7FF8000000000002ull);
    for (Round r : all_rounds) {
        EXPECT_EQ(B(fp::add(snan, 1.0, r)), 0x7FF8000000000001ull);
        EXPECT_EQ(B(fp::add(1.0, neg_snan, r)), 0xFFF8000000000005ull);
        EXPECT_EQ(B(fp::mul(q1, q2, r)), 0x7FF8000000000001ull);
        EXPECT_EQ(B(fp::mul(q2, q1, r)), 0x7FF8000000000002ull);
        EXPECT_EQ(B(fp::sub(INFINITY, INFINITY, r)), 0xFFF8000000000000ull);
        EXPECT_EQ(B(fp::div(0.0, 0.0, r)), 0xFFF8000000000000ull);
        EXPECT_EQ(B(fp::sqrt(-2.0, r)), 0xFFF8000000000000ull);
        EXPECT_EQ(B(fp::sqrt(q2, r)), 0x7FF8000000000002ull);
        EXPECT_EQ(B(fp::fma(0.0, INFINITY, q2, r)), 0x7FF8000000000002ull);
        EXPECT_EQ(B(fp::fma(1.0, 2.0, snan, r)), 0x7FF8000000000001ull);
        EXPECT_EQ(B(fp::fma(0.0, INFINITY, 1.0, r)), 0xFFF8000000000000ull);
        EXPECT_EQ(B(fp::rcp(neg_snan, r)), 0xFFF8000000000005ull);
    }
    EXPECT_EQ(B(fp::add_rn(q2, q1)), 0x7FF8000000000002ull);
    EXPECT_EQ(B(fp::add_rn(1.0, snan)), 0x7FF8000000000001ull);
    EXPECT_EQ(B(fp::sub_rn(-INFINITY, -INFINITY)), 0xFFF8000000000000ull);
    EXPECT_EQ(B(fp::mul_rn(INFINITY, 0.0)), 0xFFF8000000000000ull);
    EXPECT_EQ(B(fp::fma_rn(snan, q1, q2)), 0x7FF8000000000001ull);
    EXPECT_EQ(B(fp::div_rn(INFINITY, -INFINITY)), 0xFFF8000000000000ull);
    EXPECT_EQ(B(fp::sqrt_rn(-INFINITY)), 0xFFF8000000000000ull);
    EXPECT_EQ(B(fp::rcp_rn(q1)), 0x7FF8000000000001ull);
}

TEST(FloatF64, RoundingModes) {
    EXPECT_EQ(B(fp::div(1.0, 3.0, Round::nearest)), 0x3FD5555555555555ull);
    EXPECT_EQ(B(fp::div(1.0, 3.0, Round::zero)), 0x3FD5555555555555ull);
    EXPECT_EQ(B(fp::div(1.0, 3.0, Round::down)), 0x3FD5555555555555ull);
    EXPECT_EQ(B(fp::div(1.0, 3.0, Round::up)), 0x3FD5555555555556ull);
    EXPECT_EQ(B(fp::div(2.0, 3.0, Round::nearest)), 0x3FE5555555555555ull);
    EXPECT_EQ(B(fp::div(2.0, 3.0, Round::up)), 0x3FE5555555555556ull);
    const double tie = D(0x3CA0000000000000ull);  // 2^-53
    EXPECT_EQ(B(fp::add(1.0, tie, Round::nearest)), 0x3FF0000000000000ull);
    EXPECT_EQ(B(fp::add(1.0, tie, Round::up)), 0x3FF0000000000001ull);
    EXPECT_EQ(B(fp::add(-1.0, -tie, Round::down)), 0xBFF0000000000001ull);
    EXPECT_EQ(B(fp::add(-1.0, -tie, Round::zero)), 0xBFF0000000000000ull);
    EXPECT_EQ(B(fp::add(1.0, -1.0, Round::down)), 0x8000000000000000ull);
    EXPECT_EQ(B(fp::sqrt(2.0, Round::nearest)), 0x3FF6A09E667F3BCDull);
    EXPECT_EQ(B(fp::sqrt(2.0, Round::down)), 0x3FF6A09E667F3BCCull);
    EXPECT_EQ(B(fp::sqrt(2.0, Round::up)), 0x3FF6A09E667F3BCDull);
    EXPECT_EQ(B(fp::rcp(3.0, Round::zero)), 0x3FD5555555555555ull);
    EXPECT_EQ(B(fp::mul(DBL_MAX, 2.0, Round::zero)), 0x7FEFFFFFFFFFFFFFull);
    EXPECT_EQ(B(fp::mul(DBL_MAX, 2.0, Round::up)), 0x7FF0000000000000ull);
    EXPECT_EQ(B(fp::mul(-DBL_MAX, 2.0, Round::up)), 0xFFEFFFFFFFFFFFFFull);
    // (1 + 2^-27)^2 - (1 + 2^-26) = 2^-54: fma rounds once.
    const double a = D(0x3FF0000002000000ull), c = D(0xBFF0000004000000ull);
    EXPECT_EQ(B(fp::fma_rn(a, a, c)), 0x3C90000000000000ull);
    for (Round r : all_rounds) EXPECT_EQ(B(fp::fma(a, a, c, r)), 0x3C90000000000000ull);
    // f64 keeps subnormals.
    EXPECT_EQ(B(fp::mul_rn(D(1), 0.5)), 0ull);
    EXPECT_EQ(B(fp::mul(D(1), 0.5, Round::up)), 1ull);
    EXPECT_EQ(B(fp::sub_rn(D(0x0010000000000000ull), D(1))), 0x000FFFFFFFFFFFFFull);
}

// CUDA C++ Programming Guide, "Floating-Point Standard": "Double-precision floating-point
// absolute value and negation are not compliant with IEEE-754 with respect to NaNs; these are
// passed through unchanged." f32's abs and neg give an unspecified NaN (PTX ISA, abs and neg):
// the GPU's canonical one.
TEST(FloatSign, AbsAndNeg) {
    EXPECT_EQ(B(fp::abs_f64(D(0xFFF8000000000001ull))), 0xFFF8000000000001ull);
    EXPECT_EQ(B(fp::neg_f64(D(0x7FF0000000000001ull))), 0x7FF0000000000001ull);
    EXPECT_EQ(B(fp::abs_f64(-0.0)), 0ull);
    EXPECT_EQ(B(fp::neg_f64(0.0)), 0x8000000000000000ull);
    EXPECT_EQ(B(fp::neg_f64(D(1))), 0x8000000000000001ull);
    EXPECT_EQ(B(fp::abs_f32<false>(F(0xFFC00001u))), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::neg_f32<false>(F(0x7FC00000u))), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::abs_f32<false>(-0.0f)), 0u);
    EXPECT_EQ(B(fp::neg_f32<false>(0.0f)), 0x80000000u);
    EXPECT_EQ(B(fp::neg_f32<false>(F(1))), 0x80000001u);
    EXPECT_EQ(B(fp::neg_f32<true>(F(1))), 0x80000000u);
    EXPECT_EQ(B(fp::abs_f32<true>(F(0x80000001u))), 0u);
    EXPECT_EQ(B(fp::abs_f32<false>(F(0x80000001u))), 1u);
    EXPECT_EQ(B(fp::abs_f32<false>(-INFINITY)), 0x7F800000u);
}

TEST(FloatSign, CopysignIsABitOperation) {
    EXPECT_EQ(fp::copysign_of(-1.0f, 2.0f), -2.0f);
    EXPECT_EQ(fp::copysign_of(1.0f, -2.0f), 2.0f);
    EXPECT_EQ(B(fp::copysign_of(1.0f, F(0xFFC00001u))), 0x7FC00001u);
    EXPECT_EQ(B(fp::copysign_of(-0.0f, 0.0f)), 0x80000000u);
    EXPECT_EQ(B(fp::copysign_of(F(0xFFFFFFFFu), 3.0f)), 0xC0400000u);
    EXPECT_EQ(B(fp::copysign_of(-1.0, D(0x7FF8000000000003ull))), 0xFFF8000000000003ull);
}

// PTX ISA, min/max: a NaN operand is ignored unless both are NaN (canonical NaN) or .NaN is
// given (canonical NaN); -0.0 is less than +0.0; .xorsign.abs compares magnitudes and gives the
// result the XOR of the operands' signs.
TEST(FloatMinMax, NaNsZerosAndModifiers) {
    const fp::MinMax plain{}, nan{false, true, false}, xorsign{false, false, true}, ftz{true, false, false};
    const float qnan = F(0x7FC00001u), other = F(0xFFC00002u);
    EXPECT_EQ(fp::min_max(qnan, 1.0f, false, plain), 1.0f);
    EXPECT_EQ(fp::min_max(1.0f, qnan, false, plain), 1.0f);
    EXPECT_EQ(fp::min_max(qnan, -3.0f, true, plain), -3.0f);
    EXPECT_EQ(B(fp::min_max(qnan, other, false, plain)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::min_max(qnan, other, true, plain)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::min_max(qnan, 1.0f, false, nan)), 0x7FFFFFFFu);
    EXPECT_EQ(B(fp::min_max(1.0f, other, true, nan)), 0x7FFFFFFFu);
    EXPECT_EQ(fp::min_max(1.0f, 2.0f, true, nan), 2.0f);
    EXPECT_EQ(B(fp::min_max(-0.0f, 0.0f, false, plain)), 0x80000000u);
    EXPECT_EQ(B(fp::min_max(0.0f, -0.0f, false, plain)), 0x80000000u);
    EXPECT_EQ(B(fp::min_max(-0.0f, 0.0f, true, plain)), 0u);
    EXPECT_EQ(B(fp::min_max(0.0f, -0.0f, true, plain)), 0u);
    EXPECT_EQ(fp::min_max(1.0f, 2.0f, false, plain), 1.0f);
    EXPECT_EQ(fp::min_max(-1.0f, -2.0f, true, plain), -1.0f);
    EXPECT_EQ(fp::min_max(-INFINITY, 2.0f, false, plain), -INFINITY);
    EXPECT_EQ(fp::min_max(-3.0f, 2.0f, false, xorsign), -2.0f);
    EXPECT_EQ(fp::min_max(-3.0f, -2.0f, true, xorsign), 3.0f);
    EXPECT_EQ(fp::min_max(3.0f, 2.0f, true, xorsign), 3.0f);
    // The sign is the XOR of both operands' signs, a NaN's included (PTX ISA, max semantics).
    EXPECT_EQ(fp::min_max(qnan, -2.0f, true, xorsign), -2.0f);
    EXPECT_EQ(fp::min_max(other, -2.0f, true, xorsign), 2.0f);
    EXPECT_EQ(B(fp::min_max(F(0x80000001u), F(1), false, ftz)), 0x80000000u);
    EXPECT_EQ(B(fp::min_max(F(0x80000001u), F(1), false, plain)), 0x80000001u);
    EXPECT_EQ(B(fp::min_max(F(1), F(2), true, ftz)), 0u);
    EXPECT_EQ(B(fp::min_max(D(0x7FF8000000000001ull), D(0x7FF8000000000002ull), false, plain)), 0xFFF8000000000000ull);
    EXPECT_EQ(fp::min_max(D(0x7FF8000000000001ull), 2.0, false, plain), 2.0);
    EXPECT_EQ(B(fp::min_max(-0.0, 0.0, false, plain)), 0x8000000000000000ull);
    EXPECT_EQ(B(fp::min_max(-0.0, 0.0, true, plain)), 0ull);
}

// PTX ISA, setp "Floating Point Comparison Operators": the ordered comparisons (ne included) are
// false with a NaN operand, the unordered ones true.
TEST(FloatCompare, OrderedAndUnorderedTruthTables) {
    using C = fp::Compare;
    const C all[] = {C::eq,  C::ne,  C::lt,  C::le,  C::gt,  C::ge,  C::equ,
                     C::neu, C::ltu, C::leu, C::gtu, C::geu, C::num, C::nan};
    struct Row {
        float a, b;
        const char* expected;  // one character per comparison, in `all` order
    };
    const float nan = F(0x7FC00000u);
    const Row rows[] = {
        {1.0f, 2.0f, "01110001110010"},  {2.0f, 1.0f, "01001101001110"},          {1.0f, 1.0f, "10010110010110"},
        {-0.0f, 0.0f, "10010110010110"}, {nan, 1.0f, "00000011111101"},           {1.0f, nan, "00000011111101"},
        {nan, nan, "00000011111101"},    {-INFINITY, INFINITY, "01110001110010"},
    };
    for (const Row& row : rows) {
        for (std::size_t i = 0; i < 14; ++i) {
            const bool want = row.expected[i] == '1';
            EXPECT_EQ(fp::compare(all[i], row.a, row.b), want) << row.a << " vs " << row.b << " #" << i;
            EXPECT_EQ(fp::compare(all[i], double(row.a), double(row.b)), want) << row.a << " vs " << row.b << " #" << i;
        }
    }
    EXPECT_TRUE(fp::compare<C::lt>(F(1), F(2)));  // subnormals compare as themselves
    EXPECT_FALSE(fp::compare<C::eq>(F(1), 0.0f));
}

TEST(FloatClass, TestpClasses) {
    using K = fp::Class;
    struct Row {
        std::uint32_t bits;
        bool finite, infinite, number, notanumber, normal, subnormal;
    };
    const Row rows[] = {
        {0x00000000u, true, false, true, false, false, false},  {0x80000000u, true, false, true, false, false, false},
        {0x3F800000u, true, false, true, false, true, false},   {0x00800000u, true, false, true, false, true, false},
        {0x00000001u, true, false, true, false, false, true},   {0x807FFFFFu, true, false, true, false, false, true},
        {0x7F7FFFFFu, true, false, true, false, true, false},   {0x7F800000u, false, true, true, false, false, false},
        {0xFF800000u, false, true, true, false, false, false},  {0x7FC00000u, false, false, false, true, false, false},
        {0xFF800001u, false, false, false, true, false, false},
    };
    for (const Row& r : rows) {
        const float f = F(r.bits);
        const double d = f;  // the same class in f64
        for (auto [k, want] : {std::pair{K::finite, r.finite}, std::pair{K::infinite, r.infinite},
                               std::pair{K::number, r.number}, std::pair{K::notanumber, r.notanumber}}) {
            EXPECT_EQ(fp::test(k, f), want) << std::hex << r.bits;
            EXPECT_EQ(fp::test(k, d), want) << std::hex << r.bits;
        }
        EXPECT_EQ(fp::test(K::normal, f), r.normal) << std::hex << r.bits;
        EXPECT_EQ(fp::test(K::subnormal, f), r.subnormal) << std::hex << r.bits;
    }
    EXPECT_TRUE(fp::test(K::subnormal, D(1)));
    EXPECT_TRUE(fp::test(K::subnormal, D(0x800FFFFFFFFFFFFFull)));
    EXPECT_FALSE(fp::test(K::subnormal, D(0x0010000000000000ull)));
    EXPECT_TRUE(fp::test(K::normal, D(0x0010000000000000ull)));
}

TEST(FloatApprox, SpecialValues) {
    const std::uint32_t nan = 0x7FFFFFFFu;
    EXPECT_EQ(fp::ex2_approx(1.0f, false), 2.0f);
    EXPECT_EQ(fp::ex2_approx(-3.0f, false), 0.125f);
    EXPECT_EQ(B(fp::ex2_approx(-INFINITY, false)), 0u);
    EXPECT_EQ(B(fp::ex2_approx(INFINITY, false)), 0x7F800000u);
    EXPECT_EQ(B(fp::ex2_approx(128.0f, false)), 0x7F800000u);
    EXPECT_EQ(B(fp::ex2_approx(F(0x7FC00001u), false)), nan);
    EXPECT_EQ(B(fp::ex2_approx(-149.0f, false)), 1u);  // subnormal result kept without .ftz
    EXPECT_EQ(B(fp::ex2_approx(-149.0f, true)), 0u);
    EXPECT_EQ(fp::ex2_approx(F(0x80000001u), true), 1.0f);
    EXPECT_EQ(fp::lg2_approx(8.0f, false), 3.0f);
    EXPECT_EQ(B(fp::lg2_approx(0.0f, false)), 0xFF800000u);
    EXPECT_EQ(B(fp::lg2_approx(-0.0f, false)), 0xFF800000u);
    EXPECT_EQ(B(fp::lg2_approx(-1.0f, false)), nan);
    EXPECT_EQ(B(fp::lg2_approx(INFINITY, false)), 0x7F800000u);
    EXPECT_EQ(fp::lg2_approx(F(1), false), -149.0f);
    EXPECT_EQ(B(fp::lg2_approx(F(1), true)), 0xFF800000u);
    EXPECT_EQ(fp::rsqrt_approx(4.0f, false), 0.5f);
    EXPECT_EQ(B(fp::rsqrt_approx(0.0f, false)), 0x7F800000u);
    EXPECT_EQ(B(fp::rsqrt_approx(-0.0f, false)), 0xFF800000u);
    EXPECT_EQ(B(fp::rsqrt_approx(-1.0f, false)), nan);
    EXPECT_EQ(B(fp::rsqrt_approx(INFINITY, false)), 0u);
    EXPECT_EQ(B(fp::rsqrt_approx(F(0x80000001u), true)), 0xFF800000u);
    EXPECT_EQ(fp::rsqrt_approx(4.0, false), 0.5);
    EXPECT_EQ(B(fp::rsqrt_approx(-0.0, false)), 0xFFF0000000000000ull);
    EXPECT_EQ(B(fp::rsqrt_approx(D(1), true)), 0x7FF0000000000000ull);
    EXPECT_EQ(B(fp::rsqrt_approx(-4.0, false)), 0xFFF8000000000000ull);
    EXPECT_EQ(B(fp::rsqrt_approx(D(0x7FF0000000000002ull), false)), 0x7FF8000000000002ull);
    EXPECT_EQ(B(fp::sin_approx(-0.0f, false)), 0x80000000u);
    EXPECT_EQ(B(fp::sin_approx(INFINITY, false)), nan);
    EXPECT_EQ(fp::cos_approx(0.0f, false), 1.0f);
    EXPECT_EQ(B(fp::cos_approx(-INFINITY, false)), nan);
    EXPECT_EQ(B(fp::tanh_approx(-0.0f)), 0x80000000u);
    EXPECT_EQ(fp::tanh_approx(INFINITY), 1.0f);
    EXPECT_EQ(fp::tanh_approx(-INFINITY), -1.0f);
    EXPECT_EQ(B(fp::tanh_approx(F(0xFFC00000u))), nan);
    EXPECT_EQ(B(fp::rcp(0.0f, in(Round::nearest))), 0x7F800000u);
    EXPECT_EQ(B(fp::rcp(-0.0f, in(Round::up))), 0xFF800000u);
    EXPECT_EQ(fp::rcp_approx_ftz(2.0), 0.5);
    EXPECT_EQ(B(fp::rcp_approx_ftz(D(1))), 0x7FF0000000000000ull);
    EXPECT_EQ(B(fp::rcp_approx_ftz(D(0x8000000000000001ull))), 0xFFF0000000000000ull);
    EXPECT_EQ(B(fp::rcp_approx_ftz(1e308)), 0ull);  // 1e-308 is subnormal: flushed
    EXPECT_EQ(B(fp::rcp_approx_ftz(-1e308)), 0x8000000000000000ull);
    EXPECT_EQ(B(fp::rcp_approx_ftz(D(0x7FF0000000000001ull))), 0x7FF8000000000001ull);
}

// PTX ISA, sin/cos.approx.f32: maximum absolute error 2^-20.5 in [-100 pi, 100 pi]; ex2.approx.f32:
// 2 ulp; lg2.approx.f32: absolute error 2^-22 in [0.5, 2]; tanh.approx.f32: relative 2^-11.
TEST(FloatApprox, WithinThePtxBounds) {
    for (int i = -1000; i <= 1000; ++i) {
        const float x = static_cast<float>(i) * 0.3141f;
        EXPECT_LE(std::fabs(fp::sin_approx(x, false) - std::sin(double(x))), std::ldexp(1.0, -20));
        EXPECT_LE(std::fabs(fp::cos_approx(x, false) - std::cos(double(x))), std::ldexp(1.0, -20));
        const float t = fp::tanh_approx(x / 100);
        EXPECT_LE(std::fabs(t - std::tanh(double(x / 100))), std::ldexp(std::fabs(t), -11) + 1e-30);
        const float e = static_cast<float>(i) / 10;
        const double exact = std::exp2(double(e));
        EXPECT_LE(std::fabs(fp::ex2_approx(e, false) - exact), 2 * std::ldexp(1.0, std::ilogb(exact) - 23));
        const float l = 0.5f + static_cast<float>(i + 1000) / 1334.0f;
        EXPECT_LE(std::fabs(fp::lg2_approx(l, false) - std::log2(double(l))), std::ldexp(1.0, -22));
    }
}

// The rounding mode the host's own arithmetic uses now (this file is compiled with
// -frounding-math): -1/3 and 1/3 round differently in each mode.
Round host_rounding() {
    volatile float one = 1.0f, three = 3.0f;
    const bool positive_up = B(one / three) == 0x3EAAAAABu, negative_down = B(-one / three) == 0xBEAAAAABu;
    if (positive_up) return negative_down ? Round::nearest : Round::up;
    return negative_down ? Round::down : Round::zero;
}

// The handlers run inside fp::Environment: whatever rounding mode the host left, results are the
// IEEE default ones, and the host's mode comes back afterwards.
TEST(FloatEnvironment, HostRoundingModeNeitherLeaksInNorIsChanged) {
    const int before = std::fegetround();
    std::fesetround(FE_UPWARD);
    ASSERT_EQ(host_rounding(), Round::up);
    {
        const fp::Environment env;
        EXPECT_EQ(host_rounding(), Round::nearest);
        volatile float one = 1.0f, tie = F(0x33800000u);
        EXPECT_EQ(B(fp::add_rn<false>(one, tie)), 0x3F800000u);
        EXPECT_EQ(B(fp::add(one, tie, in(Round::down))), 0x3F800000u);
        EXPECT_EQ(host_rounding(), Round::nearest);
    }
    EXPECT_EQ(host_rounding(), Round::up);
    std::fesetround(FE_DOWNWARD);
    EXPECT_EQ(B(fp::add(1.0f, F(0x33800000u), in(Round::up))), 0x3F800001u);  // sets and restores its own mode
    EXPECT_EQ(B(fp::div(1.0f, 3.0f, in(Round::nearest))), 0x3EAAAAABu);
    EXPECT_EQ(host_rounding(), Round::down);
    {
        const fp::Environment env(Round::zero);
        EXPECT_EQ(host_rounding(), Round::zero);
        EXPECT_EQ(B(fp::div(-1.0f, 3.0f, in(Round::zero))), 0xBEAAAAAAu);
        EXPECT_EQ(B(fp::div(-1.0f, 3.0f, in(Round::down))), 0xBEAAAAABu);
        EXPECT_EQ(host_rounding(), Round::zero);
    }
    EXPECT_EQ(host_rounding(), Round::down);
    std::fesetround(before);
}

#if defined(__SSE2__)
TEST(FloatEnvironment, HostFlushToZeroAndDenormalsAreZeroAreOffInside) {
    const unsigned before = _mm_getcsr();
    _mm_setcsr(before | 0x8040u);  // FTZ | DAZ, as code built with -ffast-math leaves them
    {
        const fp::Environment env;
        volatile float tiny = F(1);
        EXPECT_EQ(B(fp::add_rn<false>(tiny, tiny)), 2u);
        EXPECT_TRUE(fp::compare<fp::Compare::lt>(float(tiny), F(2)));
    }
    EXPECT_EQ(_mm_getcsr() & 0x8040u, 0x8040u);
    _mm_setcsr(before);
}
#endif

}  // namespace

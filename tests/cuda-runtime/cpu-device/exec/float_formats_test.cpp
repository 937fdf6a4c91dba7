// PTX's narrow formats and cvt (exec/ops/float_formats.hpp): goldens at the edges of f16, bf16,
// tf32, e4m3 and e5m2 (ties, subnormal boundaries, overflow in each rounding direction,
// .satfinite, NaNs), integer <-> float conversions past the integer ranges and of 64-bit integers
// to f32, the f16/bf16 arithmetic; and sweeps against independent references: the compiler's
// own _Float16 conversions and the host's conversions under fesetround.
#include "exec/ops/float_formats.hpp"

#include <gtest/gtest.h>

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace fp = xcuda::cpu::fp;
using fp::Format;
using fp::Round;

namespace {

constexpr Round all_rounds[] = {Round::nearest, Round::zero, Round::down, Round::up};

std::uint32_t B(float f) { return fp::bits_of(f); }
std::uint64_t B(double d) { return fp::bits_of(d); }

std::uint64_t f32_to(std::uint32_t bits, Format to, Round r, bool satfinite = false) {
    return fp::convert(bits, Format::f32, to, r, satfinite);
}
std::uint64_t f64_to(std::uint64_t bits, Format to, Round r, bool satfinite = false) {
    return fp::convert(bits, Format::f64, to, r, satfinite);
}

int host_mode(Round r) {
    switch (r) {
        case Round::zero: return FE_TOWARDZERO;
        case Round::down: return FE_DOWNWARD;
        case Round::up: return FE_UPWARD;
        default: return FE_TONEAREST;
    }
}

// Restores the host's rounding mode when a sweep that changed it ends.
struct HostRounding {
    int saved = std::fegetround();
    ~HostRounding() { std::fesetround(saved); }
};

TEST(FloatFormatF16, FromF32AtTheEdges) {
    EXPECT_EQ(f32_to(B(1.0f), Format::f16, Round::nearest), 0x3C00u);
    EXPECT_EQ(f32_to(B(-2.0f), Format::f16, Round::nearest), 0xC000u);
    EXPECT_EQ(f32_to(B(65504.0f), Format::f16, Round::nearest), 0x7BFFu);
    EXPECT_EQ(f32_to(0x477FEFFFu, Format::f16, Round::nearest), 0x7BFFu);  // just below 65520
    // 65520 is the midpoint between the largest finite value and 2^16: IEEE rounds it to inf.
    EXPECT_EQ(f32_to(B(65520.0f), Format::f16, Round::nearest), 0x7C00u);
    EXPECT_EQ(f32_to(B(65520.0f), Format::f16, Round::zero), 0x7BFFu);
    EXPECT_EQ(f32_to(B(65520.0f), Format::f16, Round::down), 0x7BFFu);
    EXPECT_EQ(f32_to(B(65520.0f), Format::f16, Round::up), 0x7C00u);
    EXPECT_EQ(f32_to(B(-65520.0f), Format::f16, Round::nearest), 0xFC00u);
    EXPECT_EQ(f32_to(B(-65520.0f), Format::f16, Round::zero), 0xFBFFu);
    EXPECT_EQ(f32_to(B(-65520.0f), Format::f16, Round::down), 0xFC00u);
    EXPECT_EQ(f32_to(B(-65520.0f), Format::f16, Round::up), 0xFBFFu);
    EXPECT_EQ(f32_to(B(-1e6f), Format::f16, Round::zero), 0xFBFFu);
    // PTX ISA, cvt ".satfinite": beyond the largest finite value, infinities included, gives it.
    EXPECT_EQ(f32_to(B(1e6f), Format::f16, Round::nearest, true), 0x7BFFu);
    EXPECT_EQ(f32_to(B(INFINITY), Format::f16, Round::nearest, true), 0x7BFFu);
    EXPECT_EQ(f32_to(B(-INFINITY), Format::f16, Round::nearest, true), 0xFBFFu);
    EXPECT_EQ(f32_to(B(INFINITY), Format::f16, Round::zero), 0x7C00u);
    // Ties go to even.
    EXPECT_EQ(f32_to(0x3F801000u, Format::f16, Round::nearest), 0x3C00u);  // 1 + 2^-11
    EXPECT_EQ(f32_to(0x3F801000u, Format::f16, Round::up), 0x3C01u);
    EXPECT_EQ(f32_to(0x3F803000u, Format::f16, Round::nearest), 0x3C02u);  // 1 + 3 * 2^-11
    EXPECT_EQ(f32_to(0x3F801001u, Format::f16, Round::nearest), 0x3C01u);
    // Subnormals: 2^-25 is half the smallest one.
    EXPECT_EQ(f32_to(0x33000000u, Format::f16, Round::nearest), 0x0000u);
    EXPECT_EQ(f32_to(0x33000000u, Format::f16, Round::zero), 0x0000u);
    EXPECT_EQ(f32_to(0x33000000u, Format::f16, Round::up), 0x0001u);
    EXPECT_EQ(f32_to(0x33000001u, Format::f16, Round::nearest), 0x0001u);
    EXPECT_EQ(f32_to(0x33400000u, Format::f16, Round::nearest), 0x0001u);  // 0.75 * 2^-24
    EXPECT_EQ(f32_to(0xB3000000u, Format::f16, Round::nearest), 0x8000u);
    EXPECT_EQ(f32_to(0xB3000000u, Format::f16, Round::down), 0x8001u);
    EXPECT_EQ(f32_to(0xB3000000u, Format::f16, Round::up), 0x8000u);
    EXPECT_EQ(f32_to(0x387FE000u, Format::f16, Round::nearest), 0x0400u);  // 1023.5 * 2^-24: up to the smallest normal
    EXPECT_EQ(f32_to(0x387FE000u, Format::f16, Round::zero), 0x03FFu);
    EXPECT_EQ(f32_to(1u, Format::f16, Round::up), 0x0001u);
    EXPECT_EQ(f32_to(0x80000001u, Format::f16, Round::zero), 0x8000u);
    // NVIDIA's canonical f16 NaN (cuda_fp16.hpp's host conversion returns 0x7fff).
    EXPECT_EQ(f32_to(0x7FC00001u, Format::f16, Round::nearest), 0x7FFFu);
    EXPECT_EQ(f32_to(0xFF800001u, Format::f16, Round::zero, true), 0x7FFFu);
}

TEST(FloatFormatF16, FromF64RoundsOnce) {
    // 1 + 2^-11 + 2^-40 is above the tie: rounding to f32 first would make it a tie (and 1.0).
    EXPECT_EQ(f64_to(0x3FF0020000001000ull, Format::f16, Round::nearest), 0x3C01u);
    EXPECT_EQ(f64_to(0x3FF0020000000000ull, Format::f16, Round::nearest), 0x3C00u);
    EXPECT_EQ(f64_to(B(1e300), Format::f16, Round::zero), 0x7BFFu);
    EXPECT_EQ(f64_to(B(1e-300), Format::f16, Round::up), 0x0001u);
    EXPECT_EQ(f64_to(B(-1e-300), Format::f16, Round::nearest), 0x8000u);
}

TEST(FloatFormatF16, ToF32AndF64) {
    EXPECT_EQ(fp::convert(0x0001u, Format::f16, Format::f32, Round::nearest), 0x33800000u);
    EXPECT_EQ(fp::convert(0x03FFu, Format::f16, Format::f32, Round::nearest), 0x387FC000u);
    EXPECT_EQ(fp::convert(0x7BFFu, Format::f16, Format::f32, Round::nearest), 0x477FE000u);
    EXPECT_EQ(fp::convert(0x7C00u, Format::f16, Format::f32, Round::nearest), 0x7F800000u);
    EXPECT_EQ(fp::convert(0xFC00u, Format::f16, Format::f32, Round::nearest), 0xFF800000u);
    EXPECT_EQ(fp::convert(0x8000u, Format::f16, Format::f32, Round::nearest), 0x80000000u);
    // cuda_fp16.hpp's host __half2float discards a NaN's sign and payload: 0x7fffffff.
    EXPECT_EQ(fp::convert(0x7E01u, Format::f16, Format::f32, Round::nearest), 0x7FFFFFFFu);
    EXPECT_EQ(fp::convert(0xFE00u, Format::f16, Format::f32, Round::nearest), 0x7FFFFFFFu);
    EXPECT_EQ(fp::convert(0x0001u, Format::f16, Format::f64, Round::nearest), B(std::ldexp(1.0, -24)));
    EXPECT_EQ(fp::to_double(0xFBFFu, Format::f16), -65504.0);
    EXPECT_TRUE(fp::is_subnormal(0x83FFu, Format::f16));
    EXPECT_FALSE(fp::is_subnormal(0x0400u, Format::f16));
}

TEST(FloatFormatBf16, FromF32AtTheEdges) {
    EXPECT_EQ(f32_to(B(1.0f), Format::bf16, Round::nearest), 0x3F80u);
    EXPECT_EQ(f32_to(0x3F808000u, Format::bf16, Round::nearest), 0x3F80u);  // tie, to even
    EXPECT_EQ(f32_to(0x3F818000u, Format::bf16, Round::nearest), 0x3F82u);
    EXPECT_EQ(f32_to(0x3F808001u, Format::bf16, Round::nearest), 0x3F81u);
    EXPECT_EQ(f32_to(0x3F800001u, Format::bf16, Round::up), 0x3F81u);
    EXPECT_EQ(f32_to(0xBF800001u, Format::bf16, Round::down), 0xBF81u);
    EXPECT_EQ(f32_to(0xBF800001u, Format::bf16, Round::zero), 0xBF80u);
    EXPECT_EQ(f32_to(0x7F7FFFFFu, Format::bf16, Round::nearest), 0x7F80u);
    EXPECT_EQ(f32_to(0x7F7FFFFFu, Format::bf16, Round::zero), 0x7F7Fu);
    EXPECT_EQ(f32_to(0x7F7FFFFFu, Format::bf16, Round::nearest, true), 0x7F7Fu);
    EXPECT_EQ(f32_to(0xFF7FFFFFu, Format::bf16, Round::up), 0xFF7Fu);
    EXPECT_EQ(f32_to(0x00008000u, Format::bf16, Round::nearest), 0x0000u);  // half the smallest subnormal
    EXPECT_EQ(f32_to(0x00018000u, Format::bf16, Round::nearest), 0x0002u);
    EXPECT_EQ(f32_to(0x00000001u, Format::bf16, Round::up), 0x0001u);
    EXPECT_EQ(f32_to(0x00000001u, Format::bf16, Round::nearest), 0x0000u);
    EXPECT_EQ(f32_to(0x007FFFFFu, Format::bf16, Round::nearest), 0x0080u);  // up to the smallest normal
    // cuda_bf16.hpp's host conversion returns 0x7fff for a NaN.
    EXPECT_EQ(f32_to(0x7FC00001u, Format::bf16, Round::nearest), 0x7FFFu);
    EXPECT_EQ(f32_to(0xFF800001u, Format::bf16, Round::nearest), 0x7FFFu);
    EXPECT_EQ(fp::convert(0x0001u, Format::bf16, Format::f32, Round::nearest), 0x00010000u);
    EXPECT_EQ(fp::convert(0xFF80u, Format::bf16, Format::f32, Round::nearest), 0xFF800000u);
    EXPECT_EQ(fp::convert(0x7FC1u, Format::bf16, Format::f32, Round::nearest), 0x7FFFFFFFu);
    EXPECT_EQ(f64_to(B(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -50)), Format::bf16, Round::nearest), 0x3F81u);
}

// PTX ISA, cvt: .rna (to tf32) rounds to nearest, ties away from zero; the result is an f32 bit
// pattern with the low 13 bits zero.
TEST(FloatFormatTf32, RoundsTiesAwayFromZero) {
    EXPECT_EQ(f32_to(0x3F801000u, Format::tf32, Round::nearest_away), 0x3F802000u);
    EXPECT_EQ(f32_to(0x3F801000u, Format::tf32, Round::nearest), 0x3F800000u);
    EXPECT_EQ(f32_to(0x3F800FFFu, Format::tf32, Round::nearest_away), 0x3F800000u);
    EXPECT_EQ(f32_to(0xBF801000u, Format::tf32, Round::nearest_away), 0xBF802000u);
    EXPECT_EQ(f32_to(0x3F803000u, Format::tf32, Round::nearest_away), 0x3F804000u);
    EXPECT_EQ(f32_to(0x7F7FFFFFu, Format::tf32, Round::nearest_away), 0x7F800000u);
    EXPECT_EQ(f32_to(0x7F7FFFFFu, Format::tf32, Round::nearest_away, true), 0x7F7FE000u);
    EXPECT_EQ(f32_to(0x00001000u, Format::tf32, Round::nearest_away), 0x00002000u);
    EXPECT_EQ(f32_to(0x7FC00001u, Format::tf32, Round::nearest_away), 0x7FFFFFFFu);
    EXPECT_EQ(f32_to(0xFF800000u, Format::tf32, Round::nearest_away), 0xFF800000u);
}

// OCP 8-bit formats: e4m3 has no infinity (S.1111.111 is its NaN, 448 its largest value), e5m2
// is IEEE-like (57344 its largest value). NaN: 0x7f (cuda_fp8.hpp's host conversion).
TEST(FloatFormatFp8, E4m3AndE5m2) {
    EXPECT_EQ(f32_to(B(1.0f), Format::e4m3, Round::nearest, true), 0x38u);
    EXPECT_EQ(f32_to(B(448.0f), Format::e4m3, Round::nearest, true), 0x7Eu);
    EXPECT_EQ(f32_to(B(464.0f), Format::e4m3, Round::nearest, true), 0x7Eu);  // tie, to even
    EXPECT_EQ(f32_to(B(480.0f), Format::e4m3, Round::nearest, true), 0x7Eu);
    EXPECT_EQ(f32_to(B(480.0f), Format::e4m3, Round::nearest), 0x7Fu);  // overflow without .satfinite: NaN
    EXPECT_EQ(f32_to(B(1e9f), Format::e4m3, Round::nearest, true), 0x7Eu);
    EXPECT_EQ(f32_to(B(-1e9f), Format::e4m3, Round::nearest, true), 0xFEu);
    EXPECT_EQ(f32_to(B(INFINITY), Format::e4m3, Round::nearest, true), 0x7Eu);
    EXPECT_EQ(f32_to(B(-INFINITY), Format::e4m3, Round::nearest, true), 0xFEu);
    EXPECT_EQ(f32_to(0x7FC00000u, Format::e4m3, Round::nearest, true), 0x7Fu);
    EXPECT_EQ(f32_to(B(std::ldexp(1.0f, -9)), Format::e4m3, Round::nearest, true), 0x01u);
    EXPECT_EQ(f32_to(B(std::ldexp(1.0f, -10)), Format::e4m3, Round::nearest, true), 0x00u);
    EXPECT_EQ(f32_to(B(std::ldexp(1.5f, -9)), Format::e4m3, Round::nearest, true), 0x02u);
    EXPECT_EQ(f32_to(B(-std::ldexp(1.0f, -10)), Format::e4m3, Round::nearest, true), 0x80u);
    EXPECT_EQ(f32_to(B(1.0f), Format::e5m2, Round::nearest, true), 0x3Cu);
    EXPECT_EQ(f32_to(B(57344.0f), Format::e5m2, Round::nearest, true), 0x7Bu);
    EXPECT_EQ(f32_to(B(61440.0f), Format::e5m2, Round::nearest, true), 0x7Bu);
    EXPECT_EQ(f32_to(B(61440.0f), Format::e5m2, Round::nearest), 0x7Cu);
    EXPECT_EQ(f32_to(B(std::ldexp(1.0f, -16)), Format::e5m2, Round::nearest, true), 0x01u);
    EXPECT_EQ(f32_to(0xFFC00000u, Format::e5m2, Round::nearest, true), 0x7Fu);
    EXPECT_EQ(fp::convert(0x7Fu, Format::e4m3, Format::f16, Round::nearest), 0x7FFFu);
    EXPECT_EQ(fp::convert(0xFFu, Format::e4m3, Format::f16, Round::nearest), 0x7FFFu);
    EXPECT_EQ(fp::convert(0x01u, Format::e4m3, Format::f16, Round::nearest), 0x1800u);
    EXPECT_EQ(fp::convert(0x7Eu, Format::e4m3, Format::f16, Round::nearest), 0x5F00u);
    EXPECT_EQ(fp::convert(0xB8u, Format::e4m3, Format::f16, Round::nearest), 0xBC00u);
    EXPECT_EQ(fp::convert(0x80u, Format::e4m3, Format::f16, Round::nearest), 0x8000u);
    EXPECT_EQ(fp::convert(0x7Cu, Format::e5m2, Format::f16, Round::nearest), 0x7C00u);
    EXPECT_EQ(fp::convert(0x01u, Format::e5m2, Format::f16, Round::nearest), 0x0100u);
    EXPECT_EQ(fp::convert(0x3C00u, Format::f16, Format::e4m3, Round::nearest, true), 0x38u);
}

TEST(FloatFormatWidening, NaNsKeepTheirPayloadInF64) {
    EXPECT_EQ(fp::convert(0x7FC00001u, Format::f32, Format::f64, Round::nearest), 0x7FF8000020000000ull);
    EXPECT_EQ(fp::convert(0xFF800001u, Format::f32, Format::f64, Round::nearest), 0xFFF8000020000000ull);
    EXPECT_EQ(fp::convert(B(1.5f), Format::f32, Format::f64, Round::zero), B(1.5));
    EXPECT_EQ(fp::convert(1u, Format::f32, Format::f64, Round::nearest), B(std::ldexp(1.0, -149)));
    EXPECT_EQ(f64_to(0x7FF0000000000001ull, Format::f32, Round::nearest), 0x7FFFFFFFu);
}

TEST(FloatFormatNarrowing, F64ToF32InEveryMode) {
    EXPECT_EQ(f64_to(0x3FF0000010000000ull, Format::f32, Round::nearest), 0x3F800000u);  // 1 + 2^-24
    EXPECT_EQ(f64_to(0x3FF0000010000000ull, Format::f32, Round::up), 0x3F800001u);
    EXPECT_EQ(f64_to(0x3FF0000010000000ull, Format::f32, Round::zero), 0x3F800000u);
    EXPECT_EQ(f64_to(0x3FF0000030000000ull, Format::f32, Round::nearest), 0x3F800002u);  // 1 + 3 * 2^-24
    EXPECT_EQ(f64_to(0x3FF0000001000000ull, Format::f32, Round::up), 0x3F800001u);       // 1 + 2^-28
    EXPECT_EQ(f64_to(B(DBL_MAX), Format::f32, Round::nearest), 0x7F800000u);
    EXPECT_EQ(f64_to(B(DBL_MAX), Format::f32, Round::zero), 0x7F7FFFFFu);
    EXPECT_EQ(f64_to(B(-DBL_MAX), Format::f32, Round::up), 0xFF7FFFFFu);
    EXPECT_EQ(f64_to(0x3690000000000000ull, Format::f32, Round::nearest), 0u);  // 2^-150
    EXPECT_EQ(f64_to(0x3690000000000000ull, Format::f32, Round::up), 1u);
    EXPECT_EQ(f64_to(0x3690000000000001ull, Format::f32, Round::nearest), 1u);
    EXPECT_EQ(f64_to(0xB690000000000000ull, Format::f32, Round::down), 0x80000001u);
    EXPECT_EQ(f64_to(B(-0.0), Format::f32, Round::up), 0x80000000u);
}

TEST(FloatFormatIntegers, IntegersToFloats) {
    const std::uint64_t u64_max = ~std::uint64_t{0};
    EXPECT_EQ(fp::from_integer(false, (1u << 24) + 1, Format::f32, Round::nearest), 0x4B800000u);
    EXPECT_EQ(fp::from_integer(false, (1u << 24) + 1, Format::f32, Round::up), 0x4B800001u);
    EXPECT_EQ(fp::from_integer(false, (1u << 24) + 1, Format::f32, Round::zero), 0x4B800000u);
    EXPECT_EQ(fp::from_integer(false, (1u << 24) + 3, Format::f32, Round::nearest), 0x4B800002u);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f32, Round::nearest), 0x5F800000u);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f32, Round::zero), 0x5F7FFFFFu);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f32, Round::down), 0x5F7FFFFFu);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f32, Round::up), 0x5F800000u);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f64, Round::nearest), 0x43F0000000000000ull);
    EXPECT_EQ(fp::from_integer(false, u64_max, Format::f64, Round::zero), 0x43EFFFFFFFFFFFFFull);
    // INT64_MIN and INT64_MAX, negated.
    for (Round r : all_rounds) EXPECT_EQ(fp::from_integer(true, std::uint64_t{1} << 63, Format::f32, r), 0xDF000000u);
    const std::uint64_t int64_max = (std::uint64_t{1} << 63) - 1;
    EXPECT_EQ(fp::from_integer(true, int64_max, Format::f32, Round::nearest), 0xDF000000u);
    EXPECT_EQ(fp::from_integer(true, int64_max, Format::f32, Round::zero), 0xDEFFFFFFu);
    EXPECT_EQ(fp::from_integer(true, int64_max, Format::f32, Round::down), 0xDF000000u);
    EXPECT_EQ(fp::from_integer(true, int64_max, Format::f32, Round::up), 0xDEFFFFFFu);
    EXPECT_EQ(fp::from_integer(false, (std::uint64_t{1} << 53) + 1, Format::f64, Round::nearest),
              0x4340000000000000ull);
    EXPECT_EQ(fp::from_integer(false, (std::uint64_t{1} << 53) + 1, Format::f64, Round::up), 0x4340000000000001ull);
    EXPECT_EQ(fp::from_integer(false, 65504, Format::f16, Round::nearest), 0x7BFFu);
    EXPECT_EQ(fp::from_integer(false, 65520, Format::f16, Round::nearest), 0x7C00u);
    EXPECT_EQ(fp::from_integer(false, 65535, Format::f16, Round::zero), 0x7BFFu);
    EXPECT_EQ(fp::from_integer(true, 70000, Format::f16, Round::up), 0xFBFFu);
    EXPECT_EQ(fp::from_integer(false, 2049, Format::f16, Round::nearest), 0x6800u);
    EXPECT_EQ(fp::from_integer(false, 2051, Format::f16, Round::nearest), 0x6802u);
    EXPECT_EQ(fp::from_integer(true, 1, Format::f16, Round::nearest), 0xBC00u);
    EXPECT_EQ(fp::from_integer(false, 0, Format::f16, Round::down), 0x0000u);
    EXPECT_EQ(fp::from_integer(false, 257, Format::bf16, Round::nearest), 0x4380u);
    EXPECT_EQ(fp::from_integer(false, 259, Format::bf16, Round::nearest), 0x4382u);
}

// PTX ISA, cvt: float-to-integer conversions saturate to the destination's range; NaN gives 0.
TEST(FloatFormatIntegers, FloatsToIntegersSaturate) {
    auto s32 = [](double v, Round r) { return static_cast<std::int32_t>(fp::to_integer(v, r, 32, true)); };
    auto u32 = [](double v, Round r) { return static_cast<std::uint32_t>(fp::to_integer(v, r, 32, false)); };
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(s32(nan, Round::zero), 0);
    EXPECT_EQ(u32(nan, Round::nearest), 0u);
    EXPECT_EQ(fp::to_integer(nan, Round::down, 64, true), 0u);
    EXPECT_EQ(s32(2147483648.0, Round::zero), 2147483647);
    EXPECT_EQ(s32(-2147483648.0, Round::zero), -2147483647 - 1);
    EXPECT_EQ(s32(-2147483649.0, Round::zero), -2147483647 - 1);
    EXPECT_EQ(s32(2147483647.4, Round::nearest), 2147483647);
    EXPECT_EQ(s32(2147483647.5, Round::nearest), 2147483647);  // rounds to 2^31, then saturates
    EXPECT_EQ(s32(-2147483648.5, Round::up), -2147483647 - 1);
    EXPECT_EQ(s32(INFINITY, Round::zero), 2147483647);
    EXPECT_EQ(s32(-INFINITY, Round::zero), -2147483647 - 1);
    EXPECT_EQ(fp::to_integer(-2147483648.0, Round::zero, 32, true), 0xFFFFFFFF80000000ull);  // sign-extended bits
    EXPECT_EQ(u32(-0.5, Round::zero), 0u);
    EXPECT_EQ(u32(-1.0, Round::zero), 0u);
    EXPECT_EQ(u32(-0.5, Round::down), 0u);
    EXPECT_EQ(u32(4294967295.5, Round::nearest), 4294967295u);
    EXPECT_EQ(u32(4294967296.0, Round::zero), 4294967295u);
    EXPECT_EQ(u32(-INFINITY, Round::up), 0u);
    EXPECT_EQ(fp::to_integer(9223372036854775808.0, Round::zero, 64, true), 0x7FFFFFFFFFFFFFFFull);
    EXPECT_EQ(fp::to_integer(-9223372036854775808.0, Round::zero, 64, true), 0x8000000000000000ull);
    EXPECT_EQ(fp::to_integer(-1e30, Round::zero, 64, true), 0x8000000000000000ull);
    EXPECT_EQ(fp::to_integer(18446744073709551616.0, Round::zero, 64, false), ~std::uint64_t{0});
    EXPECT_EQ(fp::to_integer(18446744073709549568.0, Round::zero, 64, false), 0xFFFFFFFFFFFFF800ull);
    EXPECT_EQ(fp::to_integer(300.0, Round::zero, 8, false), 255u);
    EXPECT_EQ(fp::to_integer(-1.0, Round::zero, 8, false), 0u);
    EXPECT_EQ(fp::to_integer(200.0, Round::zero, 8, true), 127u);
    EXPECT_EQ(fp::to_integer(-200.0, Round::zero, 8, true), 0xFFFFFFFFFFFFFF80ull);
    EXPECT_EQ(fp::to_integer(70000.0, Round::zero, 16, false), 0xFFFFu);
    EXPECT_EQ(fp::to_integer(-40000.0, Round::zero, 16, true), 0xFFFFFFFFFFFF8000ull);
    // Each rounding on the ties of 2.5 and -2.5.
    EXPECT_EQ(s32(2.5, Round::nearest), 2);
    EXPECT_EQ(s32(3.5, Round::nearest), 4);
    EXPECT_EQ(s32(-2.5, Round::nearest), -2);
    EXPECT_EQ(s32(2.5, Round::zero), 2);
    EXPECT_EQ(s32(2.5, Round::down), 2);
    EXPECT_EQ(s32(2.5, Round::up), 3);
    EXPECT_EQ(s32(-2.5, Round::zero), -2);
    EXPECT_EQ(s32(-2.5, Round::down), -3);
    EXPECT_EQ(s32(-2.5, Round::up), -2);
    // A subnormal rounds up to 1 under .rpi (without .ftz: the cvt handler flushes first with it).
    EXPECT_EQ(s32(std::ldexp(1.0, -149), Round::up), 1);
    EXPECT_EQ(s32(-std::ldexp(1.0, -149), Round::down), -1);
}

TEST(FloatFormatIntegers, RoundIntegralKeepsTheSignOfZero) {
    auto bits = [](double v, Round r) { return B(fp::round_integral(v, r)); };
    EXPECT_EQ(fp::round_integral(2.5, Round::nearest), 2.0);
    EXPECT_EQ(fp::round_integral(-3.5, Round::nearest), -4.0);
    EXPECT_EQ(bits(-0.5, Round::nearest), 0x8000000000000000ull);
    EXPECT_EQ(bits(0.5, Round::nearest), 0ull);
    EXPECT_EQ(bits(-0.3, Round::zero), 0x8000000000000000ull);
    EXPECT_EQ(bits(-0.3, Round::up), 0x8000000000000000ull);
    EXPECT_EQ(bits(0.7, Round::down), 0ull);
    EXPECT_EQ(fp::round_integral(-0.7, Round::down), -1.0);
    EXPECT_EQ(fp::round_integral(4503599627370497.0, Round::nearest), 4503599627370497.0);
    EXPECT_EQ(fp::round_integral(4503599627370495.5, Round::nearest), 4503599627370496.0);
    EXPECT_EQ(fp::round_integral(1.5, Round::nearest_away), 2.0);
    EXPECT_EQ(fp::round_integral(-2.5, Round::nearest_away), -3.0);
    EXPECT_EQ(fp::round_integral(INFINITY, Round::up), INFINITY);
    EXPECT_TRUE(std::isnan(fp::round_integral(std::numeric_limits<double>::quiet_NaN(), Round::zero)));
}

// --- f16 and bf16 arithmetic ---------------------------------------------------------------------

fp::HalfMode f16(bool ftz = false, bool sat = false, bool relu = false) {
    return fp::HalfMode{Format::f16, ftz, sat, relu};
}
fp::HalfMode bf16(bool relu = false) { return fp::HalfMode{Format::bf16, false, false, relu}; }

TEST(FloatHalf, AddSubMulRoundOnce) {
    EXPECT_EQ(fp::half_add(0x3C00, 0x1000, f16()), 0x3C00u);  // 1 + 2^-11: tie, to even
    EXPECT_EQ(fp::half_add(0x3C01, 0x1000, f16()), 0x3C02u);
    EXPECT_EQ(fp::half_add(0x7BFF, 0x4C00, f16()), 0x7C00u);  // 65504 + 16 = 65520: to inf
    EXPECT_EQ(fp::half_sub(0xFBFF, 0x4C00, f16()), 0xFC00u);
    EXPECT_EQ(fp::half_add(0x7C00, 0xFC00, f16()), 0x7FFFu);
    EXPECT_EQ(fp::half_add(0x7E01, 0x3C00, f16()), 0x7FFFu);
    EXPECT_EQ(fp::half_add(0x8000, 0x8000, f16()), 0x8000u);
    EXPECT_EQ(fp::half_add(0x8000, 0x0000, f16()), 0x0000u);
    EXPECT_EQ(fp::half_sub(0x3C00, 0x3C00, f16()), 0x0000u);
    EXPECT_EQ(fp::half_add(0x0001, 0x0001, f16()), 0x0002u);
    EXPECT_EQ(fp::half_mul(0x0400, 0x3800, f16()), 0x0200u);  // 2^-14 * 0.5: subnormal
    EXPECT_EQ(fp::half_mul(0x0001, 0x3800, f16()), 0x0000u);  // 2^-25: tie, to even
    EXPECT_EQ(fp::half_mul(0x0003, 0x3800, f16()), 0x0002u);  // 1.5 ulp: tie, to even
    EXPECT_EQ(fp::half_mul(0x7C00, 0x0000, f16()), 0x7FFFu);
    EXPECT_EQ(fp::half_add(0x3F80, 0x3F00, bf16()), 0x3FC0u);  // 1 + 0.5
    EXPECT_EQ(fp::half_add(0x3F80, 0x3B80, bf16()), 0x3F80u);  // 1 + 2^-8: tie, to even
    EXPECT_EQ(fp::half_add(0x3F80, 0x3B81, bf16()), 0x3F81u);  // 1 + 2^-8(1 + 2^-7): above the tie
    EXPECT_EQ(fp::half_mul(0x7F7F, 0x4000, bf16()), 0x7F80u);
    EXPECT_EQ(fp::half_mul(0xFFC1, 0x3F80, bf16()), 0x7FFFu);
    EXPECT_EQ(fp::half_add(0x0001, 0x0001, bf16()), 0x0002u);  // bf16 subnormals are kept
}

// PTX ISA, add/mul/fma .f16 "Subnormal numbers": .ftz flushes subnormal inputs and results to
// sign-preserving zero. .sat clamps to [0.0, 1.0] (NaN to +0.0).
TEST(FloatHalf, FtzSatRelu) {
    EXPECT_EQ(fp::half_add(0x0001, 0x0001, f16(true)), 0x0000u);
    EXPECT_EQ(fp::half_add(0x8001, 0x8001, f16(true)), 0x8000u);
    EXPECT_EQ(fp::half_mul(0x0400, 0x3800, f16(true)), 0x0000u);
    EXPECT_EQ(fp::half_mul(0x8400, 0x3800, f16(true)), 0x8000u);
    EXPECT_EQ(fp::half_add(0x0400, 0x0000, f16(true)), 0x0400u);
    EXPECT_EQ(fp::half_add(0x3C00, 0x3C00, f16(false, true)), 0x3C00u);
    EXPECT_EQ(fp::half_add(0xBC00, 0x3800, f16(false, true)), 0x0000u);
    EXPECT_EQ(fp::half_add(0x7C00, 0xFC00, f16(false, true)), 0x0000u);
    EXPECT_EQ(fp::half_mul(0x3800, 0x3800, f16(false, true)), 0x3400u);
    // PTX ISA, fma .relu: a negative result is clamped to 0; NaN gives the canonical NaN.
    EXPECT_EQ(fp::half_fma(0xBC00, 0x3C00, 0x3800, f16(false, false, true)), 0x0000u);
    EXPECT_EQ(fp::half_fma(0x7C00, 0x0000, 0x3C00, f16(false, false, true)), 0x7FFFu);
    EXPECT_EQ(fp::half_fma(0x3C00, 0x3C00, 0x3800, f16(false, false, true)), 0x3E00u);
    EXPECT_EQ(fp::half_fma(0xBF80, 0x3F80, 0x3F00, bf16(true)), 0x0000u);
}

TEST(FloatHalf, FmaRoundsOnce) {
    EXPECT_EQ(fp::half_fma(0x3C00, 0x3C00, 0x3C00, f16()), 0x4000u);
    // 1.5 * 1.333984375 = 2 + 2^-10, a tie at f16's precision; c decides.
    EXPECT_EQ(fp::half_fma(0x3E00, 0x3D56, 0x0000, f16()), 0x4000u);
    EXPECT_EQ(fp::half_fma(0x3E00, 0x3D56, 0x0001, f16()), 0x4001u);
    EXPECT_EQ(fp::half_fma(0x3E00, 0x3D56, 0x8001, f16()), 0x4000u);
    // A product of subnormals (2^-48) beside 32768: more than a double's 53 bits, rounded harmlessly.
    EXPECT_EQ(fp::half_fma(0x0001, 0x0001, 0x7800, f16()), 0x7800u);
    EXPECT_EQ(fp::half_fma(0x8001, 0x0001, 0x7800, f16()), 0x7800u);
    EXPECT_EQ(fp::half_fma(0x8001, 0x0001, 0x0000, f16()), 0x8000u);
    // bf16: 1.0234375 * 1.5 is a tie at bf16's precision; c = 2^-133 (the smallest subnormal) is
    // 134 binades below, out of a double's reach: the sum must not round to the tie first.
    EXPECT_EQ(fp::half_fma(0x3F83, 0x3FC0, 0x0000, bf16()), 0x3FC4u);
    EXPECT_EQ(fp::half_fma(0x3F83, 0x3FC0, 0x0001, bf16()), 0x3FC5u);
    EXPECT_EQ(fp::half_fma(0x3F83, 0x3FC0, 0x8001, bf16()), 0x3FC4u);
    EXPECT_EQ(fp::half_fma(0xBF83, 0x3FC0, 0x0001, bf16()), 0xBFC4u);
    EXPECT_EQ(fp::half_fma(0xBF83, 0x3FC0, 0x8001, bf16()), 0xBFC5u);
}

TEST(FloatHalf, SumToOddPreservesTheStickyBit) {
    const double tiny = std::ldexp(1.0, -300);
    const double s = fp::sum_to_odd(1.0, tiny);
    EXPECT_EQ(B(s), B(1.0) | 1u);
    EXPECT_EQ(B(fp::sum_to_odd(1.0, -tiny)), B(std::nextafter(1.0, 0.0)));  // 1 - 2^-53 is odd already
    EXPECT_EQ(fp::sum_to_odd(1.0, 2.0), 3.0);
    EXPECT_EQ(fp::sum_to_odd(INFINITY, 1.0), INFINITY);
}

TEST(FloatHalf, MinMaxNegAbs) {
    const fp::MinMax plain{}, nan{false, true, false}, xorsign{false, false, true};
    EXPECT_EQ(fp::half_min_max(0x7E00, 0x3C00, false, f16(), plain), 0x3C00u);
    EXPECT_EQ(fp::half_min_max(0x3C00, 0x7E00, true, f16(), plain), 0x3C00u);
    EXPECT_EQ(fp::half_min_max(0x7E00, 0xFE01, false, f16(), plain), 0x7FFFu);
    EXPECT_EQ(fp::half_min_max(0x7E00, 0x3C00, false, f16(), nan), 0x7FFFu);
    EXPECT_EQ(fp::half_min_max(0x8000, 0x0000, false, f16(), plain), 0x8000u);
    EXPECT_EQ(fp::half_min_max(0x0000, 0x8000, true, f16(), plain), 0x0000u);
    EXPECT_EQ(fp::half_min_max(0xC200, 0x4000, false, f16(), xorsign), 0xC000u);
    EXPECT_EQ(fp::half_min_max(0x8001, 0x0001, false, f16(true), plain), 0x8000u);
    EXPECT_EQ(fp::half_min_max(0xFFC1, 0x3F80, false, bf16(), plain), 0x3F80u);
    EXPECT_EQ(fp::half_min_max(0x3F80, 0x4000, true, bf16(), plain), 0x4000u);
    EXPECT_EQ(fp::half_min_max(0x0001, 0x0002, false, bf16(), plain), 0x0001u);
    EXPECT_EQ(fp::half_neg(0x3C00, f16()), 0xBC00u);
    EXPECT_EQ(fp::half_neg(0x7E01, f16()), 0x7FFFu);
    EXPECT_EQ(fp::half_neg(0x0001, f16()), 0x8001u);
    EXPECT_EQ(fp::half_neg(0x0001, f16(true)), 0x8000u);
    EXPECT_EQ(fp::half_abs(0xFC00, f16()), 0x7C00u);
    EXPECT_EQ(fp::half_abs(0x8001, f16(true)), 0x0000u);
    EXPECT_EQ(fp::half_abs(0xFFC0, bf16()), 0x7FFFu);
    EXPECT_EQ(fp::half_abs(0x8001, bf16()), 0x0001u);
}

TEST(FloatHalf, Approximations) {
    EXPECT_EQ(fp::half_ex2_approx(0x3C00, f16()), 0x4000u);
    EXPECT_EQ(fp::half_ex2_approx(0xFC00, f16()), 0x0000u);
    EXPECT_EQ(fp::half_ex2_approx(0x4C00, f16()), 0x7C00u);  // 2^16 overflows
    EXPECT_EQ(fp::half_ex2_approx(0xCE00, f16()), 0x0001u);  // 2^-24
    EXPECT_EQ(fp::half_ex2_approx(0x7E00, f16()), 0x7FFFu);
    EXPECT_EQ(fp::half_ex2_approx(0xC302, fp::HalfMode{Format::bf16, true, false, false}), 0x0000u);  // 2^-130, flushed
    EXPECT_EQ(fp::half_ex2_approx(0xC302, bf16()), 0x0008u);
    EXPECT_EQ(fp::half_tanh_approx(0x8000, f16()), 0x8000u);
    EXPECT_EQ(fp::half_tanh_approx(0x7C00, f16()), 0x3C00u);
    EXPECT_EQ(fp::half_tanh_approx(0xFF80, bf16()), 0xBF80u);
    EXPECT_EQ(fp::half_tanh_approx(0x7FC0, bf16()), 0x7FFFu);
    EXPECT_EQ(fp::half_value(0x0001, f16(true)), 0.0);
    EXPECT_EQ(fp::half_value(0x0001, f16()), std::ldexp(1.0, -24));
}

// --- sweeps against independent references ----------------------------------------------------

#if defined(__FLT16_MAX__)
std::uint16_t host_f16(float v) {
    const _Float16 h = static_cast<_Float16>(v);
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}
std::uint16_t host_f16(double v) {
    const _Float16 h = static_cast<_Float16>(v);
    std::uint16_t b;
    std::memcpy(&b, &h, 2);
    return b;
}

// The compiler's _Float16 conversions (libgcc's soft-fp) round in the host's rounding mode.
TEST(FloatSweep, F32AndF64ToF16MatchTheCompilersConversions) {
    const HostRounding restore;
    std::mt19937_64 random(20240611);
    for (Round r : all_rounds) {
        std::fesetround(host_mode(r));
        for (int i = 0; i < 200000; ++i) {
            // Exponents around f16's range, every significand pattern.
            const std::uint32_t bits = static_cast<std::uint32_t>(random());
            const std::uint32_t exponent = 97 + static_cast<std::uint32_t>(random() % 52);  // 2^-30 .. 2^21
            const std::uint32_t f = (bits & 0x807FFFFFu) | (exponent << 23);
            volatile float v = fp::f32_of(f);
            ASSERT_EQ(f32_to(f, Format::f16, r), host_f16(float(v))) << std::hex << f << " mode " << int(r);
            const std::uint64_t d = (random() & 0x800FFFFFFFFFFFFFull) | (std::uint64_t(exponent + 896) << 52);
            volatile double w = fp::f64_of(d);
            ASSERT_EQ(f64_to(d, Format::f16, r), host_f16(double(w))) << std::hex << d << " mode " << int(r);
        }
    }
}

double host_value(std::uint16_t h) {
    _Float16 v;
    std::memcpy(&v, &h, 2);
    return static_cast<double>(v);
}

// f16 sums and products are exact in double: the compiler's conversion of the exact result is
// the correctly rounded one to compare with. fma is compared where its result is exact in double.
TEST(FloatSweep, F16ArithmeticMatchesTheRoundedExactResult) {
    std::mt19937_64 random(3);
    for (int i = 0; i < 300000; ++i) {
        const auto a = static_cast<std::uint16_t>(random()), b = static_cast<std::uint16_t>(random()),
                   c = static_cast<std::uint16_t>(random());
        const double x = host_value(a), y = host_value(b), z = host_value(c);
        auto expect = [](double exact) { return std::isnan(exact) ? std::uint16_t{0x7FFF} : host_f16(exact); };
        ASSERT_EQ(fp::half_add(a, b, f16()), expect(x + y)) << std::hex << a << " + " << b;
        ASSERT_EQ(fp::half_sub(a, b, f16()), expect(x - y)) << std::hex << a << " - " << b;
        ASSERT_EQ(fp::half_mul(a, b, f16()), expect(x * y)) << std::hex << a << " * " << b;
        const double product = x * y, sum = product + z;
        const double part = sum - product, error = (product - (sum - part)) + (z - part);  // TwoSum
        if (std::isfinite(sum) && error == 0) {
            ASSERT_EQ(fp::half_fma(a, b, c, f16()), expect(sum)) << std::hex << a << " " << b << " " << c;
        }
    }
}

TEST(FloatSweep, EveryF16ToF32IsExact) {
    for (std::uint32_t h = 0; h < 0x10000u; ++h) {
        _Float16 v;
        const auto b = static_cast<std::uint16_t>(h);
        std::memcpy(&v, &b, 2);
        const float f = static_cast<float>(v);
        const std::uint64_t want = std::isnan(f) ? 0x7FFFFFFFu : B(f);
        ASSERT_EQ(fp::convert(h, Format::f16, Format::f32, Round::nearest), want) << std::hex << h;
    }
}
#endif

// bf16 is the top half of an f32: rounding is on the low 16 bits alone.
std::uint16_t reference_bf16(std::uint32_t f, Round r) {
    const std::uint32_t low = f & 0xFFFFu, high = f >> 16;
    const bool negative = (f >> 31) != 0;
    bool up = false;
    switch (r) {
        case Round::nearest: up = low > 0x8000u || (low == 0x8000u && (high & 1u) != 0); break;
        case Round::zero: break;
        case Round::down: up = negative && low != 0; break;
        case Round::up: up = !negative && low != 0; break;
        default: break;
    }
    return static_cast<std::uint16_t>(high + (up ? 1u : 0u));
}

// bf16 products are exact in double, and so are the sums tested here (those an f32 holds): the
// rounding of their f32 bits is the reference.
TEST(FloatSweep, Bf16ArithmeticMatchesTheRoundedExactResult) {
    std::mt19937_64 random(5);
    auto value = [](std::uint16_t h) { return static_cast<double>(fp::f32_of(std::uint32_t{h} << 16)); };
    for (int i = 0; i < 300000; ++i) {
        // Exponents within 2^-20 .. 2^20 of each other, so that many sums fit an f32.
        auto operand = [&] {
            const auto bits = static_cast<std::uint16_t>(random());
            return static_cast<std::uint16_t>((bits & 0x807Fu) | ((107u + random() % 40u) << 7));
        };
        const std::uint16_t a = operand(), b = operand();
        const double x = value(a), y = value(b);
        ASSERT_EQ(fp::half_mul(a, b, bf16()), reference_bf16(B(static_cast<float>(x * y)), Round::nearest))
            << std::hex << a << " * " << b;
        const double sum = x + y;
        if (static_cast<double>(static_cast<float>(sum)) == sum && sum - x == y) {
            ASSERT_EQ(fp::half_add(a, b, bf16()), reference_bf16(B(static_cast<float>(sum)), Round::nearest))
                << std::hex << a << " + " << b;
        }
    }
}

TEST(FloatSweep, F32ToBf16MatchesTruncationOfTheLowHalf) {
    std::mt19937_64 random(7);
    for (Round r : all_rounds) {
        for (int i = 0; i < 400000; ++i) {
            const auto f = static_cast<std::uint32_t>(random());
            if ((f & 0x7F800000u) == 0x7F800000u) continue;  // infinities and NaNs: goldens above
            ASSERT_EQ(f32_to(f, Format::bf16, r), reference_bf16(f, r)) << std::hex << f << " mode " << int(r);
        }
    }
}

// The host's own conversions (cvtsi2ss and friends) round in its rounding mode.
TEST(FloatSweep, IntegersAndF64ToF32AndF64MatchTheHost) {
    const HostRounding restore;
    std::mt19937_64 random(11);
    for (Round r : all_rounds) {
        std::fesetround(host_mode(r));
        for (int i = 0; i < 200000; ++i) {
            const std::uint64_t u = random() >> (random() % 64);
            const auto s = static_cast<std::int64_t>(random()) >> (random() % 64);
            const std::uint64_t magnitude = s < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(s) : std::uint64_t(s);
            volatile std::uint64_t vu = u;
            volatile std::int64_t vs = s;
            ASSERT_EQ(fp::from_integer(false, u, Format::f32, r), B(static_cast<float>(vu))) << u;
            ASSERT_EQ(fp::from_integer(false, u, Format::f64, r), B(static_cast<double>(vu))) << u;
            ASSERT_EQ(fp::from_integer(s < 0, magnitude, Format::f32, r), B(static_cast<float>(vs))) << s;
            ASSERT_EQ(fp::from_integer(s < 0, magnitude, Format::f64, r), B(static_cast<double>(vs))) << s;
            const std::uint64_t d = random();
            volatile double w = fp::f64_of(d);
            if (std::isnan(w)) continue;
            ASSERT_EQ(f64_to(d, Format::f32, r), B(static_cast<float>(w))) << std::hex << d;
        }
    }
}

}  // namespace

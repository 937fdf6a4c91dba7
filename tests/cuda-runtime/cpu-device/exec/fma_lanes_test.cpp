// fma_rn_lanes (exec/ops/fma_lanes.hpp), the warp-wide fma.rn.f32: the same bits as fma_rn<false>
// lane by lane (one rounding: a product whose low bits a separate multiply would round away, NaN
// canonical, signed zeros, subnormals, overflow), only the active lanes written, and a destination
// that is one of its sources.
#include "exec/ops/fma_lanes.hpp"
#include "exec/ops/float_semantics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace fp = xcuda::cpu::fp;

namespace {

float F(std::uint32_t b) { return fp::f32_of(b); }

// Operands where fused and unfused differ, and IEEE's edges, then random bit patterns.
void fill(float (&a)[32], float (&b)[32], float (&c)[32], unsigned seed) {
    const float edges[][3] = {
        {1.0f + F(0x34000000u), 1.0f - F(0x34000000u), -1.0f},  // 1 - 2^-46: lost unfused
        {F(0x3F800001u), F(0x3F800001u), -F(0x3F800002u)},
        {0.0f, INFINITY, 1.0f},  // NaN: canonical
        {F(0x7FC00001u), 1.0f, 1.0f},
        {-0.0f, 1.0f, -0.0f},
        {F(0x00400000u), 2.0f, F(0x00400000u)},   // subnormals kept (no .ftz)
        {F(0x7F7FFFFFu), 2.0f, -F(0x7F7FFFFFu)},  // fused: no overflow
        {F(0x7F7FFFFFu), 2.0f, 0.0f},             // overflow to inf
    };
    std::mt19937 rng(seed);
    for (unsigned l = 0; l < 32; ++l) {
        if (l < sizeof edges / sizeof edges[0]) {
            a[l] = edges[l][0], b[l] = edges[l][1], c[l] = edges[l][2];
        } else {
            a[l] = F(rng()), b[l] = F(rng()), c[l] = F(rng());
        }
    }
}

TEST(FmaLanes, GivesFmaRnBitsInEveryActiveLaneAndLeavesTheOthers) {
    const fp::Environment env;
    for (unsigned seed = 0; seed < 64; ++seed) {
        float a[32], b[32], c[32], d[32];
        fill(a, b, c, seed);
        const std::uint32_t mask = seed == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(std::mt19937(seed)());
        for (unsigned l = 0; l < 32; ++l) d[l] = F(0x12345678u);
        fp::fma_rn_lanes(d, a, b, c, mask);
        for (unsigned l = 0; l < 32; ++l) {
            const std::uint32_t want =
                (mask >> l) & 1u ? fp::bits_of(fp::fma_rn<false>(a[l], b[l], c[l])) : 0x12345678u;
            EXPECT_EQ(fp::bits_of(d[l]), want) << "lane " << l << ", seed " << seed;
        }
    }
}

TEST(FmaLanes, FusesWhereASeparateMultiplyWouldRound) {
    const fp::Environment env;
    float a[32], b[32], c[32], d[32];
    fill(a, b, c, 1);
    fp::fma_rn_lanes(d, a, b, c, 0xFFFFFFFFu);
    EXPECT_EQ(fp::bits_of(d[0]), fp::bits_of(-F(0x28800000u)));  // -2^-46, not 0
    EXPECT_EQ(fp::bits_of(d[2]), 0x7FFFFFFFu);
    EXPECT_EQ(fp::bits_of(d[3]), 0x7FFFFFFFu);
    EXPECT_EQ(fp::bits_of(d[4]), 0x80000000u);
    EXPECT_EQ(fp::bits_of(d[6]), 0x7F7FFFFFu);
    EXPECT_EQ(fp::bits_of(d[7]), 0x7F800000u);
}

TEST(FmaLanes, ADestinationThatIsASourceReadsItsOldValue) {
    const fp::Environment env;
    float a[32], b[32], c[32], want[32];
    fill(a, b, c, 7);
    for (unsigned l = 0; l < 32; ++l) want[l] = fp::fma_rn<false>(a[l], b[l], c[l]);
    fp::fma_rn_lanes(c, a, b, c, 0xFFFFFFFFu);  // fma.rn.f32 %f2, %f0, %f1, %f2: an accumulator
    for (unsigned l = 0; l < 32; ++l) EXPECT_EQ(fp::bits_of(c[l]), fp::bits_of(want[l])) << "lane " << l;
}

}  // namespace

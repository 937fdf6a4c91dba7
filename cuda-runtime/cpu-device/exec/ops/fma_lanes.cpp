#include "exec/ops/fma_lanes.hpp"

#include "exec/ops/float_semantics.hpp"

#include <cmath>

namespace xcuda::cpu::fp {
namespace {

// The active lanes of `r` (all 32 computed into a buffer first, so that `d` may alias a source and
// the loops need no alias checks) into `d`.
inline void store_lanes(float* d, const float (&r)[32], std::uint32_t mask) noexcept {
    if (mask == 0xFFFFFFFFu) {
        for (unsigned l = 0; l < 32; ++l) d[l] = r[l];
    } else {
        for (unsigned l = 0; l < 32; ++l) {
            if ((mask >> l) & 1u) d[l] = r[l];
        }
    }
}

void with_libm(float* d, const float* a, const float* b, const float* c, std::uint32_t mask) noexcept {
    float r[32];
    for (unsigned l = 0; l < 32; ++l) {
        const float v = std::fma(a[l], b[l], c[l]);
        r[l] = v != v ? f32_of(canonical_nan_f32) : v;
    }
    store_lanes(d, r, mask);
}

#if defined(__x86_64__) && defined(__GNUC__)
// Compiled for FMA3 (and AVX2, 8 lanes a vector): __builtin_fmaf becomes vfmadd, which rounds once
// in MXCSR's mode, exactly what libm's fmaf computes (on such a CPU with that same instruction). The
// loop is written out here, not shared with with_libm, so that it is compiled with this target.
__attribute__((target("avx2,fma"))) void with_fma3(float* d, const float* a, const float* b, const float* c,
                                                   std::uint32_t mask) noexcept {
    float r[32];
    for (unsigned l = 0; l < 32; ++l) {
        const float v = __builtin_fmaf(a[l], b[l], c[l]);
        r[l] = v != v ? f32_of(canonical_nan_f32) : v;
    }
    store_lanes(d, r, mask);
}

using Lanes = void (*)(float*, const float*, const float*, const float*, std::uint32_t) noexcept;
Lanes choose() noexcept {
    __builtin_cpu_init();
    return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2") ? with_fma3 : with_libm;
}
#endif

}  // namespace

void fma_rn_lanes(float* d, const float* a, const float* b, const float* c, std::uint32_t mask) noexcept {
#if defined(__x86_64__) && defined(__GNUC__)
    static const Lanes chosen = choose();
    chosen(d, a, b, c, mask);
#else
    with_libm(d, a, b, c, mask);
#endif
}

}  // namespace xcuda::cpu::fp

// fma.rn.f32 over a warp's lanes without a call per lane: the host's fused multiply-add
// instruction where the CPU has one (chosen once, at load), libm's fmaf otherwise. Both round once,
// as IEEE 754's fusedMultiplyAdd and the GPU's FFMA do, so the bits are the same either way.
#pragma once

#include <cstdint>

namespace xcuda::cpu::fp {

// d[l] = fma_rn<false>(a[l], b[l], c[l]) (float_semantics.hpp: a NaN result is the canonical one)
// for each lane l in `mask`. `d` may be one of the sources. The caller runs in round-to-nearest
// without flush-to-zero (an fp::Environment), as every float handler does.
void fma_rn_lanes(float* d, const float* a, const float* b, const float* c, std::uint32_t mask) noexcept;

}  // namespace xcuda::cpu::fp

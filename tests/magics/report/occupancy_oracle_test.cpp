// Cross-checks occupancy() against NVIDIA's own calculator, the header-only
// cuda_occupancy.h of the CUDA Toolkit (plain C++, no runtime needed), over a sweep of
// registers, block sizes and shared memory for every architecture in the built-in table.
// Built only when the toolkit's include directory is present.
#include <gtest/gtest.h>

#include <cuda_occupancy.h>

#include <algorithm>
#include <climits>

#include "xcuda/report/occupancy.hpp"

using namespace xcuda::report;

namespace {

cudaOccDeviceProp props_of(const DeviceLimits& l, int major, int minor) {
    cudaOccDeviceProp p;
    p.computeMajor = major;
    p.computeMinor = minor;
    p.maxThreadsPerBlock = l.max_threads_per_block;
    p.maxThreadsPerMultiprocessor = l.max_threads_per_sm;
    p.regsPerBlock = l.regs_per_block;
    p.regsPerMultiprocessor = l.regs_per_sm;
    p.warpSize = l.warp_size;
    p.sharedMemPerBlock = 48 * 1024;
    p.sharedMemPerMultiprocessor = l.shared_per_sm;
    p.numSms = 132;
    p.sharedMemPerBlockOptin = l.shared_per_block_optin;
    p.reservedSharedMemPerBlock = l.shared_reserved_per_block;
    return p;
}

unsigned limiter_bits(const Occupancy& o) {
    unsigned bits = 0;
    for (auto lim : o.limiters) {
        switch (lim) {
            case Limiter::block_size: bits |= OCC_LIMIT_WARPS; break;
            case Limiter::registers: bits |= OCC_LIMIT_REGISTERS; break;
            case Limiter::shared_memory: bits |= OCC_LIMIT_SHARED_MEMORY; break;
            case Limiter::blocks_per_sm: bits |= OCC_LIMIT_BLOCKS; break;
        }
    }
    return bits;
}

}  // namespace

TEST(OccupancyOracle, MatchesCudaOccupancyHeaderOverASweep) {
    int checked = 0;
    for (const auto& arch : known_archs()) {
        const DeviceLimits l = *limits_for_arch(arch);
        const int cc = std::stoi(arch.substr(3));
        const cudaOccDeviceProp props = props_of(l, cc / 10, cc % 10);
        for (int regs : {0, 16, 24, 32, 37, 40, 48, 64, 72, 96, 128, 168, 200, 255}) {
            for (int block : {32, 64, 96, 128, 192, 256, 320, 384, 512, 640, 768, 1024}) {
                for (std::size_t shared : {std::size_t(0), std::size_t(1000), std::size_t(4096), std::size_t(12 * 1024),
                                           std::size_t(40 * 1024), std::size_t(64 * 1024), std::size_t(99 * 1024)}) {
                    if (shared > l.shared_per_block_optin) continue;
                    cudaOccFuncAttributes attr;
                    attr.maxThreadsPerBlock = INT_MAX;
                    attr.numRegs = regs;
                    attr.sharedSizeBytes = shared;
                    attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;  // the whole opt-in limit, as we model
                    attr.maxDynamicSharedSizeBytes = l.shared_per_block_optin - shared;
                    attr.numBlockBarriers = 0;
                    cudaOccDeviceState state;
                    cudaOccResult result{};
                    ASSERT_EQ(cudaOccMaxActiveBlocksPerMultiprocessor(&result, &props, &attr, &state, block, 0),
                              CUDA_OCC_SUCCESS)
                        << arch << " regs " << regs << " block " << block << " shared " << shared;
                    const Occupancy o = occupancy(l, regs, shared, block, 0);
                    ASSERT_EQ(o.active_blocks, result.activeBlocksPerMultiprocessor)
                        << arch << " regs " << regs << " block " << block << " shared " << shared;
                    if (o.active_blocks > 0) {
                        ASSERT_EQ(limiter_bits(o), result.limitingFactors & 0x0F)
                            << arch << " regs " << regs << " block " << block << " shared " << shared;
                    }
                    ++checked;
                }
            }
        }
    }
    EXPECT_GT(checked, 10000);
}

// Occupancy on the emulated sm_90, checked against values worked out by hand from the CUDA
// occupancy calculator's rules: 64 warps, 32 blocks and 64K registers per SM (registers in
// 256-register units per warp, four sub-partitions), 228 KiB of shared memory per SM in 128-byte
// units with 1 KiB reserved per block.
#include "driver_test_support.hpp"

namespace xcuda::cpu::testing {
namespace {

class Occupancy : public DriverTest {
protected:
    void SetUp() override {
        DriverTest::SetUp();
        ASSERT_EQ(drv::cuModuleLoadDataEx(&kernels,
                                          "kernel r32 regs=32\n"
                                          "kernel r64 regs=64\n"
                                          "kernel r72 regs=72\n"
                                          "kernel r255 regs=255\n"
                                          "kernel r0 regs=0\n"
                                          "kernel smem regs=32 shared=20000\n"
                                          "kernel bounded regs=32 maxntid=128\n",
                                          0, nullptr, nullptr),
                  CUDA_SUCCESS);
    }
    void TearDown() override {
        EXPECT_EQ(drv::cuModuleUnload(kernels), CUDA_SUCCESS);
        DriverTest::TearDown();
    }
    CUfunction get(const char* name) {
        CUfunction f = nullptr;
        EXPECT_EQ(drv::cuModuleGetFunction(&f, kernels, name), CUDA_SUCCESS);
        return f;
    }
    int blocks(const char* name, int block, std::size_t shared = 0) {
        int n = -1;
        EXPECT_EQ(drv::cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, get(name), block, shared), CUDA_SUCCESS);
        return n;
    }
    CUmodule kernels = nullptr;
};

TEST_F(Occupancy, ActiveBlocksPerSm) {
    EXPECT_EQ(blocks("r32", 256), 8);  // 8 warps a block: 64 warps / 8
    EXPECT_EQ(blocks("r32", 32), 32);  // the 32 blocks per SM limit
    EXPECT_EQ(blocks("r32", 1024), 2);
    EXPECT_EQ(blocks("r64", 1024), 1);  // 2048 registers a warp: 32 warps fit
    EXPECT_EQ(blocks("r64", 256), 4);
    EXPECT_EQ(blocks("r72", 256), 3);   // 2304 a warp: 7 warps per sub-partition, 28 per SM
    EXPECT_EQ(blocks("r255", 128), 2);  // 8192 a warp: 2 warps per sub-partition
    EXPECT_EQ(blocks("r0", 64), 32);
    EXPECT_EQ(blocks("r32", 100), 16);  // 4 warps allocated for 100 threads
}

TEST_F(Occupancy, SharedMemoryLimits) {
    // 48 KiB + 1 KiB reserved = 50176 bytes a block: 4 fit in 228 KiB.
    EXPECT_EQ(blocks("r32", 128, 48 * 1024), 4);
    // 20000 static + 1024 reserved, rounded to 128: 21120 a block: 11 fit.
    EXPECT_EQ(blocks("smem", 64), 11);
    EXPECT_EQ(blocks("r32", 128, 48 * 1024 + 1), 0);  // past the kernel's dynamic limit
    ASSERT_EQ(drv::cuFuncSetAttribute(get("r32"), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024),
              CUDA_SUCCESS);
    EXPECT_EQ(blocks("r32", 128, 100 * 1024), 2);  // 101 KiB a block
    // A carveout preference smaller than a block needs is rounded up to what one block needs.
    ASSERT_EQ(drv::cuFuncSetAttribute(get("r32"), CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 0), CUDA_SUCCESS);
    EXPECT_EQ(blocks("r32", 128, 100 * 1024), 1);
}

TEST_F(Occupancy, BlocksTooLargeForTheKernelFitNowhere) {
    EXPECT_EQ(blocks("r72", 1024), 0);  // 72 registers allow 896 threads a block
    EXPECT_EQ(blocks("bounded", 256), 0);
    int max_threads = 0;
    ASSERT_EQ(drv::cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, get("r72")), CUDA_SUCCESS);
    EXPECT_EQ(max_threads, 896);
    ASSERT_EQ(drv::cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, get("r255")),
              CUDA_SUCCESS);
    EXPECT_EQ(max_threads, 256);
    int n = 0;
    EXPECT_EQ(drv::cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, get("r32"), 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, get("r32"), 32, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, reinterpret_cast<CUfunction>(&n), 32, 0),
              CUDA_ERROR_INVALID_HANDLE);
}

size_t shared_for(int block_size) { return static_cast<size_t>(block_size) * 64; }

TEST_F(Occupancy, PotentialBlockSize) {
    int grid = 0, block = 0;
    ASSERT_EQ(drv::cuOccupancyMaxPotentialBlockSize(&grid, &block, get("r32"), nullptr, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(block, 1024);  // 2 blocks of 1024 fill the SM
    EXPECT_EQ(grid, 2 * 132);
    ASSERT_EQ(drv::cuOccupancyMaxPotentialBlockSize(&grid, &block, get("r32"), nullptr, 0, 200), CUDA_SUCCESS);
    EXPECT_EQ(block, 128);  // the largest multiple of 32 under 200 that fills the SM: 16 x 128
    EXPECT_EQ(grid, 16 * 132);
    ASSERT_EQ(drv::cuOccupancyMaxPotentialBlockSize(&grid, &block, get("r72"), nullptr, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(block, 896);
    ASSERT_EQ(drv::cuOccupancyMaxPotentialBlockSize(&grid, &block, get("bounded"), nullptr, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(block, 128);
    // 64 bytes of shared memory per thread: 1024 threads want 64 KiB, over the 48 KiB default
    // limit; 512 threads (32 KiB + 1 KiB) fit 6 blocks = 3072 threads... capped by 64 warps: 4.
    ASSERT_EQ(drv::cuOccupancyMaxPotentialBlockSize(&grid, &block, get("r32"), shared_for, 0, 0), CUDA_SUCCESS);
    EXPECT_EQ(block, 512);
    EXPECT_EQ(grid, 4 * 132);
    EXPECT_EQ(drv::cuOccupancyMaxPotentialBlockSize(nullptr, &block, get("r32"), nullptr, 0, 0),
              CUDA_ERROR_INVALID_VALUE);
}

CUlaunchConfig cluster_config(unsigned threads, unsigned x, CUlaunchAttribute& attr) {
    attr = CUlaunchAttribute{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = x;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig c{};
    c.gridDimX = 132;
    c.gridDimY = c.gridDimZ = 1;
    c.blockDimX = threads;
    c.blockDimY = c.blockDimZ = 1;
    c.attrs = &attr;
    c.numAttrs = 1;
    return c;
}

TEST_F(Occupancy, ClustersShareAGpc) {
    CUlaunchAttribute attr;
    int n = -1;
    CUlaunchConfig c = cluster_config(128, 2, attr);
    ASSERT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r32"), &c), CUDA_SUCCESS);
    EXPECT_EQ(n, 16 * 132 / 2);  // 16 blocks per SM, pairs
    c = cluster_config(1024, 8, attr);
    ASSERT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), &c), CUDA_SUCCESS);
    EXPECT_EQ(n, 16);  // one block per SM: two clusters of 8 in each of the 8 GPCs
    c = cluster_config(1024, 16, attr);
    ASSERT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), &c), CUDA_SUCCESS);
    EXPECT_EQ(n, 0);  // 16 blocks is not portable
    ASSERT_EQ(drv::cuFuncSetAttribute(get("r64"), CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              CUDA_SUCCESS);
    ASSERT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), &c), CUDA_SUCCESS);
    EXPECT_EQ(n, 8);
    c = cluster_config(1024, 17, attr);
    EXPECT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    c.numAttrs = 0;  // no cluster size given, and none compiled in
    EXPECT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), &c), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuOccupancyMaxActiveClusters(&n, get("r64"), nullptr), CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
}  // namespace xcuda::cpu::testing

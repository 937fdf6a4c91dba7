// The emulated device (its name, memory and attributes) and the primary context: retain and
// release, the current context per thread, limits, the memory left.
#include "driver_test_support.hpp"

#include <cstring>
#include <string>

namespace xcuda::cpu::testing {
namespace {

class Device : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(drv::cuInit(0), CUDA_SUCCESS); }
    static int attribute(CUdevice_attribute a) {
        int v = -12345;
        EXPECT_EQ(drv::cuDeviceGetAttribute(&v, a, 0), CUDA_SUCCESS) << a;
        return v;
    }
};

TEST_F(Device, OneDeviceNamedAsTheCpuDevice) {
    int count = 0;
    ASSERT_EQ(drv::cuDeviceGetCount(&count), CUDA_SUCCESS);
    EXPECT_EQ(count, 1);
    CUdevice dev = -1;
    ASSERT_EQ(drv::cuDeviceGet(&dev, 0), CUDA_SUCCESS);
    EXPECT_EQ(dev, 0);
    EXPECT_EQ(drv::cuDeviceGet(&dev, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(drv::cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDeviceGetCount(nullptr), CUDA_ERROR_INVALID_VALUE);
    char name[256] = {};
    ASSERT_EQ(drv::cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
    EXPECT_STREQ(name, device_name);
    char shortened[6] = {};
    ASSERT_EQ(drv::cuDeviceGetName(shortened, sizeof shortened, 0), CUDA_SUCCESS);
    EXPECT_EQ(std::string(shortened), std::string(device_name).substr(0, 5));
    EXPECT_EQ(drv::cuDeviceGetName(name, sizeof name, 3), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(drv::cuDeviceGetName(nullptr, 10, 0), CUDA_ERROR_INVALID_VALUE);
    int version = 0;
    EXPECT_EQ(drv::cuDriverGetVersion(&version), CUDA_SUCCESS);
    EXPECT_EQ(version, 13000);
    EXPECT_EQ(drv::cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Device, AttributesAreThoseOfAnH100ClassSm90) {
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 9);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 132);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR), 2048);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR), 32);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR), 65536);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK), 65536);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 48 * 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 227 * 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR), 228 * 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK), 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X), 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y), 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X), 2147483647);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y), 65535);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z), 65535);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY), 65536);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE), 1980000);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE), 2619000);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH), 5120);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE), 50 * 1024 * 1024);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH), 1);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH), 1);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS), 1);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE), CU_COMPUTEMODE_DEFAULT);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID), 0);
}

TEST_F(Device, EveryAttributeOfTheEnumerationAnswersAndNoOtherDoes) {
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
        int v = 0;
        EXPECT_EQ(drv::cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a), 0), CUDA_SUCCESS) << a;
    }
    int v = 0;
    EXPECT_EQ(drv::cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(0), 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 1), CUDA_ERROR_INVALID_DEVICE);
    // Features the CPU device does not have read 0, not an error.
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH), 0);
    EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED), 0);
}

TEST_F(Device, TotalMemoryIsTheArenasCapacity) {
    std::size_t bytes = 0;
    ASSERT_EQ(drv::cuDeviceTotalMem(&bytes, 0), CUDA_SUCCESS);
    EXPECT_GE(bytes, std::size_t{1} << 30);
    EXPECT_EQ(drv::cuDeviceTotalMem(&bytes, 2), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(drv::cuDeviceTotalMem(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
}

class Context : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(drv::cuInit(0), CUDA_SUCCESS); }
};

TEST_F(Context, RetainReleaseAndTheCurrentContextOfEachThread) {
    CUcontext ctx = nullptr, again = nullptr;
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
    EXPECT_EQ(ctx, again);  // one primary context
    EXPECT_EQ(drv::cuDevicePrimaryCtxRetain(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDevicePrimaryCtxRetain(&again, 1), CUDA_ERROR_INVALID_DEVICE);

    ASSERT_EQ(drv::cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
    CUcontext current = ctx;
    ASSERT_EQ(drv::cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, nullptr);
    CUdevice dev = -1;
    EXPECT_EQ(drv::cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
    CUdeviceptr p = 0;
    EXPECT_EQ(drv::cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);

    ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxGetCurrent(&current), CUDA_SUCCESS);
    EXPECT_EQ(current, ctx);
    ASSERT_EQ(drv::cuCtxGetDevice(&dev), CUDA_SUCCESS);
    EXPECT_EQ(dev, 0);
    EXPECT_EQ(drv::cuCtxSetCurrent(reinterpret_cast<CUcontext>(&dev)), CUDA_ERROR_INVALID_CONTEXT);

    std::thread([] {
        CUcontext other = reinterpret_cast<CUcontext>(1);
        EXPECT_EQ(drv::cuCtxGetCurrent(&other), CUDA_SUCCESS);
        EXPECT_EQ(other, nullptr);  // current per thread
        EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    }).join();

    ASSERT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxGetDevice(&dev), CUDA_SUCCESS);  // still retained once
    ASSERT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);  // released: no longer usable
    EXPECT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT_EQ(drv::cuDevicePrimaryCtxRelease(1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_ERROR_INVALID_CONTEXT);
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
    EXPECT_EQ(again, ctx);
    EXPECT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxGetDevice(&dev), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

TEST_F(Context, Limits) {
    CUcontext ctx = nullptr;
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    std::size_t value = 0;
    ASSERT_EQ(drv::cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 2048), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(value, 2048u);
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT), CUDA_SUCCESS);
    EXPECT_EQ(value, 2048u);
    EXPECT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
    // No device-side cudaDeviceSynchronize on sm_90, as the real driver says.
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, 4), CUDA_ERROR_UNSUPPORTED_LIMIT);
    EXPECT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH), CUDA_ERROR_UNSUPPORTED_LIMIT);
    EXPECT_EQ(drv::cuCtxSetLimit(static_cast<CUlimit>(0x7777), 1), CUDA_ERROR_UNSUPPORTED_LIMIT);
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 256), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

TEST_F(Context, MemoryInfoFollowsAllocations) {
    CUcontext ctx = nullptr;
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    std::size_t free_before = 0, total = 0, free_after = 0, device_total = 0;
    ASSERT_EQ(drv::cuMemGetInfo(&free_before, &total), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuDeviceTotalMem(&device_total, 0), CUDA_SUCCESS);
    EXPECT_EQ(total, device_total);
    EXPECT_LE(free_before, total);
    CUdeviceptr p = 0;
    ASSERT_EQ(drv::cuMemAlloc(&p, std::size_t{64} << 20), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemGetInfo(&free_after, &total), CUDA_SUCCESS);
    EXPECT_LE(free_after + (std::size_t{64} << 20), free_before);
    ASSERT_EQ(drv::cuMemFree(p), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemGetInfo(&free_after, &total), CUDA_SUCCESS);
    EXPECT_EQ(free_after, free_before);
    EXPECT_EQ(drv::cuMemGetInfo(nullptr, &total), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

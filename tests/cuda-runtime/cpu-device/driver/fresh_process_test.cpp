// What only a process where nothing happened yet can show: calls before cuInit, and the limits
// that stop being settable at the first launch. Linked first, so these run first when the whole
// suite runs in one process (ctest runs each test in a process of its own).
#include "driver_test_support.hpp"

namespace xcuda::cpu::testing {
namespace {

// The tests below need cuInit not to have run yet (nor, then, any launch).
bool initialized_before() {
    int count = 0;
    return drv::cuDeviceGetCount(&count) == CUDA_SUCCESS;
}

constexpr const char* needs_fresh_process =
    "cuInit already ran in this process: run this test in a process of its own (ctest does), or first";

TEST(FreshProcess, CallsBeforeInitAnswerNotInitialized) {
    if (initialized_before()) GTEST_SKIP() << needs_fresh_process;
    int version = 0;
    EXPECT_EQ(drv::cuDriverGetVersion(&version), CUDA_SUCCESS);  // the one call that needs no cuInit
    EXPECT_EQ(version, 13000);
    const char* name = nullptr;
    EXPECT_EQ(drv::cuGetErrorName(CUDA_ERROR_NOT_INITIALIZED, &name), CUDA_SUCCESS);
    int count = -1;
    EXPECT_EQ(drv::cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
    CUdevice dev = -1;
    EXPECT_EQ(drv::cuDeviceGet(&dev, 0), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext ctx = nullptr;
    EXPECT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(drv::cuCtxGetCurrent(&ctx), CUDA_ERROR_NOT_INITIALIZED);
    CUdeviceptr p = 0;
    EXPECT_EQ(drv::cuMemAlloc(&p, 16), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_EQ(drv::cuInit(1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
}

TEST(FreshProcess, PrintfFifoAndHeapAreSettableUntilTheFirstLaunch) {
    if (initialized_before()) GTEST_SKIP() << needs_fresh_process;
    ASSERT_EQ(drv::cuInit(0), CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    ASSERT_EQ(drv::cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    std::size_t value = 0;
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(value, std::size_t{1} << 20);  // the real driver's default
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, std::size_t{64} << 20), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, std::size_t{16} << 20), CUDA_SUCCESS);

    fake_engine::reset();
    CUmodule module = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&module, "kernel noop\n", 0, nullptr, nullptr), CUDA_SUCCESS);
    CUfunction noop = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&noop, module, "noop"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(fake_engine::launches().size(), 1u);
    EXPECT_EQ(fake_engine::launches()[0].options.printf_fifo_bytes, std::size_t{64} << 20);

    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, std::size_t{8} << 20), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, std::size_t{8} << 20), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(value, std::size_t{64} << 20);
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(value, std::size_t{16} << 20);
    // The stack size stays settable, as on a GPU.
    EXPECT_EQ(drv::cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxGetLimit(&value, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
    EXPECT_EQ(value, 4096u);

    EXPECT_EQ(drv::cuModuleUnload(module), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

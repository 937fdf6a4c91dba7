// cuMemAlloc/Free, pinned host memory, synchronous and asynchronous copies and memsets.
#include "driver_test_support.hpp"

#include <cstring>
#include <numeric>
#include <vector>

namespace xcuda::cpu::testing {
namespace {

using MemoryCalls = DriverTest;

TEST_F(MemoryCalls, AllocateAndFree) {
    CUdeviceptr p = 0;
    ASSERT_EQ(drv::cuMemAlloc(&p, 1000), CUDA_SUCCESS);
    EXPECT_EQ(p % 256, 0u);
    EXPECT_EQ(drv::cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr huge = 0;
    EXPECT_EQ(drv::cuMemAlloc(&huge, std::size_t{1} << 50), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(drv::cuMemFree(p + 16), CUDA_ERROR_INVALID_VALUE);  // not the start of an allocation
    EXPECT_EQ(drv::cuMemFree(p), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuMemFree(p), CUDA_ERROR_INVALID_VALUE);  // already freed
    EXPECT_EQ(drv::cuMemFree(0x1000), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemFree(0), CUDA_SUCCESS);
    CUdeviceptr var = 0;
    ASSERT_EQ(drv::cuModuleGetGlobal(&var, nullptr, module, "counter"), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuMemFree(var), CUDA_ERROR_INVALID_VALUE);  // the module's, not cuMemAlloc's
}

TEST_F(MemoryCalls, FreeWaitsForTheDeviceToBeIdle) {
    const CUdeviceptr p = alloc(64);
    ASSERT_EQ(launch("sleep", nullptr, {std::uint32_t{150}}), CUDA_SUCCESS);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(drv::cuMemFree(p), CUDA_SUCCESS);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_SUCCESS);
}

TEST_F(MemoryCalls, SynchronousCopiesAndMemset) {
    const CUdeviceptr a = alloc(4096), b = alloc(4096);
    std::vector<unsigned char> in(4096), out(4096);
    std::iota(in.begin(), in.end(), 0);
    ASSERT_EQ(drv::cuMemcpyHtoD(a, in.data(), in.size()), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoD(b, a, 4096), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoH(out.data(), b, out.size()), CUDA_SUCCESS);
    EXPECT_EQ(in, out);
    ASSERT_EQ(drv::cuMemsetD8(b + 100, 0x5A, 50), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoH(out.data(), b, out.size()), CUDA_SUCCESS);
    EXPECT_EQ(out[99], 99);
    EXPECT_EQ(out[100], 0x5A);
    EXPECT_EQ(out[149], 0x5A);
    EXPECT_EQ(out[150], 150);
    EXPECT_EQ(drv::cuMemcpyHtoD(a, in.data(), 0), CUDA_SUCCESS);
}

TEST_F(MemoryCalls, DevicePointersOutsideAnAllocationAreInvalidValuesNotCrashes) {
    const CUdeviceptr a = alloc(100);
    std::vector<unsigned char> host(200);
    EXPECT_EQ(drv::cuMemcpyHtoD(a, host.data(), 101), CUDA_ERROR_INVALID_VALUE);  // one past the end
    EXPECT_EQ(drv::cuMemcpyDtoH(host.data(), a + 50, 51), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemcpyDtoH(host.data(), 0x10, 4), CUDA_ERROR_INVALID_VALUE);  // not in the arena
    EXPECT_EQ(drv::cuMemcpyDtoD(a, 0xdeadbeef000, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemsetD8(a + 99, 0, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemcpyHtoDAsync(a, host.data(), 200, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemcpyDtoHAsync(host.data(), a, 200, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemcpyDtoDAsync(a, a, 200, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemsetD8Async(a, 0, 200, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemcpyHtoD(a, nullptr, 4), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuMemFree(a), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuMemcpyHtoD(a, host.data(), 4), CUDA_ERROR_INVALID_VALUE);  // freed
}

TEST_F(MemoryCalls, ModuleVariablesCanBeCopiedToAndFrom) {
    CUdeviceptr var = 0;
    std::size_t bytes = 0;
    ASSERT_EQ(drv::cuModuleGetGlobal(&var, &bytes, module, "counter"), CUDA_SUCCESS);
    ASSERT_EQ(bytes, 16u);
    const std::uint32_t v = 42;
    ASSERT_EQ(drv::cuMemcpyHtoD(var + 4, &v, 4), CUDA_SUCCESS);
    std::uint32_t back[4] = {};
    ASSERT_EQ(drv::cuMemcpyDtoH(back, var, 16), CUDA_SUCCESS);
    EXPECT_EQ(back[0], 0u);
    EXPECT_EQ(back[1], 42u);
    EXPECT_EQ(drv::cuMemcpyDtoH(back, var, 17), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemoryCalls, PinnedHostMemory) {
    void* p = nullptr;
    ASSERT_EQ(drv::cuMemHostAlloc(&p, 10000, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 4096, 0u);
    std::memset(p, 1, 10000);
    EXPECT_EQ(drv::cuMemHostAlloc(&p, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemHostAlloc(&p, 16, 0x80), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemHostAlloc(nullptr, 16, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemFreeHost(static_cast<char*>(p) + 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuMemFreeHost(p), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
    std::vector<char> pageable(16);
    EXPECT_EQ(drv::cuMemFreeHost(pageable.data()), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemoryCalls, AsynchronousCopiesRunInStreamOrder) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    const CUdeviceptr d = alloc(4);
    void* pinned = nullptr;
    ASSERT_EQ(drv::cuMemHostAlloc(&pinned, 4, 0), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("store", s, {std::uint64_t{d}, std::uint32_t{7}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoHAsync(pinned, d, 4, s), CUDA_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(*static_cast<std::uint32_t*>(pinned), 0u);  // behind the gate
    EXPECT_EQ(drv::cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    fake_engine::open_gate(1);
    ASSERT_EQ(wait_stream(s), CUDA_SUCCESS);
    EXPECT_EQ(*static_cast<std::uint32_t*>(pinned), 7u);
    EXPECT_EQ(drv::cuMemFreeHost(pinned), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(MemoryCalls, PageableHostMemoryIsStagedOrWaitedForAsTheRealDriverDoes) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    const CUdeviceptr d = alloc(4);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{2}}), CUDA_SUCCESS);
    std::uint32_t source = 5;
    ASSERT_EQ(drv::cuMemcpyHtoDAsync(d, &source, 4, s), CUDA_SUCCESS);
    source = 6;  // the copy took the value when it was queued
    fake_engine::open_gate(2);
    std::uint32_t back = 0;
    ASSERT_EQ(drv::cuMemcpyDtoHAsync(&back, d, 4, s), CUDA_SUCCESS);
    EXPECT_EQ(back, 5u);  // done before the call returned: pageable destination
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(MemoryCalls, AsynchronousMemsetAndDeviceCopy) {
    const CUdeviceptr a = alloc(64), b = alloc(64);
    ASSERT_EQ(drv::cuMemsetD8Async(a, 0x33, 64, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoDAsync(b, a, 64, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(wait_stream(nullptr), CUDA_SUCCESS);
    unsigned char out[64] = {};
    ASSERT_EQ(drv::cuMemcpyDtoH(out, b, 64), CUDA_SUCCESS);
    EXPECT_EQ(out[0], 0x33);
    EXPECT_EQ(out[63], 0x33);
    CUstream bogus = reinterpret_cast<CUstream>(0x1234);
    EXPECT_EQ(drv::cuMemsetD8Async(a, 0, 1, bogus), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(MemoryCalls, ASynchronousCopyWaitsForTheLegacyStreamAndBlockingStreams) {
    CUstream blocking = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&blocking, 0), CUDA_SUCCESS);
    const CUdeviceptr d = alloc(4);
    ASSERT_EQ(launch("sleep", blocking, {std::uint32_t{50}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("store", blocking, {std::uint64_t{d}, std::uint32_t{9}}), CUDA_SUCCESS);
    std::uint32_t back = 0;
    ASSERT_EQ(drv::cuMemcpyDtoH(&back, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(back, 9u);
    EXPECT_EQ(drv::cuStreamDestroy(blocking), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

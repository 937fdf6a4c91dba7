// Modules: loading with JIT options and logs, kernels and variables, unloading, kernel attributes.
#include "driver_test_support.hpp"

#include <cstring>
#include <string>

namespace xcuda::cpu::testing {
namespace {

using Modules = DriverTest;

TEST_F(Modules, ASyntaxErrorIsInvalidPtxWithTheMessageInTheErrorLog) {
    char log[256];
    std::memset(log, 'x', sizeof log);
    char info[64] = "untouched";
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_WALL_TIME,        CU_JIT_OPTIMIZATION_LEVEL};
    void* values[] = {log,     reinterpret_cast<void*>(std::uintptr_t{sizeof log}),
                      info,    reinterpret_cast<void*>(std::uintptr_t{sizeof info}),
                      nullptr, reinterpret_cast<void*>(std::uintptr_t{4})};
    CUmodule m = nullptr;
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, "kernel ok\nbogus line\n", 6, keys, values), CUDA_ERROR_INVALID_PTX);
    EXPECT_STREQ(log, "line 2: unknown directive 'bogus'");
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(values[1]), std::strlen(log) + 1);  // bytes used, written back
    EXPECT_STREQ(info, "");
}

TEST_F(Modules, TheErrorLogIsCappedAtItsSize) {
    char log[8];
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t{sizeof log})};
    CUmodule m = nullptr;
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, "nonsense\n", 2, keys, values), CUDA_ERROR_INVALID_PTX);
    EXPECT_STREQ(log, "line 1:");
}

TEST_F(Modules, OptionsTheRealDriverRefusesAreRefused) {
    CUjit_option bad[] = {static_cast<CUjit_option>(CU_JIT_NUM_OPTIONS + 5)};
    void* values[] = {nullptr};
    CUmodule m = nullptr;
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, "kernel k\n", 1, bad, values), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, "kernel k\n", 1, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleLoadDataEx(nullptr, "kernel k\n", 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, nullptr, 0, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Modules, ABinaryImageNeedsAGpu) {
    char log[512] = {};
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t{sizeof log})};
    const char elf[] =
        "\x7f"
        "ELF\x02\x01";
    CUmodule m = nullptr;
    EXPECT_EQ(drv::cuModuleLoadDataEx(&m, elf, 2, keys, values), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(log).find("PTX"), std::string::npos);
}

TEST_F(Modules, RegisterCountsFromTheCubinReachTheKernels) {
    const RegisterCounts counts{{"heavy", 128}};
    CUjit_option keys[] = {jit_option_register_counts};
    void* values[] = {const_cast<RegisterCounts*>(&counts)};
    CUmodule m = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&m, "kernel heavy\nkernel light\n", 1, keys, values), CUDA_SUCCESS);
    CUfunction heavy = nullptr, light = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&heavy, m, "heavy"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleGetFunction(&light, m, "light"), CUDA_SUCCESS);
    int regs = 0, threads = 0;
    ASSERT_EQ(drv::cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, heavy), CUDA_SUCCESS);
    EXPECT_EQ(regs, 128);
    ASSERT_EQ(drv::cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, heavy), CUDA_SUCCESS);
    EXPECT_EQ(threads, 512);  // 128 registers x 512 threads fill the 64K of a block
    ASSERT_EQ(drv::cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, light), CUDA_SUCCESS);
    EXPECT_EQ(regs, 32);
    EXPECT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Modules, FunctionsAndGlobalsByName) {
    CUfunction f = nullptr, again = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&f, module, "noop"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleGetFunction(&again, module, "noop"), CUDA_SUCCESS);
    EXPECT_EQ(f, again);
    EXPECT_EQ(drv::cuModuleGetFunction(&f, module, "missing"), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(drv::cuModuleGetFunction(&f, module, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleGetFunction(nullptr, module, "noop"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleGetFunction(&f, reinterpret_cast<CUmodule>(&f), "noop"), CUDA_ERROR_INVALID_HANDLE);

    CUdeviceptr p = 0;
    std::size_t bytes = 0;
    ASSERT_EQ(drv::cuModuleGetGlobal(&p, &bytes, module, "counter"), CUDA_SUCCESS);
    EXPECT_NE(p, 0u);
    EXPECT_EQ(bytes, 16u);
    EXPECT_EQ(drv::cuModuleGetGlobal(nullptr, &bytes, module, "counter"), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuModuleGetGlobal(&p, nullptr, module, "counter"), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuModuleGetGlobal(&p, &bytes, module, "nothing"), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(drv::cuModuleGetGlobal(&p, &bytes, module, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Modules, UnloadingFreesVariablesAndEndsFunctionHandles) {
    CUmodule m = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&m, "kernel k\nglobal table 64\n", 0, nullptr, nullptr), CUDA_SUCCESS);
    CUfunction k = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&k, m, "k"), CUDA_SUCCESS);
    CUdeviceptr table = 0;
    ASSERT_EQ(drv::cuModuleGetGlobal(&table, nullptr, m, "table"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    int v = 0;
    EXPECT_EQ(drv::cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, k), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuLaunchKernel(k, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_HANDLE);
    std::uint8_t byte = 0;
    EXPECT_EQ(drv::cuMemcpyDtoH(&byte, table, 1), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Modules, UnloadWaitsForQueuedLaunches) {
    CUmodule m = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&m, "kernel sleep_a_while params=4\n", 0, nullptr, nullptr), CUDA_SUCCESS);
    CUfunction k = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&k, m, "sleep_a_while"), CUDA_SUCCESS);
    ASSERT_EQ(launch(k, nullptr, {std::uint32_t{100}}), CUDA_SUCCESS);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_SUCCESS);
}

TEST_F(Modules, KernelAttributesComeFromTheKernel) {
    CUmodule m = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&m,
                                      "kernel k params=8 regs=40 shared=2048 local=64 maxntid=256\n"
                                      "kernel clustered cluster=2,1,1\n"
                                      "kernel explicit explicit_cluster\n",
                                      0, nullptr, nullptr),
              CUDA_SUCCESS);
    CUfunction k = nullptr, clustered = nullptr, explicit_one = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&k, m, "k"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleGetFunction(&clustered, m, "clustered"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleGetFunction(&explicit_one, m, "explicit"), CUDA_SUCCESS);
    auto get = [](CUfunction f, CUfunction_attribute a) {
        int v = -1;
        EXPECT_EQ(drv::cuFuncGetAttribute(&v, a, f), CUDA_SUCCESS) << a;
        return v;
    };
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 256);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES), 2048);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES), 64);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES), 0);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_NUM_REGS), 40);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_PTX_VERSION), 90);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_BINARY_VERSION), 90);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_CACHE_MODE_CA), 0);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 48 * 1024 - 2048);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT), -1);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET), 0);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH), 0);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), 0);
    EXPECT_EQ(get(k, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE), 0);
    EXPECT_EQ(get(clustered, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH), 2);
    EXPECT_EQ(get(clustered, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT), 1);
    EXPECT_EQ(get(explicit_one, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET), 1);
    int v = 0;
    EXPECT_EQ(drv::cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX, k), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuFuncGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_NUM_REGS, k), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(Modules, SettableKernelAttributes) {
    CUmodule m = nullptr;
    ASSERT_EQ(
        drv::cuModuleLoadDataEx(&m, "kernel k shared=1024\nkernel clustered cluster=2,1,1\n", 0, nullptr, nullptr),
        CUDA_SUCCESS);
    CUfunction k = nullptr, clustered = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&k, m, "k"), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuModuleGetFunction(&clustered, m, "clustered"), CUDA_SUCCESS);
    int v = 0;
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024 - 1024),
              CUDA_SUCCESS);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 227 * 1024 - 1023),
              CUDA_ERROR_INVALID_VALUE);  // with the static 1 KiB, past the opt-in maximum
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, -1),
              CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k), CUDA_SUCCESS);
    EXPECT_EQ(v, 227 * 1024 - 1024);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, k), CUDA_SUCCESS);
    EXPECT_EQ(v, 4);
    EXPECT_EQ(drv::cuFuncSetAttribute(clustered, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 4),
              CUDA_ERROR_NOT_PERMITTED);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 2), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 3),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuFuncSetAttribute(k, CU_FUNC_ATTRIBUTE_NUM_REGS, 10), CUDA_ERROR_INVALID_VALUE);  // read-only
    EXPECT_EQ(drv::cuFuncSetAttribute(reinterpret_cast<CUfunction>(&v), CU_FUNC_ATTRIBUTE_NUM_REGS, 1),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

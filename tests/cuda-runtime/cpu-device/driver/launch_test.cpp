// Launches: parameters (kernelParams and extra), the real driver's validation, launch attributes,
// and what the engine is asked to run.
#include "driver_test_support.hpp"

#include <cstring>

namespace xcuda::cpu::testing {
namespace {

class Launches : public DriverTest {
protected:
    void SetUp() override {
        DriverTest::SetUp();
        ASSERT_EQ(drv::cuModuleLoadDataEx(&kernels,
                                          "kernel args params=4,8,2\n"
                                          "kernel bounded maxntid=128\n"
                                          "kernel exact reqntid=32,2,1\n"
                                          "kernel heavy regs=255\n"
                                          "kernel heavy_grid_sync regs=255 syncs_grid\n"
                                          "kernel shared_user shared=4096\n"
                                          "kernel clustered cluster=2,1,1\n"
                                          "kernel explicit explicit_cluster\n"
                                          "kernel ranked max_cluster_rank=4\n",
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
    static CUresult plain(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shared = 0) {
        return drv::cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, nullptr, nullptr, nullptr);
    }
    CUresult ex(CUfunction f, unsigned grid, unsigned block, std::vector<CUlaunchAttribute> attrs,
                unsigned shared = 0) {
        CUlaunchConfig c{};
        c.gridDimX = grid;
        c.gridDimY = c.gridDimZ = 1;
        c.blockDimX = block;
        c.blockDimY = c.blockDimZ = 1;
        c.sharedMemBytes = shared;
        c.attrs = attrs.data();
        c.numAttrs = static_cast<unsigned>(attrs.size());
        return drv::cuLaunchKernelEx(&c, f, nullptr, nullptr);
    }
    static CUlaunchAttribute cluster(unsigned x, unsigned y = 1, unsigned z = 1) {
        CUlaunchAttribute a{};
        a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = x;
        a.value.clusterDim.y = y;
        a.value.clusterDim.z = z;
        return a;
    }
    static CUlaunchAttribute cooperative() {
        CUlaunchAttribute a{};
        a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        a.value.cooperative = 1;
        return a;
    }
    using Launched = fake_engine::Launched;
    Launched last() {
        EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
        const auto all = fake_engine::launches();
        return all.empty() ? Launched{} : all.back();
    }
    CUmodule kernels = nullptr;
};

template <class T>
T read(const std::vector<std::byte>& params, std::size_t offset) {
    T v{};
    std::memcpy(&v, params.data() + offset, sizeof v);
    return v;
}

TEST_F(Launches, KernelParamsArePackedAtTheirOffsets) {
    std::uint32_t a = 7;
    std::uint64_t b = 0x1122334455667788;
    std::uint16_t c = 9;
    void* params[] = {&a, &b, &c};
    ASSERT_EQ(drv::cuLaunchKernel(get("args"), 3, 2, 1, 64, 2, 1, 128, nullptr, params, nullptr), CUDA_SUCCESS);
    const auto l = last();
    EXPECT_EQ(l.kernel, "args");
    EXPECT_EQ(l.grid.str(), "(3,2,1)");
    EXPECT_EQ(l.block.str(), "(64,2,1)");
    EXPECT_EQ(l.dynamic_shared_bytes, 128u);
    ASSERT_EQ(l.params.size(), 18u);
    EXPECT_EQ(read<std::uint32_t>(l.params, 0), 7u);
    EXPECT_EQ(read<std::uint64_t>(l.params, 8), b);
    EXPECT_EQ(read<std::uint16_t>(l.params, 16), 9u);
    EXPECT_FALSE(l.cooperative);
    EXPECT_EQ(l.cluster.count(), 1u);
}

TEST_F(Launches, ExtraPassesOneParameterBuffer) {
    unsigned char buffer[24] = {};
    const std::uint32_t a = 3;
    std::memcpy(buffer, &a, 4);
    buffer[16] = 0x42;
    std::size_t size = sizeof buffer;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    ASSERT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
    const auto l = last();
    EXPECT_EQ(read<std::uint32_t>(l.params, 0), 3u);
    EXPECT_EQ(l.params[16], std::byte{0x42});
    std::size_t small = 8;
    void* too_small[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &small,
                         CU_LAUNCH_PARAM_END};
    EXPECT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, too_small),
              CUDA_ERROR_INVALID_VALUE);
    void* no_size[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_END};
    EXPECT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, no_size),
              CUDA_ERROR_INVALID_VALUE);
    std::uint32_t x = 0;
    void* params[] = {&x, &x, &x};
    EXPECT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, params, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
              CUDA_ERROR_INVALID_VALUE);  // a kernel with parameters needs them
    void* missing[] = {&x, nullptr, &x};
    EXPECT_EQ(drv::cuLaunchKernel(get("args"), 1, 1, 1, 1, 1, 1, 0, nullptr, missing, nullptr),
              CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Launches, DimensionsWithinTheDevicesLimits) {
    const CUfunction noop = function("noop");
    EXPECT_EQ(plain(noop, 0, 1, 1, 1, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 1, 1, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 65536, 1, 1, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 1, 65536, 1, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 1, 1, 1025, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 1, 1, 1, 1, 65), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(plain(noop, 1, 1, 1, 512, 4, 1), CUDA_ERROR_INVALID_VALUE);  // 2048 threads
    EXPECT_EQ(plain(noop, 2147483647u, 65535, 1, 1024, 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(plain(noop, 1, 1, 1, 32, 32, 1), CUDA_SUCCESS);
    EXPECT_EQ(plain(reinterpret_cast<CUfunction>(&kernels), 1, 1, 1, 1, 1, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuLaunchKernel(noop, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(&kernels), nullptr, nullptr),
              CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Launches, TheKernelsOwnLimits) {
    EXPECT_EQ(plain(get("bounded"), 1, 1, 1, 128, 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(plain(get("bounded"), 1, 1, 1, 129, 1, 1), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    EXPECT_EQ(plain(get("heavy"), 1, 1, 1, 256, 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(plain(get("heavy"), 1, 1, 1, 257, 1, 1), CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);  // 255 registers
    EXPECT_EQ(plain(get("exact"), 1, 1, 1, 32, 2, 1), CUDA_SUCCESS);
    EXPECT_EQ(plain(get("exact"), 1, 1, 1, 64, 1, 1), CUDA_ERROR_INVALID_VALUE);  // .reqntid 32,2,1
}

TEST_F(Launches, DynamicSharedMemoryUpToTheKernelsLimit) {
    const CUfunction f = get("shared_user");  // 4 KiB static
    EXPECT_EQ(plain(f, 1, 1, 1, 32, 1, 1, 44 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(plain(f, 1, 1, 1, 32, 1, 1, 44 * 1024 + 1), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(plain(f, 1, 1, 1, 32, 1, 1, 200 * 1024), CUDA_SUCCESS);
    EXPECT_EQ(last().dynamic_shared_bytes, 200u * 1024);
}

TEST_F(Launches, Clusters) {
    const CUfunction noop = function("noop");
    EXPECT_EQ(ex(noop, 8, 64, {cluster(2)}), CUDA_SUCCESS);
    EXPECT_EQ(last().cluster.str(), "(2,1,1)");
    EXPECT_EQ(ex(noop, 9, 64, {cluster(2)}), CUDA_ERROR_INVALID_CLUSTER_SIZE);    // not a whole number of clusters
    EXPECT_EQ(ex(noop, 16, 64, {cluster(16)}), CUDA_ERROR_INVALID_CLUSTER_SIZE);  // not portable
    ASSERT_EQ(drv::cuFuncSetAttribute(noop, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), CUDA_SUCCESS);
    EXPECT_EQ(ex(noop, 16, 64, {cluster(16)}), CUDA_SUCCESS);
    EXPECT_EQ(ex(noop, 32, 64, {cluster(32)}), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    EXPECT_EQ(ex(noop, 8, 64, {cluster(0)}), CUDA_ERROR_INVALID_VALUE);
    // Compile-time cluster dimensions apply without the attribute, and a different one is refused.
    EXPECT_EQ(plain(get("clustered"), 4, 1, 1, 32, 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(last().cluster.str(), "(2,1,1)");
    EXPECT_EQ(plain(get("clustered"), 3, 1, 1, 32, 1, 1), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    EXPECT_EQ(ex(get("clustered"), 8, 32, {cluster(4)}), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    EXPECT_EQ(plain(get("explicit"), 4, 1, 1, 32, 1, 1), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    EXPECT_EQ(ex(get("explicit"), 4, 32, {cluster(2)}), CUDA_SUCCESS);
    EXPECT_EQ(ex(get("ranked"), 8, 32, {cluster(8)}), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    EXPECT_EQ(ex(get("ranked"), 8, 32, {cluster(4)}), CUDA_SUCCESS);
}

TEST_F(Launches, CooperativeGridsMustFitOnTheDevice) {
    const CUfunction heavy = get("heavy");  // 255 registers: 2 blocks of 128 per SM
    EXPECT_EQ(ex(heavy, 264, 128, {cooperative()}), CUDA_SUCCESS);
    EXPECT_TRUE(last().cooperative);
    EXPECT_EQ(ex(heavy, 265, 128, {cooperative()}), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    EXPECT_EQ(ex(heavy, 265, 128, {}), CUDA_SUCCESS);  // without the attribute any grid goes
}

TEST_F(Launches, AKernelThatSynchronisesItsGridRunsCooperativelyWhenLaunchedPlainly) {
    // As a GPU's driver gives such a kernel its grid workspace: grid.sync() works without the
    // attribute, and the grid must fit on the device all the same.
    const CUfunction syncs = get("heavy_grid_sync");
    EXPECT_EQ(plain(syncs, 264, 1, 1, 128, 1, 1), CUDA_SUCCESS);
    EXPECT_TRUE(last().cooperative);
    EXPECT_EQ(plain(syncs, 265, 1, 1, 128, 1, 1), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    EXPECT_EQ(ex(syncs, 265, 128, {}), CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
}

TEST_F(Launches, AttributesThatOnlyTuneAreAcceptedOthersAreNotSupported) {
    CUlaunchAttribute priority{};
    priority.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    priority.value.priority = 1;
    EXPECT_EQ(ex(function("noop"), 1, 1, {priority}), CUDA_SUCCESS);
    CUlaunchAttribute event{};
    event.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
    EXPECT_EQ(ex(function("noop"), 1, 1, {event}), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(drv::cuLaunchKernelEx(nullptr, function("noop"), nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Launches, SettingsReachTheEngineForLaterLaunches) {
    const bool checks_before = checks(), deterministic_before = deterministic();
    set_checks(false);
    set_deterministic(true);
    ASSERT_EQ(launch("noop", nullptr), CUDA_SUCCESS);
    auto l = last();
    EXPECT_FALSE(l.options.checks);
    EXPECT_TRUE(l.options.deterministic);
    EXPECT_FALSE(l.options.profile);
    set_checks(true);
    set_deterministic(false);
    set_profiling(true);
    ASSERT_EQ(launch("noop", nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{1}}), CUDA_SUCCESS);
    l = last();
    EXPECT_TRUE(l.options.checks);
    EXPECT_FALSE(l.options.deterministic);
    EXPECT_TRUE(l.options.profile);
    set_profiling(false);
    const auto profiles = take_profiles();
    ASSERT_EQ(profiles.size(), 2u);
    EXPECT_EQ(profiles[0]->kernel, "noop");
    EXPECT_EQ(profiles[1]->kernel, "append");
    EXPECT_TRUE(take_profiles().empty());
    set_checks(checks_before);
    set_deterministic(deterministic_before);
}

TEST_F(Launches, WithoutACurrentContext) {
    const CUfunction noop = function("noop");
    ASSERT_EQ(drv::cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
    EXPECT_EQ(plain(noop, 1, 1, 1, 1, 1, 1), CUDA_ERROR_INVALID_CONTEXT);
    ASSERT_EQ(drv::cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

TEST_F(Launches, AnEngineThatThrowsFailsTheLaunchInsteadOfTheProcess) {
    ASSERT_EQ(launch("throw_up", nullptr), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
    const auto failure = take_failure();
    ASSERT_NE(failure, nullptr);
    EXPECT_EQ(failure->kernel, "throw_up");
    EXPECT_NE(failure->finding.detail.find("fake engine failure"), std::string::npos);
}

}  // namespace
}  // namespace xcuda::cpu::testing

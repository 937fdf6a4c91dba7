#include "gpu_support.hpp"

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;
using xcuda::rt::testing::saxpy_source;

using ModuleTest = GpuTest;

TEST_F(ModuleTest, LoadsFromCubinAndFindsTheKernel) {
    auto r = build(saxpy_source);
    if (device().is_cpu()) {
        // Machine code needs a GPU: the CPU device says so and what to load instead.
        try {
            Module::from_cubin(r.cubin);
            FAIL() << "the CPU device loaded a CUBIN";
        } catch (const DriverError& e) {
            EXPECT_EQ(e.code(), CUDA_ERROR_NOT_SUPPORTED);
            EXPECT_NE(std::string(e.what()).find("PTX"), std::string::npos) << e.what();
        }
        return;
    }
    auto m = Module::from_cubin(r.cubin);
    EXPECT_NE(m.handle(), nullptr);
    EXPECT_EQ(m.function("saxpy").name(), "saxpy");
}

TEST_F(ModuleTest, FromImageLoadsWhatTheDeviceRuns) {
    auto m = Module::from_image(build(saxpy_source).ptx, build(saxpy_source).cubin);
    EXPECT_EQ(m.function("saxpy").name(), "saxpy");
}

TEST_F(ModuleTest, LoadsFromPtxThroughTheJit) {
    auto r = build(saxpy_source);
    auto m = Module::from_ptx(r.ptx);
    EXPECT_NE(m.function("saxpy").handle(), nullptr);
}

TEST_F(ModuleTest, BrokenPtxIsADriverErrorWithTheJitLog) {
    try {
        Module::from_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus; }\n");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_NE(std::string(e.what()).find("JIT log"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(context_lost());
}

TEST_F(ModuleTest, MissingKernelIsNotFoundNamingIt) {
    auto m = load(build(saxpy_source));
    try {
        m.function("no_such_kernel");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_FOUND);
        EXPECT_NE(std::string(e.what()).find("no_such_kernel"), std::string::npos);
    }
}

TEST_F(ModuleTest, AttributesAgreeWithPtxasAndTheDriver) {
    const char* src = R"(
__global__ void tile(float* p) {
    __shared__ float s[256];
    s[threadIdx.x] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = s[255 - threadIdx.x];
}
)";
    auto r = build(src);
    auto m = load(r);
    auto f = m.function("_Z4tilePf");
    auto a = f.attributes();
    const auto& res = r.resources.at("_Z4tilePf");
    EXPECT_EQ(a.num_regs, res.registers);
    EXPECT_EQ(a.shared_bytes, res.shared_bytes);
    EXPECT_EQ(a.local_bytes, res.stack_frame_bytes);
    EXPECT_EQ(a.num_regs, f.attribute(CU_FUNC_ATTRIBUTE_NUM_REGS));
    EXPECT_EQ(a.binary_version, device().properties().major * 10 + device().properties().minor);
    EXPECT_GT(a.max_threads_per_block, 0);
}

TEST_F(ModuleTest, OccupancyAnswersMatchTheLimits) {
    auto m = load(build(saxpy_source));
    auto f = m.function("saxpy");
    const auto& p = device().properties();
    const int blocks = f.max_active_blocks_per_sm(256);
    EXPECT_GT(blocks, 0);
    EXPECT_LE(blocks * 256, p.max_threads_per_sm);
    EXPECT_EQ(f.max_active_blocks_per_sm(1024), p.max_threads_per_sm / 1024);
    auto s = f.suggested_block_size();
    EXPECT_GT(s.block_size, 0);
    EXPECT_LE(s.block_size, p.max_threads_per_block);
    EXPECT_GE(s.min_grid_size, p.sm_count);
    EXPECT_LE(f.suggested_block_size(0, 128).block_size, 128);
}

TEST_F(ModuleTest, ModulesMoveOwnership) {
    auto a = load(build(saxpy_source));
    auto h = a.handle();
    Module b(std::move(a));
    EXPECT_EQ(b.handle(), h);
    EXPECT_EQ(a.handle(), nullptr);
}

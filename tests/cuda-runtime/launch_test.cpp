#include "gpu_support.hpp"

#include <algorithm>
#include <vector>

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;
using xcuda::rt::testing::saxpy_source;

class LaunchTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (IsSkipped()) return;
        module_ = std::make_unique<Module>(load(build(saxpy_source)));
    }
    Function saxpy() const { return module_->function("saxpy"); }
    std::unique_ptr<Module> module_;
};

TEST_F(LaunchTest, SaxpyComputesTheResult) {
    const int n = 1 << 20;
    std::vector<float> x(n), y(n, 1.0f);
    for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000);
    DeviceBuffer dx(n * sizeof(float)), dy(n * sizeof(float));
    copy_to_device(dx.get(), x.data(), n * sizeof(float));
    copy_to_device(dy.get(), y.data(), n * sizeof(float));
    float a = 2.0f;
    CUdeviceptr px = dx.get(), py = dy.get();
    int count = n;
    void* params[] = {&a, &px, &py, &count};
    Stream s;
    launch(saxpy(), Dim3((n + 255) / 256), Dim3(256), 0, s.handle(), params);
    s.synchronize();
    copy_to_host(y.data(), dy.get(), n * sizeof(float));
    for (int i = 0; i < n; ++i) ASSERT_EQ(y[i], 2.0f * static_cast<float>(i % 1000) + 1.0f) << i;
}

TEST_F(LaunchTest, TooManyThreadsPerBlockIsALaunchErrorNamingTheLimitAndNotSticky) {
    void* params[4] = {};
    try {
        launch(saxpy(), Dim3(1), Dim3(2048), 0, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("block (2048,1,1) has 2048 threads; this device allows at most "),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(context_lost());
    EXPECT_NO_THROW(DeviceBuffer(16));
}

TEST_F(LaunchTest, ZeroAndOversizedDimensionsAreRefusedBeforeTheDriver) {
    void* params[4] = {};
    EXPECT_THROW(launch(saxpy(), Dim3(0), Dim3(32), 0, nullptr, params), LaunchError);
    EXPECT_THROW(launch(saxpy(), Dim3(1), Dim3(1, 1, 128), 0, nullptr, params), LaunchError);
    const unsigned max_y = device().properties().max_grid_dims.y;
    try {
        launch(saxpy(), Dim3(1, max_y + 1), Dim3(32), 0, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos) << e.what();
    }
}

TEST_F(LaunchTest, DynamicSharedMemoryUpToTheOptInMaximumIsRaisedAndBeyondItRefused) {
    // Fills `n` floats of dynamic shared memory and writes their sum: every byte is touched.
    Module m = load(build(R"(
extern "C" __global__ void fill_shared(float* out, int n) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) { float t = 0; for (int i = 0; i < n; ++i) t += s[i]; *out = t; }
}
)"));
    Function f = m.function("fill_shared");
    const std::size_t optin = static_cast<std::size_t>(device().properties().max_shared_per_block_optin);
    const std::size_t bytes = std::min<std::size_t>(optin, 100 * 1024);
    DeviceBuffer out(sizeof(float));
    CUdeviceptr p = out.get();
    int n = static_cast<int>(bytes / sizeof(float));
    void* params[] = {&p, &n};
    launch(f, Dim3(1), Dim3(256), bytes, nullptr, params);
    synchronize_current_context();
    float sum = 0;
    copy_to_host(&sum, out.get(), sizeof(float));
    EXPECT_EQ(sum, static_cast<float>(n));
    EXPECT_GE(f.attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), static_cast<int>(bytes));
    try {
        launch(f, Dim3(1), Dim3(32), optin + 1, nullptr, params);
        FAIL();
    } catch (const LaunchError& e) {
        EXPECT_NE(std::string(e.what()).find("at most " + std::to_string(optin) + " bytes"), std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(context_lost());
}

// A real sticky fault poisons the process: this suite is its own executable (see CMakeLists.txt).
#include "gpu_support.hpp"

#include <chrono>

using namespace xcuda::rt;
using xcuda::rt::testing::GpuTest;

// A GPU's sticky faults. The CPU device reports its faults as findings and stays usable: the
// last test checks that instead.
class ContextLostTest : public GpuTest {
protected:
    void SetUp() override {
        GpuTest::SetUp();
        if (!IsSkipped() && device().is_cpu()) {
            GTEST_SKIP() << "a GPU's sticky faults; this run uses the CPU device, whose faults are not sticky";
        }
    }
};

using CpuDeviceFaultTest = GpuTest;

TEST_F(CpuDeviceFaultTest, ATrapIsAKernelCheckErrorNamingTheKernelAndTheDeviceStaysUsable) {
    if (!device().is_cpu()) GTEST_SKIP() << "checks the CPU device; this run uses a GPU";
    auto r = build(R"(
extern "C" __global__ void t(int* p) { if (threadIdx.x == 3) __trap(); p[threadIdx.x] = 1; }
)");
    auto m = load(r);
    DeviceBuffer buf(32 * sizeof(int));
    CUdeviceptr p = buf.get();
    void* params[] = {&p};
    launch(m.function("t"), Dim3(1), Dim3(32), 0, nullptr, params);
    try {
        synchronize_current_context();
        FAIL() << "the trap was not reported";
    } catch (const KernelCheckError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_LAUNCH_FAILED);
        EXPECT_EQ(e.failure().kernel, "t");
        EXPECT_EQ(e.failure().finding.thread.x, 3u);
    }
    EXPECT_FALSE(context_lost());
    synchronize_current_context();  // reported once: the device is clean again
    launch(m.function("t"), Dim3(1), Dim3(3), 0, nullptr, params);
    EXPECT_NO_THROW(synchronize_current_context());
}

TEST_F(ContextLostTest, TrapIsContextLost) {
    // Runs in a re-executed death-test child, so its fault leaves this process usable for the next test.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            auto m = Module::from_cubin(build("extern \"C\" __global__ void t() { __trap(); }").cubin);
            launch(m.function("t"), Dim3(1), Dim3(1), 0, nullptr, nullptr);
            try {
                synchronize_current_context();
            } catch (const ContextLostError& e) {
                std::exit(e.code() == CUDA_ERROR_LAUNCH_FAILED && context_lost() ? 0 : 3);
            }
            std::exit(4);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST_F(ContextLostTest, OutOfBoundsStoreIsContextLostAndLaterCallsFailFast) {
    auto r = build(R"(
extern "C" __global__ void wild(int* p) { p[threadIdx.x + (1ll << 40)] = 1; }
)");
    auto m = Module::from_cubin(r.cubin);
    DeviceBuffer buf(64);
    CUdeviceptr p = buf.get();
    void* params[] = {&p};
    Stream s;
    launch(m.function("wild"), Dim3(1), Dim3(32), 0, s.handle(), params);
    try {
        s.synchronize();
        FAIL() << "the out-of-bounds store was not reported";
    } catch (const ContextLostError& e) {
        EXPECT_TRUE(e.code() == CUDA_ERROR_ILLEGAL_ADDRESS || e.code() == CUDA_ERROR_LAUNCH_FAILED) << e.what();
        EXPECT_NE(std::string(e.what()).find("restart the kernel"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the last kernel launched was wild"), std::string::npos) << e.what();
    }
    ASSERT_TRUE(context_lost());

    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(DeviceBuffer(16), ContextLostError);
    EXPECT_THROW(Module::from_cubin(r.cubin), ContextLostError);
    EXPECT_THROW(synchronize_current_context(), ContextLostError);
    EXPECT_THROW(Stream(), ContextLostError);
    EXPECT_THROW(launch(m.function("wild"), Dim3(1), Dim3(1), 0, nullptr, params), ContextLostError);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
}

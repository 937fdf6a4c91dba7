// Streams: order within a stream, the legacy stream's synchronisation with blocking streams (and
// not with non-blocking ones), queries, destruction with work still queued.
#include "driver_test_support.hpp"

#include <cstdlib>

namespace xcuda::cpu::testing {
namespace {

using Streams = DriverTest;

std::vector<std::uint32_t> appended_after(std::size_t count) {
    EXPECT_TRUE(eventually([&] { return fake_engine::appended().size() >= count; }));
    return fake_engine::appended();
}

TEST_F(Streams, CreateAndDestroy) {
    CUstream s = nullptr;
    EXPECT_EQ(drv::cuStreamCreate(&s, 0x4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuStreamDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuStreamQuery(CU_STREAM_LEGACY), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(CU_STREAM_PER_THREAD), CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(Streams, WorkRunsInOrderWithinAStream) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    for (std::uint32_t i = 0; i < 50; ++i) ASSERT_EQ(launch("append", s, {i}), CUDA_SUCCESS);
    ASSERT_EQ(wait_stream(s), CUDA_SUCCESS);
    const std::vector<std::uint32_t> got = fake_engine::appended();
    ASSERT_EQ(got.size(), 50u);
    for (std::uint32_t i = 0; i < 50; ++i) EXPECT_EQ(got[i], i);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(Streams, QueryIsNotReadyWhileWorkIsPending) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{10}}), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(s), CUDA_ERROR_NOT_READY);
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_SUCCESS);  // a non-blocking stream does not hold the legacy one
    fake_engine::open_gate(10);
    EXPECT_EQ(wait_stream(s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(Streams, TheLegacyStreamWaitsForBlockingStreams) {
    CUstream blocking = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", blocking, {std::uint32_t{20}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", blocking, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{2}}), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);  // the legacy stream also counts blocking work
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(fake_engine::appended().empty());
    fake_engine::open_gate(20);
    EXPECT_EQ(appended_after(2), (std::vector<std::uint32_t>{1, 2}));
    EXPECT_EQ(drv::cuStreamDestroy(blocking), CUDA_SUCCESS);
}

TEST_F(Streams, BlockingStreamsWaitForTheLegacyStream) {
    CUstream blocking = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", nullptr, {std::uint32_t{21}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", blocking, {std::uint32_t{2}}), CUDA_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(fake_engine::appended().empty());
    EXPECT_EQ(drv::cuStreamQuery(blocking), CUDA_ERROR_NOT_READY);
    fake_engine::open_gate(21);
    EXPECT_EQ(appended_after(2), (std::vector<std::uint32_t>{1, 2}));
    EXPECT_EQ(drv::cuStreamDestroy(blocking), CUDA_SUCCESS);
}

TEST_F(Streams, NonBlockingStreamsRunPastTheLegacyStream) {
    CUstream free_running = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&free_running, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", nullptr, {std::uint32_t{22}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", free_running, {std::uint32_t{2}}), CUDA_SUCCESS);
    EXPECT_EQ(appended_after(1), (std::vector<std::uint32_t>{2}));
    ASSERT_EQ(launch("gate", free_running, {std::uint32_t{23}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{3}}), CUDA_SUCCESS);  // the legacy stream does not wait for it
    fake_engine::open_gate(22);
    EXPECT_EQ(appended_after(3), (std::vector<std::uint32_t>{2, 1, 3}));
    fake_engine::open_gate(23);
    EXPECT_EQ(wait_stream(free_running), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(free_running), CUDA_SUCCESS);
}

TEST_F(Streams, IndependentStreamsRunConcurrently) {
    CUstream a = nullptr, b = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&a, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamCreate(&b, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", a, {std::uint32_t{24}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", b, {std::uint32_t{7}}), CUDA_SUCCESS);
    EXPECT_EQ(appended_after(1), (std::vector<std::uint32_t>{7}));
    fake_engine::open_gate(24);
    EXPECT_EQ(wait_stream(a), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(a), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(b), CUDA_SUCCESS);
}

TEST_F(Streams, DestroyReturnsAtOnceAndTheQueuedWorkStillRuns) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{25}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", s, {std::uint32_t{5}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
    EXPECT_EQ(launch("append", s, {std::uint32_t{6}}), CUDA_ERROR_INVALID_HANDLE);
    fake_engine::open_gate(25);
    EXPECT_EQ(appended_after(1), (std::vector<std::uint32_t>{5}));
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(Streams, ContextSynchronizeWaitsForEveryStream) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(launch("sleep", s, {std::uint32_t{60}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", s, {std::uint32_t{8}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("sleep", nullptr, {std::uint32_t{30}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{8}));
    EXPECT_EQ(drv::cuStreamQuery(s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(Streams, ManyStreamsComeAndGo) {
    for (int round = 0; round < 20; ++round) {
        CUstream s = nullptr;
        ASSERT_EQ(drv::cuStreamCreate(&s, round % 2 == 0 ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT), CUDA_SUCCESS);
        ASSERT_EQ(launch("append", s, {static_cast<std::uint32_t>(round)}), CUDA_SUCCESS);
        ASSERT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
    }
    ASSERT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended().size(), 20u);
}

// The runtime never destroys its streams: the process must still end cleanly, with launches
// running (cancelled by the exit handler) and work queued behind them.
[[noreturn]] void exit_with_work_queued() {
    CUcontext ctx = nullptr;
    CUmodule m = nullptr;
    CUfunction gate = nullptr;
    CUstream s = nullptr;
    if (drv::cuInit(0) != CUDA_SUCCESS || drv::cuDevicePrimaryCtxRetain(&ctx, 0) != CUDA_SUCCESS ||
        drv::cuCtxSetCurrent(ctx) != CUDA_SUCCESS ||
        drv::cuModuleLoadDataEx(&m, test_module, 0, nullptr, nullptr) != CUDA_SUCCESS ||
        drv::cuModuleGetFunction(&gate, m, "gate") != CUDA_SUCCESS || drv::cuStreamCreate(&s, 0) != CUDA_SUCCESS)
        std::exit(2);
    std::uint32_t never = 99;
    void* params[] = {&never};
    for (CUstream on : {s, static_cast<CUstream>(nullptr), s}) {
        if (drv::cuLaunchKernel(gate, 1, 1, 1, 1, 1, 1, 0, on, params, nullptr) != CUDA_SUCCESS) std::exit(3);
    }
    if (!eventually([] { return !fake_engine::launches().empty(); })) std::exit(4);
    std::exit(0);
}

TEST(ProcessExit, EndsCleanlyWithLaunchesRunningAndQueued) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(exit_with_work_queued(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace xcuda::cpu::testing

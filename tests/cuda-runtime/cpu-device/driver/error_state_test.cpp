// The device's error state after a failed launch: kept until reported, reported once by the
// calls that synchronise, work queued before the report skipped, the Failure handed out by
// take_failure(); and cancel_launches().
#include "driver_test_support.hpp"

namespace xcuda::cpu::testing {
namespace {

using ErrorState = DriverTest;

TEST_F(ErrorState, AFailedLaunchIsReportedOnceByTheNextStreamQuery) {
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);  // launching succeeds; running fails
    EXPECT_EQ(wait_stream(nullptr), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(drv::cuStreamQuery(nullptr), CUDA_SUCCESS);  // once, and not sticky
    const auto failure = take_failure();
    ASSERT_NE(failure, nullptr);
    EXPECT_EQ(failure->code, CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(failure->kernel, "fail");
    EXPECT_EQ(take_failure(), nullptr);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{1}}), CUDA_SUCCESS);
    EXPECT_EQ(wait_stream(nullptr), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{1}));  // the device works again
}

TEST_F(ErrorState, WorkQueuedBeforeTheReportIsSkippedOnEveryStream) {
    CUstream other = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    const CUdeviceptr d = alloc(4);
    ASSERT_EQ(launch("gate", other, {std::uint32_t{40}}), CUDA_SUCCESS);
    ASSERT_EQ(launch("store", other, {std::uint64_t{d}, std::uint32_t{9}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemsetD8Async(d, 0x77, 4, other), CUDA_SUCCESS);
    // The gate runs before the failure (else the failure skips it too).
    ASSERT_TRUE(eventually([] { return fake_engine::launches().size() == 1; }));
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch("append", nullptr, {std::uint32_t{2}}), CUDA_SUCCESS);
    ASSERT_TRUE(eventually([] { return fake_engine::launches().size() == 2; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the failure is recorded
    fake_engine::open_gate(40);
    EXPECT_EQ(wait_stream(other), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(wait_stream(other), CUDA_SUCCESS);
    EXPECT_EQ(wait_stream(nullptr), CUDA_SUCCESS);
    EXPECT_TRUE(fake_engine::appended().empty());
    std::uint32_t value = 1;
    ASSERT_EQ(drv::cuMemcpyDtoH(&value, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(value, 0u);  // neither the store nor the memset ran
    // Queued after the report: runs.
    ASSERT_EQ(launch("store", other, {std::uint64_t{d}, std::uint32_t{3}}), CUDA_SUCCESS);
    EXPECT_EQ(wait_stream(other), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoH(&value, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(value, 3u);
    EXPECT_NE(take_failure(), nullptr);
    EXPECT_EQ(drv::cuStreamDestroy(other), CUDA_SUCCESS);
}

TEST_F(ErrorState, ContextSynchronizeReportsIt) {
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(ErrorState, ASynchronousCopyReportsItAndIsNotDone) {
    const CUdeviceptr d = alloc(4);
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    const std::uint32_t v = 5;
    EXPECT_EQ(drv::cuMemcpyHtoD(d, &v, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
    std::uint32_t back = 1;
    ASSERT_EQ(drv::cuMemcpyDtoH(&back, d, 4), CUDA_SUCCESS);
    EXPECT_EQ(back, 0u);
}

TEST_F(ErrorState, AnEventQueryReportsIt) {
    CUevent e = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&e, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(e, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(wait_event(e), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(wait_event(e), CUDA_SUCCESS);  // the record itself is still reached
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_SUCCESS);
}

TEST_F(ErrorState, TakingTheFailureClearsTheErrorBeforeItIsReported) {
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    ASSERT_TRUE(eventually([] { return !fake_engine::launches().empty(); }));
    std::shared_ptr<const Failure> failure;
    ASSERT_TRUE(eventually([&] { return (failure = take_failure()) != nullptr; }));
    EXPECT_EQ(failure->kernel, "fail");
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(ErrorState, TheFirstFailureIsTheOneKept) {
    CUmodule m = nullptr;
    ASSERT_EQ(drv::cuModuleLoadDataEx(&m, "kernel fail_second\n", 0, nullptr, nullptr), CUDA_SUCCESS);
    CUfunction second = nullptr;
    ASSERT_EQ(drv::cuModuleGetFunction(&second, m, "fail_second"), CUDA_SUCCESS);
    ASSERT_EQ(launch("fail", nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch(second, nullptr), CUDA_SUCCESS);  // skipped: queued after the first failure
    EXPECT_EQ(drv::cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(take_failure()->kernel, "fail");
    EXPECT_EQ(fake_engine::launches().size(), 1u);
    EXPECT_EQ(drv::cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(ErrorState, CancelStopsRunningAndQueuedLaunchesButNotLaterWork) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    const CUdeviceptr d = alloc(4);
    void* pinned = nullptr;
    ASSERT_EQ(drv::cuMemHostAlloc(&pinned, 4, 0), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{41}}), CUDA_SUCCESS);  // never opened
    ASSERT_EQ(launch("append", s, {std::uint32_t{1}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemsetD8Async(d, 0x01, 4, s), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuMemcpyDtoHAsync(pinned, d, 4, s), CUDA_SUCCESS);
    ASSERT_TRUE(eventually([] { return !fake_engine::launches().empty(); }));
    cancel_launches();
    EXPECT_EQ(wait_stream(s), CUDA_SUCCESS);  // a cancelled launch is not an error
    EXPECT_TRUE(fake_engine::appended().empty());
    EXPECT_EQ(*static_cast<std::uint32_t*>(pinned), 0x01010101u);  // the copies still happened, in order
    EXPECT_EQ(take_failure(), nullptr);
    ASSERT_EQ(launch("append", s, {std::uint32_t{2}}), CUDA_SUCCESS);  // queued after the cancel: runs
    EXPECT_EQ(wait_stream(s), CUDA_SUCCESS);
    EXPECT_EQ(fake_engine::appended(), (std::vector<std::uint32_t>{2}));
    EXPECT_EQ(drv::cuMemFreeHost(pinned), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

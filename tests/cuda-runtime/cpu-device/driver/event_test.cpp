// Events: records in stream order, queries, elapsed time and its error cases.
#include "driver_test_support.hpp"

namespace xcuda::cpu::testing {
namespace {

using Events = DriverTest;

TEST_F(Events, CreateAndDestroy) {
    CUevent e = nullptr;
    EXPECT_EQ(drv::cuEventCreate(&e, 0x80), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuEventCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_ERROR_NOT_SUPPORTED);
    ASSERT_EQ(drv::cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventQuery(e), CUDA_SUCCESS);  // never recorded: complete
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuEventRecord(e, nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Events, ARecordCompletesWhenItsStreamReachesIt) {
    CUstream s = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CUevent e = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&e, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", s, {std::uint32_t{30}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(e, s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventQuery(e), CUDA_ERROR_NOT_READY);
    EXPECT_EQ(drv::cuEventRecord(e, reinterpret_cast<CUstream>(&e)), CUDA_ERROR_INVALID_HANDLE);
    fake_engine::open_gate(30);
    EXPECT_EQ(wait_event(e), CUDA_SUCCESS);
    // Recording again makes it pending again, until the new point is reached.
    ASSERT_EQ(launch("gate", s, {std::uint32_t{31}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(e, s), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventQuery(e), CUDA_ERROR_NOT_READY);
    fake_engine::open_gate(31);
    EXPECT_EQ(wait_event(e), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(Events, AnEventOnTheLegacyStreamWaitsForBlockingStreams) {
    CUstream blocking = nullptr;
    ASSERT_EQ(drv::cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    CUevent e = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", blocking, {std::uint32_t{32}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(e, nullptr), CUDA_SUCCESS);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(drv::cuEventQuery(e), CUDA_ERROR_NOT_READY);
    fake_engine::open_gate(32);
    EXPECT_EQ(wait_event(e), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuStreamDestroy(blocking), CUDA_SUCCESS);
}

TEST_F(Events, ElapsedTimeBetweenTwoRecords) {
    CUevent start = nullptr, end = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventCreate(&end, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    float ms = -1;
    EXPECT_EQ(drv::cuEventElapsedTime(&ms, start, end), CUDA_ERROR_INVALID_HANDLE);  // not recorded yet
    ASSERT_EQ(drv::cuEventRecord(start, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(launch("sleep", nullptr, {std::uint32_t{40}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(end, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventElapsedTime(&ms, start, end), CUDA_ERROR_NOT_READY);
    ASSERT_EQ(wait_event(end), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventElapsedTime(&ms, start, end), CUDA_SUCCESS);
    EXPECT_GE(ms, 35.0f);
    EXPECT_LT(ms, 5000.0f);
    ASSERT_EQ(drv::cuEventElapsedTime(&ms, end, start), CUDA_SUCCESS);
    EXPECT_LT(ms, 0.0f);
    EXPECT_EQ(drv::cuEventElapsedTime(nullptr, start, end), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuEventElapsedTime(&ms, start, reinterpret_cast<CUevent>(&ms)), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuEventDestroy(start), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(end), CUDA_SUCCESS);
}

TEST_F(Events, ElapsedTimeNeedsTimingEvents) {
    CUevent timed = nullptr, untimed = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&timed, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventCreate(&untimed, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(timed, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(untimed, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(wait_event(untimed), CUDA_SUCCESS);
    float ms = 0;
    EXPECT_EQ(drv::cuEventElapsedTime(&ms, timed, untimed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuEventElapsedTime(&ms, untimed, timed), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(drv::cuEventDestroy(timed), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(untimed), CUDA_SUCCESS);
}

TEST_F(Events, DestroyingAPendingEventLetsItsRecordComplete) {
    CUevent e = nullptr;
    ASSERT_EQ(drv::cuEventCreate(&e, CU_EVENT_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(launch("gate", nullptr, {std::uint32_t{33}}), CUDA_SUCCESS);
    ASSERT_EQ(drv::cuEventRecord(e, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(drv::cuEventDestroy(e), CUDA_SUCCESS);
    fake_engine::open_gate(33);
    EXPECT_EQ(wait_stream(nullptr), CUDA_SUCCESS);
}

}  // namespace
}  // namespace xcuda::cpu::testing

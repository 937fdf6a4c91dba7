// cuGetErrorName and cuGetErrorString.
#include "driver_test_support.hpp"

#include <cstring>
#include <string>

namespace xcuda::cpu::testing {
namespace {

std::string name_of(CUresult code) {
    const char* s = nullptr;
    EXPECT_EQ(drv::cuGetErrorName(code, &s), CUDA_SUCCESS) << code;
    return s != nullptr ? s : "";
}

std::string message_of(CUresult code) {
    const char* s = nullptr;
    EXPECT_EQ(drv::cuGetErrorString(code, &s), CUDA_SUCCESS) << code;
    return s != nullptr ? s : "";
}

TEST(ErrorNames, TheRealDriversNamesAndMessages) {
    EXPECT_EQ(name_of(CUDA_SUCCESS), "CUDA_SUCCESS");
    EXPECT_EQ(message_of(CUDA_SUCCESS), "no error");
    EXPECT_EQ(name_of(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS");
    EXPECT_EQ(message_of(CUDA_ERROR_ILLEGAL_ADDRESS), "an illegal memory access was encountered");
    EXPECT_EQ(message_of(CUDA_ERROR_INVALID_VALUE), "invalid argument");
    EXPECT_EQ(message_of(CUDA_ERROR_NOT_READY), "device not ready");
    EXPECT_EQ(message_of(CUDA_ERROR_LAUNCH_FAILED), "unspecified launch failure");
    EXPECT_EQ(message_of(CUDA_ERROR_INVALID_PTX), "a PTX JIT compilation failed");
    EXPECT_EQ(message_of(CUDA_ERROR_INVALID_HANDLE), "invalid resource handle");
    EXPECT_EQ(message_of(CUDA_ERROR_ASSERT), "device-side assert triggered");
    EXPECT_EQ(message_of(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), "too many blocks in cooperative launch");
    EXPECT_EQ(name_of(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT");
    EXPECT_EQ(name_of(CUDA_ERROR_UNKNOWN), "CUDA_ERROR_UNKNOWN");
}

TEST(ErrorNames, EveryCodeOfCudaHHasAName) {
    const CUresult codes[] = {CUDA_ERROR_INVALID_VALUE,
                              CUDA_ERROR_OUT_OF_MEMORY,
                              CUDA_ERROR_NOT_INITIALIZED,
                              CUDA_ERROR_DEINITIALIZED,
                              CUDA_ERROR_NO_DEVICE,
                              CUDA_ERROR_INVALID_DEVICE,
                              CUDA_ERROR_INVALID_IMAGE,
                              CUDA_ERROR_INVALID_CONTEXT,
                              CUDA_ERROR_UNSUPPORTED_LIMIT,
                              CUDA_ERROR_INVALID_PTX,
                              CUDA_ERROR_INVALID_SOURCE,
                              CUDA_ERROR_FILE_NOT_FOUND,
                              CUDA_ERROR_INVALID_HANDLE,
                              CUDA_ERROR_ILLEGAL_STATE,
                              CUDA_ERROR_NOT_FOUND,
                              CUDA_ERROR_NOT_READY,
                              CUDA_ERROR_ILLEGAL_ADDRESS,
                              CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                              CUDA_ERROR_LAUNCH_TIMEOUT,
                              CUDA_ERROR_CONTEXT_IS_DESTROYED,
                              CUDA_ERROR_ASSERT,
                              CUDA_ERROR_HARDWARE_STACK_ERROR,
                              CUDA_ERROR_ILLEGAL_INSTRUCTION,
                              CUDA_ERROR_MISALIGNED_ADDRESS,
                              CUDA_ERROR_INVALID_ADDRESS_SPACE,
                              CUDA_ERROR_INVALID_PC,
                              CUDA_ERROR_LAUNCH_FAILED,
                              CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                              CUDA_ERROR_NOT_PERMITTED,
                              CUDA_ERROR_NOT_SUPPORTED,
                              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                              CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                              CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                              CUDA_ERROR_CAPTURED_EVENT,
                              CUDA_ERROR_TIMEOUT,
                              CUDA_ERROR_INVALID_CLUSTER_SIZE,
                              CUDA_ERROR_UNKNOWN};
    for (CUresult code : codes) {
        EXPECT_EQ(name_of(code).rfind("CUDA_ERROR_", 0), 0u) << code;
        EXPECT_FALSE(message_of(code).empty()) << code;
    }
}

TEST(ErrorNames, AnUnknownCodeIsAnInvalidValue) {
    const char* s = "unchanged";
    EXPECT_EQ(drv::cuGetErrorName(static_cast<CUresult>(12345), &s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(s, nullptr);
    s = "unchanged";
    EXPECT_EQ(drv::cuGetErrorString(static_cast<CUresult>(12345), &s), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(s, nullptr);
    EXPECT_EQ(drv::cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(drv::cuGetErrorString(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
}  // namespace xcuda::cpu::testing

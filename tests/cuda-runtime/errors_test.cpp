#include <xcuda/rt/errors.hpp>

#include <gtest/gtest.h>

#include <string>

using namespace xcuda::rt;

TEST(Check, SuccessDoesNotThrow) {
    EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuInit"));
    EXPECT_NO_THROW(check(NVRTC_SUCCESS, "nvrtcCompileProgram"));
}

TEST(Check, OutOfMemoryBecomesOutOfMemoryErrorNamingTheCall) {
    try {
        check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc", "allocating 42 bytes");
        FAIL();
    } catch (const OutOfMemoryError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
        EXPECT_EQ(e.call(), "cuMemAlloc");
        EXPECT_NE(std::string(e.what()).find("cuMemAlloc"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("allocating 42 bytes"), std::string::npos);
    }
    EXPECT_FALSE(context_lost());
}

TEST(Check, OtherDriverErrorsBecomeDriverError) {
    try {
        check(CUDA_ERROR_NOT_FOUND, "cuModuleGetFunction");
        FAIL();
    } catch (const DriverError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_FOUND);
        EXPECT_EQ(dynamic_cast<const ContextLostError*>(&e), nullptr);
    }
    EXPECT_FALSE(context_lost());
}

TEST(Check, NvrtcFailureBecomesCudaErrorNamingTheCall) {
    try {
        check(NVRTC_ERROR_INVALID_INPUT, "nvrtcCreateProgram");
        FAIL();
    } catch (const CudaError& e) {
        EXPECT_NE(std::string(e.what()).find("nvrtcCreateProgram"), std::string::npos);
    }
}

TEST(IsSticky, IllegalAddressTrapAndAssertAreStickyOomAndBadLaunchAreNot) {
    EXPECT_TRUE(is_sticky(CUDA_ERROR_ILLEGAL_ADDRESS));
    EXPECT_TRUE(is_sticky(CUDA_ERROR_LAUNCH_FAILED));
    EXPECT_TRUE(is_sticky(CUDA_ERROR_ASSERT));
    EXPECT_TRUE(is_sticky(CUDA_ERROR_MISALIGNED_ADDRESS));
    EXPECT_FALSE(is_sticky(CUDA_ERROR_OUT_OF_MEMORY));
    EXPECT_FALSE(is_sticky(CUDA_ERROR_INVALID_VALUE));
    EXPECT_FALSE(is_sticky(CUDA_ERROR_NOT_FOUND));
}

TEST(ExceptionTree, InterruptedIsNotACudaError) {
    Interrupted e("x");
    EXPECT_EQ(dynamic_cast<const CudaError*>(static_cast<const std::exception*>(&e)), nullptr);
}

// A sticky result poisons the whole process, so that case is checked in a death test's child.
TEST(CheckDeathTest, StickyResultThrowsContextLostAndLaterChecksFailFast) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            try {
                check(CUDA_ERROR_ILLEGAL_ADDRESS, "cuCtxSynchronize");
            } catch (const ContextLostError&) {
            }
            if (!context_lost()) std::exit(2);
            try {
                throw_if_context_lost();
            } catch (const ContextLostError& e) {
                const std::string what = e.what();
                std::exit(e.code() == CUDA_ERROR_ILLEGAL_ADDRESS && what.find("restart the kernel") != std::string::npos
                              ? 0
                              : 3);
            }
            std::exit(4);
        },
        ::testing::ExitedWithCode(0), "");
}

// Run by ctest with XCUDA_CUDA_DRIVER naming a stand-in driver and XCUDA_FAKE_EXPECT saying which.
#include <xcuda/rt/runtime.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace xcuda::rt;

namespace {
std::string expected() {
    const char* e = std::getenv("XCUDA_FAKE_EXPECT");
    return e != nullptr ? e : "";
}
}  // namespace

TEST(FakeDriver, DriverSideCallsThrowNoDeviceErrorWithTheRightReason) {
    const std::string kind = expected();
    ASSERT_TRUE(kind == "no-device" || kind == "too-old" || kind == "cuda12-5")
        << "run through ctest (XCUDA_FAKE_EXPECT unset)";
    EXPECT_FALSE(driver_available());
    try {
        Device d(0);
        FAIL() << "Device(0) did not throw";
    } catch (const NoDeviceError& e) {
        const std::string what = e.what();
        // A CUDA 12.5 driver has cuEventElapsedTime only: it loads, and its cuInit is what says
        // there is no device.
        if (kind == "no-device" || kind == "cuda12-5") {
            EXPECT_EQ(e.why(), NoDeviceError::Why::no_device) << what;
            EXPECT_NE(what.find("no CUDA device"), std::string::npos) << what;
        } else {
            EXPECT_EQ(e.why(), NoDeviceError::Why::driver_too_old) << what;
            EXPECT_NE(what.find("driver too old"), std::string::npos) << what;
            EXPECT_NE(what.find("cuEventElapsedTime_v2"), std::string::npos) << what;
            EXPECT_NE(what.find("CUDA 12.4"), std::string::npos) << what;
        }
    }
    EXPECT_THROW(DeviceBuffer(8), NoDeviceError);
    EXPECT_THROW(device_count(), NoDeviceError);
}

TEST(FakeDriver, DriverVersionIsReadableWhenTheLibraryLoads) {
    if (expected() == "too-old") GTEST_SKIP() << "the too-old stand-in lacks an entry point: it never loads";
    EXPECT_EQ(driver_version(), expected() == "cuda12-5" ? 12050 : 13000);
}

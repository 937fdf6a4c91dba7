// Runs with XCUDA_CUDA_DRIVER naming a library that does not exist (see CMakeLists.txt), so
// "no driver library" is checked on every machine, the GPU machine included.
#include <xcuda/rt/runtime.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <string>

using namespace xcuda::rt;

namespace {

void expect_no_driver(const std::function<void()>& call, const char* what) {
    try {
        call();
        ADD_FAILURE() << what << " did not throw";
    } catch (const NoDeviceError& e) {
        EXPECT_EQ(e.why(), NoDeviceError::Why::no_driver_library) << what;
        EXPECT_NE(std::string(e.what()).find("no CUDA driver"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::getenv("XCUDA_CUDA_DRIVER")), std::string::npos) << e.what();
    }
}

}  // namespace

TEST(NoDriver, TheOverrideIsInEffect) {
    ASSERT_NE(std::getenv("XCUDA_CUDA_DRIVER"), nullptr) << "run through ctest, which sets XCUDA_CUDA_DRIVER";
    EXPECT_FALSE(driver_available());
    EXPECT_NE(driver_unavailable_reason().find("cannot load"), std::string::npos) << driver_unavailable_reason();
}

TEST(NoDriver, EveryDriverSideCallThrowsNoDeviceErrorSayingWhy) {
    ASSERT_NE(std::getenv("XCUDA_CUDA_DRIVER"), nullptr);
    expect_no_driver([] { require_driver(); }, "require_driver");
    expect_no_driver([] { driver_version(); }, "driver_version");
    expect_no_driver([] { device_count(); }, "device_count");
    expect_no_driver([] { Device d(0); }, "Device");
    expect_no_driver([] { Device::current(); }, "Device::current");
    expect_no_driver([] { Device::memory_info(); }, "memory_info");
    expect_no_driver([] { DeviceBuffer b(16); }, "DeviceBuffer");
    expect_no_driver([] { PinnedBuffer b(16); }, "PinnedBuffer");
    expect_no_driver([] { Stream s; }, "Stream");
    expect_no_driver([] { Event e; }, "Event");
    expect_no_driver([] { Module::from_ptx(".version 8.0"); }, "Module::from_ptx");
    expect_no_driver([] { copy_to_device(0, nullptr, 0); }, "copy_to_device");
    expect_no_driver([] { synchronize_current_context(); }, "synchronize_current_context");
    expect_no_driver([] { synchronize_stream(nullptr); }, "synchronize_stream");
}

TEST(NoDriver, EmptyBuffersNeedNoDriver) {
    EXPECT_NO_THROW(DeviceBuffer(0));
    EXPECT_NO_THROW(PinnedBuffer(0));
}

TEST(NoDriver, CompilingStillWorksAndUsesTheFallbackArch) {
    EXPECT_EQ(default_arch(), fallback_arch);
    auto r = compile("extern \"C\" __global__ void k(int* p) { *p = 1; }", CompileOptions{});
    EXPECT_EQ(r.arch, fallback_arch);
    EXPECT_EQ(r.resources.count("k"), 1u);
}

// Runs with XCUDA_CUDA_DRIVER naming a library that does not exist (see CMakeLists.txt), so
// "no driver library" is checked on every machine, the GPU machine included: NoDriver.* with
// XCUDA_DEVICE=none (nothing can launch), NoDriverCpuDevice.* without it (the CPU device runs).
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
    ASSERT_STREQ(std::getenv("XCUDA_DEVICE"), "none") << "run through ctest, which sets XCUDA_DEVICE=none";
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

TEST(NoDriverCpuDevice, WithoutADriverTheCpuDeviceRunsKernels) {
    ASSERT_NE(std::getenv("XCUDA_CUDA_DRIVER"), nullptr);
    ASSERT_EQ(std::getenv("XCUDA_DEVICE"), nullptr) << "run through ctest, which leaves XCUDA_DEVICE unset";
    EXPECT_FALSE(gpu_available());
    EXPECT_NE(gpu_unavailable_reason().find("cannot load"), std::string::npos) << gpu_unavailable_reason();
    EXPECT_TRUE(driver_available());
    ASSERT_EQ(default_device_ordinal(), cpu_device_ordinal);
    EXPECT_THROW(device_count(), NoDeviceError);  // GPUs only: there are none
    PrimaryContext ctx{Device(cpu_device_ordinal)};
    ctx.make_current();
    EXPECT_TRUE(Device::current().is_cpu());
    EXPECT_EQ(default_arch(), "sm_90");
    const auto r =
        compile("extern \"C\" __global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 3; }", CompileOptions{});
    const Module m = Module::from_image(r.ptx, r.cubin);
    DeviceBuffer out(32 * sizeof(int));
    CUdeviceptr p = out.get();
    void* params[] = {&p};
    launch(m.function("k"), Dim3(1), Dim3(32), 0, nullptr, params);
    int host[32] = {};
    copy_to_host(host, out.get(), sizeof host);
    for (int i = 0; i < 32; ++i) EXPECT_EQ(host[i], i * 3);
}

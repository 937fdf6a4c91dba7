// Which NVRTC the loader opens when several are found, run by ctest once per scenario: the
// simulated driver ($XCUDA_SIM_DRIVER_VERSION) or none, and stand-in NVRTCs for CUDA 12 and 13
// ($XCUDA_FAKE_NVRTC_12, $XCUDA_FAKE_NVRTC_13) listed as the Python finder lists wheels.
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace xcuda::rt;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? v : "";
}

ToolkitPlace wheels(int major) {
    ToolkitPlace p;
    p.origin = "pip: NVIDIA's CUDA " + std::to_string(major) + " wheels";
    p.cuda_major = major;
    p.nvrtc = env(major == 13 ? "XCUDA_FAKE_NVRTC_13" : "XCUDA_FAKE_NVRTC_12");
    return p;
}

bool set_up() { return !env("XCUDA_FAKE_NVRTC_12").empty() && !env("XCUDA_FAKE_NVRTC_13").empty(); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(NvrtcChoice, ACuda12DriverGetsTheCuda12NvrtcThoughCuda13IsPreferred) {
    if (!set_up()) GTEST_SKIP() << "run through ctest (the stand-in NVRTCs' paths are unset)";
    ASSERT_TRUE(gpu_available()) << gpu_unavailable_reason();
    ASSERT_EQ(driver_version(), 12040);
    set_toolkit_places({wheels(13), wheels(12)});
    const NvrtcInUse n = nvrtc_in_use();
    EXPECT_EQ(n.major, 12);
    EXPECT_EQ(n.origin, "pip: NVIDIA's CUDA 12 wheels");
    EXPECT_EQ(n.driver_mismatch, "");
    EXPECT_TRUE(contains(n.skipped, env("XCUDA_FAKE_NVRTC_13"))) << n.skipped;
    EXPECT_TRUE(contains(n.skipped, "NVRTC 13.0 makes code for CUDA 13, and the GPU's driver supports CUDA 12.4"))
        << n.skipped;
}

TEST(NvrtcChoice, ACuda13DriverGetsTheFirstPlace) {
    if (!set_up()) GTEST_SKIP() << "run through ctest (the stand-in NVRTCs' paths are unset)";
    ASSERT_EQ(driver_version(), 13000);
    set_toolkit_places({wheels(13), wheels(12)});
    const NvrtcInUse n = nvrtc_in_use();
    EXPECT_EQ(n.major, 13);
    EXPECT_EQ(n.origin, "pip: NVIDIA's CUDA 13 wheels");
    EXPECT_EQ(n.skipped, "");
}

TEST(NvrtcChoice, WhenNoneSuitsTheDriverTheFirstLoadsAndSaysSo) {
    if (!set_up()) GTEST_SKIP() << "run through ctest (the stand-in NVRTCs' paths are unset)";
    ASSERT_EQ(driver_version(), 12040);
    set_toolkit_places({wheels(13)});
    const NvrtcInUse n = nvrtc_in_use();
    EXPECT_EQ(n.major, 13);
    EXPECT_EQ(n.origin, "pip: NVIDIA's CUDA 13 wheels");
    EXPECT_EQ(n.driver_mismatch, "NVRTC 13.0 makes code for CUDA 13, and the GPU's driver supports CUDA 12.4");
}

TEST(NvrtcChoice, WithoutAGpuTheFirstPlaceServes) {
    if (!set_up()) GTEST_SKIP() << "run through ctest (the stand-in NVRTCs' paths are unset)";
    ASSERT_FALSE(gpu_available());
    set_toolkit_places({wheels(13), wheels(12)});
    const NvrtcInUse n = nvrtc_in_use();
    EXPECT_EQ(n.major, 13);
    EXPECT_EQ(n.driver_mismatch, "");
}

TEST(NvrtcChoice, XcudaNvrtcIsUsedAsNamedWhateverTheDriver) {
    if (!set_up() || env("XCUDA_NVRTC").empty()) GTEST_SKIP() << "run through ctest (XCUDA_NVRTC unset)";
    ASSERT_EQ(driver_version(), 12040);
    set_toolkit_places({wheels(12)});
    const NvrtcInUse n = nvrtc_in_use();
    EXPECT_EQ(n.major, 13);
    EXPECT_EQ(n.origin, "XCUDA_NVRTC");
    EXPECT_TRUE(contains(n.driver_mismatch, "the GPU's driver supports CUDA 12.4")) << n.driver_mismatch;
}

TEST(NvrtcChoice, PipPackagesFollowTheCudaMajor) {
    EXPECT_EQ(pip_package_for("nvrtc", 13), "nvidia-cuda-nvrtc");
    EXPECT_EQ(pip_package_for("cccl", 13), "nvidia-cuda-cccl");
    EXPECT_EQ(pip_package_for("cccl", 12), "nvidia-cuda-cccl-cu12");
    EXPECT_EQ(pip_package_for("nvjitlink", 12), "nvidia-nvjitlink-cu12");
    EXPECT_EQ(pip_package_for("cupti", 13), "nvidia-cuda-cupti");
    EXPECT_EQ(pip_package_for("sanitizer", 12), "nvidia-cuda-sanitizer-api-cu12");
    EXPECT_EQ(pip_extra_for(12), "xcuda[cuda12]");
    EXPECT_EQ(pip_extra_for(13), "xcuda[cuda13]");
}

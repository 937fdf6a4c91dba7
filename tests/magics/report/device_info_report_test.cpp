#include <gtest/gtest.h>

#include "xcuda/report/device_info_report.hpp"

using namespace xcuda::report;

TEST(DeviceInfoReport, NoGpuIsSaidPlainly) {
    SystemInfo info;
    info.no_device_reason = "libcuda.so.1 not found (no NVIDIA driver)";
    info.nvrtc_major = 13;
    info.toolkit_path = "/usr/local/cuda";
    Rich r = device_info_report(info);
    EXPECT_EQ(r.plain.find("No CUDA GPU: libcuda.so.1 not found (no NVIDIA driver). Cells still compile; launches "
                           "raise NoDeviceError.\n"),
              0u)
        << r.plain;
    EXPECT_NE(r.plain.find("Driver: not loaded"), std::string::npos);
    EXPECT_NE(r.plain.find("NVRTC: 13.0"), std::string::npos);
    EXPECT_NE(r.plain.find("Toolkit: /usr/local/cuda"), std::string::npos);
}

TEST(DeviceInfoReport, ListsDevicesWithTheirFigures) {
    SystemInfo info;
    DeviceInfo d;
    d.index = 0;
    d.name = "NVIDIA H200 <NVL>";
    d.cc_major = 9;
    d.sm_count = 132;
    d.total_memory = 150754820096ULL;
    d.sm_clock_khz = 1980000;
    d.memory_clock_khz = 3201000;
    d.memory_bus_width_bits = 6144;
    d.l2_bytes = 60ULL << 20;
    d.current = true;
    info.devices = {d};
    info.driver_version = 13000;
    info.nvrtc_major = 13;
    Rich r = device_info_report(info);
    EXPECT_NE(r.plain.find("NVIDIA H200 <NVL>"), std::string::npos);
    EXPECT_NE(r.html.find("NVIDIA H200 &lt;NVL&gt;"), std::string::npos);
    EXPECT_NE(r.plain.find("9.0"), std::string::npos);
    EXPECT_NE(r.plain.find("140 GiB"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("1980 MHz"), std::string::npos);
    EXPECT_NE(r.plain.find("60 MiB"), std::string::npos);
    EXPECT_NE(r.plain.find("Driver: CUDA 13.0"), std::string::npos);
    EXPECT_NE(r.plain.find("0 *"), std::string::npos);
    EXPECT_EQ(r.plain.find("No CUDA GPU"), std::string::npos);
}

TEST(FormatCudaVersion, SplitsMajorAndMinor) {
    EXPECT_EQ(format_cuda_version(13000), "13.0");
    EXPECT_EQ(format_cuda_version(12040), "12.4");
}

#include <gtest/gtest.h>

#include "xcuda/report/device_info_report.hpp"

using namespace xcuda::report;

TEST(DeviceInfoReport, NoGpuIsSaidPlainly) {
    SystemInfo info;
    info.no_device_reason = "libcuda.so.1 not found (no NVIDIA driver)";
    info.pieces = {
        {"NVRTC", "13.0, /usr/local/cuda/lib64/libnvrtc.so.13 (from system toolkit: /usr/local/cuda)", false}};
    Rich r = device_info_report(info);
    EXPECT_EQ(r.plain.find("No NVIDIA GPU here: libcuda.so.1 not found (no NVIDIA driver). Cells still compile; "
                           "launches raise NoDeviceError.\n"),
              0u)
        << r.plain;
    EXPECT_NE(r.plain.find("Driver: none"), std::string::npos);
    EXPECT_NE(r.plain.find("NVRTC: 13.0, /usr/local/cuda/lib64/libnvrtc.so.13 (from system toolkit: /usr/local/cuda)"),
              std::string::npos);
}

TEST(DeviceInfoReport, OnTheCpuDeviceItSaysWhereKernelsRun) {
    SystemInfo info;
    info.no_device_reason = "no CUDA driver: cannot load libcuda.so.1 (no NVIDIA driver is installed here)";
    info.cpu = {true, true, "sm_90", 8ULL << 30, 2, true};
    Rich r = device_info_report(info);
    EXPECT_EQ(
        r.plain.find("No NVIDIA GPU here: no CUDA driver: cannot load libcuda.so.1 (no NVIDIA driver is installed "
                     "here). Kernels run on the CPU device.\n"),
        0u)
        << r.plain;
    EXPECT_NE(r.plain.find("CPU device (current): emulated sm_90"), std::string::npos) << r.plain;
}

TEST(DeviceInfoReport, AMissingPieceIsAWarningWithWhatToInstall) {
    SystemInfo info;
    info.pieces = {{"CCCL", "not found: <cuda/std/...>, cub and thrust: pip install nvidia-cuda-cccl", true}};
    Rich r = device_info_report(info);
    EXPECT_NE(r.plain.find("CCCL: not found: <cuda/std/...>, cub and thrust: pip install nvidia-cuda-cccl\n"),
              std::string::npos)
        << r.plain;
    EXPECT_NE(r.html.find("<th>CCCL</th><td class=\"xcuda-warn\">not found: &lt;cuda/std/...&gt;"), std::string::npos)
        << r.html;
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
    Rich r = device_info_report(info);
    EXPECT_NE(r.plain.find("NVIDIA H200 <NVL>"), std::string::npos);
    EXPECT_NE(r.html.find("NVIDIA H200 &lt;NVL&gt;"), std::string::npos);
    EXPECT_NE(r.plain.find("9.0"), std::string::npos);
    EXPECT_NE(r.plain.find("140 GiB"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("1980 MHz"), std::string::npos);
    EXPECT_NE(r.plain.find("60 MiB"), std::string::npos);
    EXPECT_NE(r.plain.find("Driver: CUDA 13.0"), std::string::npos);
    EXPECT_NE(r.plain.find("0 *"), std::string::npos);
    EXPECT_EQ(r.plain.find("No NVIDIA GPU"), std::string::npos);
}

TEST(FormatCudaVersion, SplitsMajorAndMinor) {
    EXPECT_EQ(format_cuda_version(13000), "13.0");
    EXPECT_EQ(format_cuda_version(12040), "12.4");
}

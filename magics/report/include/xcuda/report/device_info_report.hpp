// `%cuda_info`: devices, driver, and each piece of CUDA that xcuda loads (NVRTC, headers,
// nvJitLink, CUPTI, compute-sanitizer) with where it came from or what to install; the no-GPU
// case said plainly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    std::uint64_t total_memory = 0;  // bytes
    int sm_clock_khz = 0;            // 0 = unknown
    int memory_clock_khz = 0;        // 0 = unknown
    int memory_bus_width_bits = 0;   // 0 = unknown
    std::uint64_t l2_bytes = 0;
    bool current = false;  // the device %cuda_device selected
};

// The CPU device (cpu-device/): kernels run there without a GPU, or when %cuda_device cpu selects it.
struct CpuDeviceInfo {
    bool available = false;  // not with XCUDA_DEVICE=none
    bool current = false;
    std::string arch;          // the emulated one, "sm_90"
    std::uint64_t memory = 0;  // bytes of device memory it offers
    unsigned workers = 0;      // threads that run blocks
    bool checks = true;
};

// One piece of CUDA as found: "NVRTC" -> "13.0: /path/libnvrtc.so.13 (from ...)", or what is
// missing and how to get it ("not found: pip install ...").
struct Piece {
    std::string name;
    std::string text;
    bool missing = false;  // shown as a warning
};

struct SystemInfo {
    std::vector<DeviceInfo> devices;
    CpuDeviceInfo cpu;
    std::optional<int> driver_version;  // cuDriverGetVersion form: 13000 -> "13.0"
    std::string no_device_reason;       // why there is no GPU, when devices is empty
    std::vector<Piece> pieces;          // in the order shown, after the driver's line
};

// A table of devices, a line for the CPU device, then a line for the driver and one per piece.
// With no GPU: "No NVIDIA GPU here: <reason>." and where kernels run instead (the CPU device, or
// nowhere).
Rich device_info_report(const SystemInfo& info);

// 13000 -> "13.0", 12040 -> "12.4".
std::string format_cuda_version(int version);

}  // namespace xcuda::report

// CUDA devices and what they can do.
#pragma once

#include <xcuda/rt/dim3.hpp>

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>
#include <utility>

namespace xcuda::rt {

namespace detail {
struct Backend;  // driver_api.hpp: NVIDIA's driver or the CPU device
}  // namespace detail

// The CPU device's ordinal: GPUs are 0, 1, ...; the CPU device (cpu-device/) is this.
inline constexpr int cpu_device_ordinal = -1;

struct DeviceProperties {
    std::string name;
    int major = 0, minor = 0;  // compute capability
    std::string arch;          // "sm_90"
    int sm_count = 0;
    std::size_t total_memory = 0;  // bytes
    int clock_khz = 0;
    int memory_clock_khz = 0;
    int memory_bus_width_bits = 0;
    int l2_cache_bytes = 0;
    int warp_size = 0;
    int max_threads_per_block = 0;
    Dim3 max_block_dims;
    Dim3 max_grid_dims;
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    int max_shared_per_block = 0;        // without opt-in
    int max_shared_per_block_optin = 0;  // with cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)
    int max_shared_per_sm = 0;
    int regs_per_block = 0;
    int regs_per_sm = 0;
    int total_constant_bytes = 0;
    int pci_bus_id = 0, pci_device_id = 0, pci_domain_id = 0;
    bool concurrent_kernels = false;
    bool unified_addressing = false;
    bool managed_memory = false;
    bool cooperative_launch = false;
    bool cluster_launch = false;       // thread block clusters (compute capability 9.0+)
    bool kernel_exec_timeout = false;  // a display watchdog kills long kernels
};

// A device ordinal and its properties (read once per process and shared). Owns nothing, so it is
// copyable and cheap to construct again.
class Device {
public:
    // A GPU (0, 1, ...) or the CPU device (cpu_device_ordinal). Throws NoDeviceError, or
    // DriverError(INVALID_DEVICE) for an ordinal out of range.
    explicit Device(int ordinal);
    // The device of the calling thread's current context; the default device when none is current.
    static Device current();

    int ordinal() const noexcept { return ordinal_; }
    bool is_cpu() const noexcept { return ordinal_ == cpu_device_ordinal; }
    detail::Backend& backend() const noexcept { return *backend_; }
    CUdevice handle() const noexcept { return handle_; }
    const DeviceProperties& properties() const noexcept { return *props_; }
    const std::string& name() const noexcept { return props_->name; }
    const std::string& arch() const noexcept { return props_->arch; }
    // Any attribute the properties do not cover.
    int attribute(CUdevice_attribute attribute) const;
    // {free, total} bytes in the current context (cuMemGetInfo).
    static std::pair<std::size_t, std::size_t> memory_info();

private:
    int ordinal_;
    CUdevice handle_;
    detail::Backend* backend_;
    std::shared_ptr<const DeviceProperties> props_;
};

}  // namespace xcuda::rt

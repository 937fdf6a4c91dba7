#include "driver_api.hpp"

#include <xcuda/rt/device.hpp>

namespace xcuda::rt {

Device::Device(int ordinal) : ordinal_(ordinal), handle_(0) {
    const auto& d = detail::driver();
    detail::call("cuDeviceGet", d.cuDeviceGet, &handle_, ordinal);
    char name[256] = {};
    detail::call("cuDeviceGetName", d.cuDeviceGetName, name, static_cast<int>(sizeof(name) - 1), handle_);
    props_.name = name;
    auto attr = [&](CUdevice_attribute a) { return attribute(a); };
    props_.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    props_.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    props_.arch = "sm_" + std::to_string(props_.major * 10 + props_.minor);
    props_.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    detail::call("cuDeviceTotalMem", d.cuDeviceTotalMem, &props_.total_memory, handle_);
    props_.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    props_.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    props_.memory_bus_width_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    props_.l2_cache_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    props_.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    props_.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    props_.max_block_dims = Dim3(static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                                 static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                                 static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)));
    props_.max_grid_dims = Dim3(static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                                static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                                static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)));
    props_.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    props_.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    props_.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    props_.max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    props_.max_shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    props_.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    props_.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    props_.total_constant_bytes = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    props_.pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    props_.pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
    props_.pci_domain_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
    props_.concurrent_kernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS) != 0;
    props_.unified_addressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
    props_.managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
    props_.cooperative_launch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
    props_.kernel_exec_timeout = attr(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT) != 0;
}

Device Device::current() {
    const auto& d = detail::driver();
    CUcontext ctx = nullptr;
    detail::call("cuCtxGetCurrent", d.cuCtxGetCurrent, &ctx);
    if (ctx == nullptr) return Device(0);
    CUdevice dev = 0;
    detail::call("cuCtxGetDevice", d.cuCtxGetDevice, &dev);
    // Ordinals and CUdevice handles coincide for devices obtained through cuDeviceGet.
    return Device(static_cast<int>(dev));
}

int Device::attribute(CUdevice_attribute attribute) const {
    int value = 0;
    detail::call("cuDeviceGetAttribute", detail::driver().cuDeviceGetAttribute, &value, attribute, handle_);
    return value;
}

std::pair<std::size_t, std::size_t> Device::memory_info() {
    std::size_t free = 0, total = 0;
    detail::call("cuMemGetInfo", detail::driver().cuMemGetInfo, &free, &total);
    return {free, total};
}

}  // namespace xcuda::rt

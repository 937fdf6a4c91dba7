#include "driver_api.hpp"

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <map>
#include <mutex>

namespace xcuda::rt {

namespace {

DeviceProperties read_properties(const Device& device) {
    const auto& d = device.backend().api;
    const CUdevice handle = device.handle();
    DeviceProperties p;
    char name[256] = {};
    check(d.cuDeviceGetName(name, static_cast<int>(sizeof(name) - 1), handle), "cuDeviceGetName");
    p.name = name;
    auto attr = [&](CUdevice_attribute a) { return device.attribute(a); };
    p.major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    p.minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    p.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
    p.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    check(d.cuDeviceTotalMem(&p.total_memory, handle), "cuDeviceTotalMem");
    p.clock_khz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    p.memory_clock_khz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    p.memory_bus_width_bits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    p.l2_cache_bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    p.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    p.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    p.max_block_dims = Dim3(static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)),
                            static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)),
                            static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)));
    p.max_grid_dims = Dim3(static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)),
                           static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)),
                           static_cast<unsigned>(attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)));
    p.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    p.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    p.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    p.max_shared_per_block_optin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p.max_shared_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    p.regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    p.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    p.total_constant_bytes = attr(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    p.pci_bus_id = attr(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
    p.pci_device_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
    p.pci_domain_id = attr(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
    p.concurrent_kernels = attr(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS) != 0;
    p.unified_addressing = attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) != 0;
    p.managed_memory = attr(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY) != 0;
    p.cooperative_launch = attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) != 0;
    p.cluster_launch = attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
    p.kernel_exec_timeout = attr(CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT) != 0;
    return p;
}

}  // namespace

Device::Device(int ordinal)
    : ordinal_(ordinal),
      handle_(0),
      backend_(ordinal == cpu_device_ordinal ? &detail::cpu_backend() : &detail::gpu_backend()) {
    // Properties never change while the process lives; reading ~30 attributes per Device would
    // put microseconds on every launch path that asks for a limit.
    static std::mutex mutex;
    static std::map<int, std::shared_ptr<const DeviceProperties>> cache;
    if (!backend_->usable) throw NoDeviceError(backend_->why, backend_->reason);
    detail::throw_if_lost(*backend_);
    // The CPU device is its driver's device 0.
    check(backend_->api.cuDeviceGet(&handle_, is_cpu() ? 0 : ordinal), "cuDeviceGet");
    std::lock_guard<std::mutex> lock(mutex);
    auto& slot = cache[ordinal];
    if (!slot) slot = std::make_shared<const DeviceProperties>(read_properties(*this));
    props_ = slot;
}

Device Device::current() {
    detail::Backend& b = detail::current_backend();
    const auto& d = detail::driver();
    CUcontext ctx = nullptr;
    detail::call("cuCtxGetCurrent", d.cuCtxGetCurrent, &ctx);
    if (ctx == nullptr) return Device(default_device_ordinal());
    CUdevice dev = 0;
    detail::call("cuCtxGetDevice", d.cuCtxGetDevice, &dev);
    // Ordinals and CUdevice handles coincide for devices obtained through cuDeviceGet.
    return Device(detail::ordinal_of(b, dev));
}

int Device::attribute(CUdevice_attribute attribute) const {
    detail::throw_if_lost(*backend_);
    int value = 0;
    check(backend_->api.cuDeviceGetAttribute(&value, attribute, handle_), "cuDeviceGetAttribute");
    return value;
}

std::pair<std::size_t, std::size_t> Device::memory_info() {
    std::size_t free = 0, total = 0;
    detail::call("cuMemGetInfo", detail::driver().cuMemGetInfo, &free, &total);
    return {free, total};
}

}  // namespace xcuda::rt

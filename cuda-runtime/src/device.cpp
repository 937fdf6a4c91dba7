#include "driver_api.hpp"

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <map>
#include <mutex>

namespace xcuda::rt {

namespace {

// The properties that are one attribute each, and that attribute.
template <class T>
struct AttributeField {
    T DeviceProperties::*field;
    CUdevice_attribute attribute;
};

constexpr AttributeField<int> int_attributes[] = {
    {&DeviceProperties::major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
    {&DeviceProperties::minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
    {&DeviceProperties::sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
    {&DeviceProperties::clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE},
    {&DeviceProperties::memory_clock_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE},
    {&DeviceProperties::memory_bus_width_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH},
    {&DeviceProperties::l2_cache_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE},
    {&DeviceProperties::warp_size, CU_DEVICE_ATTRIBUTE_WARP_SIZE},
    {&DeviceProperties::max_threads_per_block, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
    {&DeviceProperties::max_threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
    {&DeviceProperties::max_blocks_per_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
    {&DeviceProperties::max_shared_per_block, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
    {&DeviceProperties::max_shared_per_block_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
    {&DeviceProperties::max_shared_per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
    {&DeviceProperties::regs_per_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK},
    {&DeviceProperties::regs_per_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
    {&DeviceProperties::total_constant_bytes, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY},
    {&DeviceProperties::pci_bus_id, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID},
    {&DeviceProperties::pci_device_id, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID},
    {&DeviceProperties::pci_domain_id, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID},
};

// Each true when its attribute is nonzero.
constexpr AttributeField<bool> flag_attributes[] = {
    {&DeviceProperties::concurrent_kernels, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS},
    {&DeviceProperties::unified_addressing, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING},
    {&DeviceProperties::managed_memory, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY},
    {&DeviceProperties::cooperative_launch, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH},
    {&DeviceProperties::cluster_launch, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH},
    {&DeviceProperties::kernel_exec_timeout, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT},
};

DeviceProperties read_properties(const Device& device) {
    const auto& d = device.backend().api;
    const CUdevice handle = device.handle();
    DeviceProperties p;
    char name[256] = {};
    check(d.cuDeviceGetName(name, static_cast<int>(sizeof(name) - 1), handle), "cuDeviceGetName");
    p.name = name;
    for (const auto& [field, attribute] : int_attributes) p.*field = device.attribute(attribute);
    for (const auto& [field, attribute] : flag_attributes) p.*field = device.attribute(attribute) != 0;
    p.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
    check(d.cuDeviceTotalMem(&p.total_memory, handle), "cuDeviceTotalMem");
    auto dims = [&](CUdevice_attribute x, CUdevice_attribute y, CUdevice_attribute z) {
        return Dim3(static_cast<unsigned>(device.attribute(x)), static_cast<unsigned>(device.attribute(y)),
                    static_cast<unsigned>(device.attribute(z)));
    };
    p.max_block_dims = dims(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                            CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    p.max_grid_dims = dims(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
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

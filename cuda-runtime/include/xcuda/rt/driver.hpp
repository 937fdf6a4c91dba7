// The CUDA driver, opened at run time (libcuda.so.1 is never linked): loaded on first use from
// $XCUDA_CUDA_DRIVER when set (tests use it to force "no driver library"), else "libcuda.so.1";
// and the CPU device, which runs kernels without a GPU behind the same driver calls.
// $XCUDA_DEVICE chooses which one runs when the program does not: `auto` (default: the GPU when
// there is one, else the CPU device), `cpu`, or `gpu` / `none` (GPUs only: without one, launches
// raise NoDeviceError).
#pragma once

#include <string>

namespace xcuda::rt {

// True when the device that runs by default ($XCUDA_DEVICE) is usable: a GPU, or the CPU device.
// Never throws.
bool driver_available() noexcept;
// Empty when driver_available(); otherwise the reason NoDeviceError would carry.
std::string driver_unavailable_reason();
// Throws NoDeviceError unless driver_available().
void require_driver();

// True when NVIDIA's driver loaded, cuInit succeeded and at least one GPU exists. Never throws.
bool gpu_available() noexcept;
// Empty when gpu_available(); otherwise why not.
std::string gpu_unavailable_reason();
// True when the CPU device can run kernels (it always can, unless it failed to start). Never throws.
bool cpu_device_available() noexcept;
// The device that runs by default: 0 (the first GPU) or cpu_device_ordinal (device.hpp).
// Throws NoDeviceError when it is not usable (XCUDA_DEVICE=none without a GPU).
int default_device_ordinal();

// NVIDIA's cuDriverGetVersion, e.g. 13000. Throws NoDeviceError without NVIDIA's driver.
int driver_version();
// Number of GPUs. Throws NoDeviceError when there is no driver or no GPU.
int device_count();

}  // namespace xcuda::rt

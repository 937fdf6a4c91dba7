// The CUDA driver, opened at run time (libcuda.so.1 is never linked): loaded on first use from
// $XCUDA_CUDA_DRIVER when set (tests use it to force "no driver library"), else "libcuda.so.1".
#pragma once

#include <string>

namespace xcuda::rt {

// True when the driver loaded, cuInit succeeded and at least one device exists. Never throws.
bool driver_available() noexcept;
// Empty when driver_available(); otherwise the reason NoDeviceError would carry.
std::string driver_unavailable_reason();
// Throws NoDeviceError unless driver_available().
void require_driver();

// cuDriverGetVersion, e.g. 13000. Throws NoDeviceError.
int driver_version();
// Number of CUDA devices. Throws NoDeviceError when there is no driver or no device.
int device_count();

}  // namespace xcuda::rt

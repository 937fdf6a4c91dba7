#pragma once
// %cuda_info (devices, driver, NVRTC, toolkit) and %cuda_device [N].
#include <string>

namespace xcuda::magics {

void cuda_info_line_magic(const std::string& line);
void cuda_device_line_magic(const std::string& line);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_info_help();

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_device_help();

}  // namespace xcuda::magics

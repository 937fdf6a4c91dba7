#pragma once
// %cuda_info (devices, driver, NVRTC, toolkit) and %cuda_device [N].
#include <string>

namespace xcuda::magics {

void cuda_info_line_magic(const std::string& line);
void cuda_device_line_magic(const std::string& line);

}  // namespace xcuda::magics

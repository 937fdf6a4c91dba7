#pragma once
// %cuda_cache info|clear: the compile cache (memory and disk).
#include <string>

namespace xcuda::magics {

void cuda_cache_line_magic(const std::string& line);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_cache_help();

}  // namespace xcuda::magics

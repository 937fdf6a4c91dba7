// The C and C++ standard headers NVRTC does not have (<cstdio>, <cmath>, <cstdint>,
// <type_traits>, ...), so a cell includes them as code written for nvcc does.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace xcuda::compile {

// Every built-in header as {name, text}, sorted by name: both spellings of each C header
// (<cstdio> and <stdio.h>), <type_traits>, <utility>, <limits>, <algorithm>. Each is a few lines
// over what NVRTC declares itself (printf, malloc/free, memcpy/memset, the math functions,
// __assertfail) or over CCCL's <cuda/std/...>, found through the toolkit's include dirs.
const std::vector<std::pair<std::string, std::string>>& builtin_headers();

}  // namespace xcuda::compile

// The cache's key of a cell's compile: SHA-256 over what its result depends on. What the session
// adds to each NVRTC call is not in it: the private precompiled-header directory (it names the
// process), -minimal and the arguments rt::compile adds.
#pragma once

#include "xcuda/compile/header_registry.hpp"
#include "xcuda/compile/toolchain_facts.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile::detail {

// The SHA-256 key (hex) of compiling `source` with the cell's NVRTC options `cell_options`
// (nvrtc_options()) and template instantiations `instantiate`, for `arch` with `nvrtc` (its
// version and the toolkit's include dirs it is given). `used`: the registered
// headers the cell includes (name, text); `headers`: the registry, for the ones registered in a
// built-in header's place.
std::string cache_key(std::string_view source, const std::vector<std::string>& cell_options,
                      const std::vector<std::string>& instantiate,
                      const std::vector<std::pair<std::string, std::string>>& used, const HeaderRegistry& headers,
                      const std::string& arch, const NvrtcFacts& nvrtc);

}  // namespace xcuda::compile::detail

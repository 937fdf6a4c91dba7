// The re-run memo of a CompileSession: a call's own text (cell, options, instantiations, arch)
// finds the cache key its compile derived, so re-running an unchanged cell parses, follows and
// hashes nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile::detail {

// What a call was given that its result depends on, as given: the cell's text, its NVRTC
// options, instantiations and arch; length-prefixed fields, so no two different calls write the
// same string. Headers are not in it: their registry's generation is checked beside it.
std::string rerun_key(std::string_view source, const std::vector<std::string>& opts,
                      const std::vector<std::string>& instantiate, const std::string& arch);

}  // namespace xcuda::compile::detail

// `%%cuda --sass` / Module.sass(): disassembly highlighted, or one clear sentence when the
// disassembler is not installed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

// SASS text as `cuobjdump -sass` or `nvdisasm` prints it.
Rich sass_view(std::string_view sass);

// tool_missing_message("nvdisasm", {"/usr/local/cuda/bin", "PATH"}, "cuda-nvdisasm",
//                      "to see SASS", "PTX is available with --ptx") ->
// "nvdisasm not found in /usr/local/cuda/bin or PATH; install the CUDA Toolkit's
//  cuda-nvdisasm package to see SASS; PTX is available with --ptx."
// `alternative` may be empty.
std::string tool_missing_message(std::string_view tool, const std::vector<std::string>& searched,
                                 std::string_view package, std::string_view purpose, std::string_view alternative);
Rich tool_missing(std::string_view tool, const std::vector<std::string>& searched, std::string_view package,
                  std::string_view purpose, std::string_view alternative);

}  // namespace xcuda::report

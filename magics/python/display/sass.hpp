#pragma once
// SASS of a CUBIN through cuobjdump or nvdisasm, run without a shell (posix_spawn with an
// argument vector) on a private temporary file.
#include <xcuda/report/rich.hpp>

#include <string>

namespace xcuda::magics {

// The highlighted SASS, or one clear message naming the missing tool.
report::Rich sass_report(const std::string& cubin);

}  // namespace xcuda::magics

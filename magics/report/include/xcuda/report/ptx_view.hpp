// `%%cuda --ptx`: PTX interleaved with the cell's own source lines, from line info.
#pragma once

#include <string_view>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

// Each run of instructions that a `.loc` attributes to a line of `cell_file` is preceded
// by that source line ("//> 12: y[i] = a * x[i];" in plain text, a source row in HTML).
// A `.loc` in another file (a header) counts for the cell line in its `inlined_at` when
// there is one. `cell_file` is matched against the `.file` names exactly or as their last
// path component; empty means the file with the most `.loc` lines. PTX without line info
// is shown highlighted as is, with a note saying to compile with --lineinfo.
Rich ptx_view(std::string_view ptx, std::string_view cell_source, std::string_view cell_file);

}  // namespace xcuda::report

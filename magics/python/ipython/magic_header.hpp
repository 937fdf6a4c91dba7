#pragma once
// %%cuda_header NAME: a header later %%cuda cells #include "NAME".
#include <string>

namespace xcuda::magics {

void cuda_header_cell_magic(const std::string& line, const std::string& cell);
// %cuda_header (line form): only -h; says to use the cell form otherwise.
void cuda_header_line_magic(const std::string& line);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_header_help();

}  // namespace xcuda::magics

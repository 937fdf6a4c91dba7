#pragma once
// %%cuda_profile: runs a Python cell and reports every xcuda kernel launch in it.
#include <string>

namespace xcuda::magics {

void cuda_profile_cell_magic(const std::string& line, const std::string& cell);
// %cuda_profile (line form): only -h; says to use the cell form otherwise.
void cuda_profile_line_magic(const std::string& line);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_profile_help();

}  // namespace xcuda::magics

#pragma once
// %%cuda [options]: compile the cell and bind its kernels into the user namespace.
#include <string>

namespace xcuda::magics {

void cuda_cell_magic(const std::string& line, const std::string& cell);
// `%cuda -h` (IPython refuses a cell magic with an empty body, so help is a line magic too).
void cuda_line_magic(const std::string& line);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_help();

}  // namespace xcuda::magics

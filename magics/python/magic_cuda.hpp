#pragma once
// %%cuda [options]: compile the cell and bind its kernels into the user namespace.
#include <string>

namespace xcuda::magics {

void cuda_cell_magic(const std::string& line, const std::string& cell);

}  // namespace xcuda::magics

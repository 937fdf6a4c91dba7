#pragma once
// %%cuda_profile: runs a Python cell and reports every xcuda kernel launch in it.
#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

void cuda_profile_cell_magic(const std::string& line, const std::string& cell);
// %cuda_profile (line form): only -h; says to use the cell form otherwise.
void cuda_profile_line_magic(const std::string& line);

// The magic's work without IPython (xcuda.cuda_profile): runs `source` with `globals` as its
// namespace and returns the report (an xcuda.Report). When the code raises, the report of the
// launches before the error is shown (printed without IPython) and the error propagates.
pybind11::object profile_source(const std::string& source, pybind11::object globals);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_profile_help();

}  // namespace xcuda::magics

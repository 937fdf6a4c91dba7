#pragma once
// %%cuda_profile: runs a Python cell and reports every xcuda kernel launch in it.
#include "hardware_profile.hpp"

#include <pybind11/pybind11.h>

#include <functional>
#include <string>

namespace xcuda::magics {

void cuda_profile_cell_magic(const std::string& line, const std::string& cell);
// %cuda_profile (line form): only -h; says to use the cell form otherwise.
void cuda_profile_line_magic(const std::string& line);

// The magic's work without IPython (xcuda.cuda_profile): runs `source` with `globals` as its
// namespace and returns the report (an xcuda.Report). When the code raises, the report of the
// launches before the error is shown (printed without IPython) and the error propagates.
pybind11::object profile_source(const std::string& source, pybind11::object globals,
                                const HardwareProfileRequest& request = {});

// The same for a callable (Kernel.profile): runs `work` once under the recorder and the
// profilers `request` names, and returns the report.
pybind11::object profile_callable(const std::function<void()>& work, const HardwareProfileRequest& request);

// Kernel.profile(*args, grid=, block=, ..., metrics="basic", lines=False): the launch profiled
// with hardware counters or PC sampling (one of them: they cannot share a launch).
pybind11::object profile_kernel(pybind11::object kernel, pybind11::args args, pybind11::kwargs kwargs);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_profile_help();

}  // namespace xcuda::magics

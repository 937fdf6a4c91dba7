#pragma once
// What %%cuda_profile, xcuda.cuda_profile and Kernel.profile share: run Python code once under
// the launch recorder (and the hardware profilers a request names) and report its launches.
#include "profiling/hardware_profile.hpp"

#include <pybind11/pybind11.h>

#include <functional>
#include <string>

namespace xcuda::magics {

// The magic's work without IPython (xcuda.cuda_profile): runs `source` with `globals` as its
// namespace and returns the report (an xcuda.Report). When the code raises, the report of the
// launches before the error is shown (printed without IPython) and the error propagates.
pybind11::object profile_source(const std::string& source, pybind11::object globals,
                                const HardwareProfileRequest& request = {});

// The same for a callable: runs `work` once under the recorder and the profilers `request`
// names, and returns the report.
pybind11::object profile_callable(const std::function<void()>& work, const HardwareProfileRequest& request);

// Kernel.profile(*args, grid=, block=, ..., metrics="basic", lines=False): the launch profiled
// with hardware counters or PC sampling (one of them: they cannot share a launch).
pybind11::object profile_kernel(pybind11::object kernel, pybind11::args args, pybind11::kwargs kwargs);

// Adds Kernel.profile to the Kernel class define_kernel_objects made.
void define_kernel_profile(pybind11::module_& m);

}  // namespace xcuda::magics

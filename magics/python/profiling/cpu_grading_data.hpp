#pragma once
// The CPU device's exact counts and access traces of the launches a piece of Python makes, as
// Python data (what xcuda's exercise grader measures its gates and draws its pictures from),
// with the cell's lines and the kernels' source names.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// xcuda._core._cpu_launch_counts(work) and _cpu_launch_traces(work).
void define_cpu_grading_data(pybind11::module_& m);

}  // namespace xcuda::magics

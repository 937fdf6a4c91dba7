#pragma once
// %cuda_timeit [-n N] [-r R] [-o] STMT: GPU time of the kernel launches a Python statement makes.
#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

// None, or the xcuda.BenchmarkResult with -o.
pybind11::object cuda_timeit_line_magic(const std::string& line);

}  // namespace xcuda::magics

#pragma once
// %cuda_timeit [-n N] [-r R] [-o] STMT: GPU time of the kernel launches a Python statement makes.
#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

// None, or the xcuda.BenchmarkResult with -o.
pybind11::object cuda_timeit_line_magic(const std::string& line);

// The magic's work without IPython (xcuda.cuda_timeit): runs `stmt` with `globals` as its
// namespace; number 0 = automatic. A statement that launches nothing is a UsageError (a
// ValueError where IPython is not loaded).
pybind11::object time_statement(const std::string& stmt, pybind11::object globals, int number, int repeat);

// The help `-h` prints, for `?` (the registered function's docstring).
std::string cuda_timeit_help();

}  // namespace xcuda::magics

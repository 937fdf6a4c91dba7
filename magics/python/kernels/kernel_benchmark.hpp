#pragma once
// Kernel.benchmark(...) and the xcuda.BenchmarkResult it (and %cuda_timeit -o) returns: GPU
// time per launch from CUDA events, summarised like IPython's %timeit.
#include <xcuda/report/timing_report.hpp>

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace xcuda::magics {

class Kernel;

struct BenchmarkResult {
    report::TimingSummary summary;
    std::vector<double> timings;  // seconds per launch (or per loop), one per run
    std::string label;            // kernel name or timed statement
    std::string per;              // "launch", or "loop" for a statement with several launches
};

// Auto `number`: enough launches for one run to take about this long on the GPU...
inline constexpr double target_run_seconds = 0.2;
// ...but never more launches per run than this (a kernel of a few ns would need millions).
inline constexpr int max_launches_per_run = 100000;

// Kernel.benchmark(*args, grid=, block=, shared_mem=0, stream=None, number=None, repeat=7,
// warmup=1) -> BenchmarkResult.
pybind11::object benchmark_kernel(Kernel& kernel, pybind11::args args, pybind11::kwargs kwargs);
const char* benchmark_docstring();

// A positive count option ("repeat", "number"): ValueError naming it when below `minimum`.
int checked_count(pybind11::handle value, const char* what, int minimum);

void define_benchmark_result(pybind11::module_& m);

}  // namespace xcuda::magics

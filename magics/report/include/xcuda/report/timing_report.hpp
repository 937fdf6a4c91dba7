// `%cuda_timeit` and Kernel.benchmark(): device time from CUDA events (a GPU's, or the CPU
// device's emulated time), summarised like IPython's %timeit.
#pragma once

#include <string>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct TimingSummary {
    int repeats = 0;      // runs (one event pair each)
    int number = 0;       // launches (statement executions) per run
    double median = 0.0;  // seconds per launch
    double min = 0.0;
    double max = 0.0;
    double mean = 0.0;
    double stdev = 0.0;     // sample standard deviation (n-1); 0 for one run
    bool emulated = false;  // timed on the CPU device: how long the emulation took, not a GPU's time
};

// per_launch_seconds: one value per run (run time / number). Throws std::invalid_argument
// when empty or when number < 1.
TimingSummary summarize_timing(const std::vector<double>& per_launch_seconds, int number);

// "12.3 µs ± 0.41 µs per launch (median of 7 runs, 1000 launches each; CUDA events)"; on the CPU
// device "...; device time (emulated) on the CPU device)".
// `per` names one timed unit ("launch", or "loop" for a statement with several launches).
std::string timeit_line(const TimingSummary& summary, const std::string& per = "launch");

// The line above plus a small table (median, min, max, mean, stdev) in HTML; `label` is
// the timed statement or kernel name, shown escaped.
Rich timing_report(const TimingSummary& summary, const std::string& label, const std::string& per = "launch");

}  // namespace xcuda::report

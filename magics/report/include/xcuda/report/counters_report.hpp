// Hardware-counter profiling (CUPTI): per launch a speed-of-light table, a verdict (memory-,
// compute- or latency-bound) and every metric collected; across launches a roofline chart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "xcuda/report/profile_report.hpp"
#include "xcuda/report/rich.hpp"
#include "xcuda/report/roofline.hpp"

namespace xcuda::report {

struct Metric {
    std::string name;  // raw CUPTI metric, e.g. "dram__bytes_read.sum"
    double value = 0;
    std::string unit;  // "byte", "%", "nsecond", ...
};

struct CounterLaunch {
    std::string kernel;
    Dim3 grid, block;
    std::optional<double> duration_ns;
    // Speed of light, each in percent of the device's peak (absent = not collected).
    std::optional<double> sm_throughput_pct, memory_throughput_pct, dram_throughput_pct;
    std::optional<double> achieved_occupancy_pct, theoretical_occupancy_pct;
    std::optional<double> l1_hit_rate_pct, l2_hit_rate_pct;
    std::optional<double> dram_bytes_read, dram_bytes_write;   // bytes
    std::optional<double> flops_fp16, flops_fp32, flops_fp64;  // operation counts (an FMA counts 2)
    std::vector<Metric> metrics;                               // every metric collected, in the order asked
};

// Above this share of peak a unit is what bounds the launch.
constexpr double kBoundThresholdPct = 60.0;

enum class Bound { memory, compute, latency, unknown };

struct Verdict {
    Bound bound = Bound::unknown;
    std::string text;  // "memory-bound: DRAM at 91% of peak, SM at 18%"
};

// From the throughput percentages: the higher of SM and memory (the larger of memory and
// DRAM throughput) when it is above kBoundThresholdPct, latency-bound when both were
// collected and neither is, unknown when what is missing could change the answer.
Verdict verdict(const CounterLaunch& launch);

// One section per launch (speed of light, verdict, all metrics); the roofline chart (svg)
// when `roofline` is given and at least one launch has FP operations, DRAM bytes and a
// duration, with the launches that lack them listed and why. `note`, when not empty, is a
// paragraph on top (e.g. why counters could not be collected). No launches: one line.
Rich counters_report(const std::vector<CounterLaunch>& launches, const std::optional<Roofline>& roofline,
                     const std::string& note);

}  // namespace xcuda::report

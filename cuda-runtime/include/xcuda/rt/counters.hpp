// Hardware counters of kernels launched in this process, through CUPTI's range profiler with
// kernel replay: every kernel launched while a collection runs is one range, replayed by CUPTI
// as many passes as the metrics need (its memory saved and restored between passes, so a
// kernel that updates its inputs is measured on the inputs it was given), and evaluated into
// metrics by the profiler host API. The metric names are Nsight Compute's.
#pragma once

#include <xcuda/rt/context.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace xcuda::rt {

struct MetricDescription {
    std::string name;
    std::string description;
    std::string unit;  // "byte", "nsecond", "%", ...
};

// CUPTI's name for a device's chip ("GH100" for the H100 and H200). Needs the driver.
std::string chip_name(int device_ordinal);

// Chips the host API knows, and what it knows of a chip without a GPU: its base metrics
// (counters, ratios and throughputs) and a metric's description and unit. Throws
// ProfilerUnavailable when CUPTI is missing; std::invalid_argument for an unknown chip or metric.
std::vector<std::string> supported_chips();
std::vector<std::string> base_metrics(const std::string& chip);
MetricDescription describe_metric(const std::string& chip, const std::string& metric);

// CUPTI names auto ranges by their index only, so a kernel is known by its place in launch
// order: the caller, which made the launches, names them.
struct KernelCounters {
    std::vector<double> values;  // one per metric asked, in order
};

struct CounterCollection {
    std::string chip;
    std::vector<std::string> metrics;
    std::vector<MetricDescription> descriptions;  // of `metrics`, in order
    std::vector<KernelCounters> kernels;          // in launch order
    std::size_t passes = 0;                       // replays of each kernel the metrics needed
};

// Runs `work` (which launches kernels in `context`, and may synchronise) with the counters of
// `metrics` collected for each kernel it launches, up to `max_kernels` of them (CUPTI leaves
// later ones out without saying so: a caller that counts its launches can tell). Throws
// ProfilerUnavailable when counters cannot be read (the cause and the fix in what()), and
// std::invalid_argument naming a metric the chip does not have, before `work` runs. What `work`
// throws propagates after the profiler is turned off.
CounterCollection collect_counters(const PrimaryContext& context, const std::vector<std::string>& metrics,
                                   std::size_t max_kernels, const std::function<void()>& work);

}  // namespace xcuda::rt

#pragma once
// `%%cuda_profile --metrics` / `--lines` and Kernel.profile: hardware counters (speed of
// light, roofline) and PC sampling (hot lines of the cell) of the launches some Python code
// makes, collected in-process with CUPTI while that code runs once.
#include <xcuda/report/rich.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace xcuda::magics {

class LaunchRecorder;

struct HardwareProfileRequest {
    std::optional<std::string> metrics;  // a set (basic, memory, compute, all) or metric names, comma-separated
    bool lines = false;                  // PC sampling, shown on the cells' lines
};

// The metric names `spec` stands for (sets expanded, names kept in order, duplicates dropped).
// UsageError naming a word that is neither a set nor a metric name (metric names hold "__").
std::vector<std::string> metric_names(const std::string& spec);

// The sets, for -h: "basic: ..., memory: ...".
std::string metric_sets_help();

// UsageError (ValueError without IPython) for a request that cannot run: --metrics with
// --lines, or a metric set or name that does not exist. hardware_profile checks it too; callers
// check first so that nothing runs and no report is shown.
void check_request(const HardwareProfileRequest& request);

// Runs `work`, which launches through `recorder` (made with details), under what `request`
// asks for, and returns the report. When the counters or sampling cannot run (no CUPTI, not
// permitted, no GPU), `work` still runs once and `timing` (the event-timed report of the
// recorder's launches) is returned with one line first naming the cause and the fix. What
// `work` raises propagates.
report::Rich hardware_profile(LaunchRecorder& recorder, const std::function<void()>& work,
                              const HardwareProfileRequest& request,
                              const std::function<std::optional<report::Rich>()>& timing);

// True while CUPTI's range profiler collects counters on this thread's launches. A graph
// launch is refused then: CUPTI's kernel replay gives it no range and, seen on the H200, no
// kernel launched after it in the same collection gets one either.
bool collecting_counters() noexcept;

// xcuda.counters(fn, metrics): the raw values, one {metric: value} per kernel `work` launched,
// in launch order. Throws rt::ProfilerUnavailable / NoDeviceError when they cannot be read.
std::vector<std::map<std::string, double>> counter_values(const std::function<void()>& work, const std::string& spec);

// xcuda.profiler_metrics(chip=None): the metric names CUPTI knows for `chip` (the current
// device's when empty), without needing a GPU when a chip is named.
std::vector<std::string> profiler_metrics(const std::string& chip);
std::vector<std::string> profiler_chips();

}  // namespace xcuda::magics

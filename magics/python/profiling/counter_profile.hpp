#pragma once
// Hardware counters of the launches some Python code makes (CUPTI's range profiler, in this
// process): speed of light, DRAM bytes, FLOPs and a roofline per kernel, named by the launches
// xcuda recorded.
#include <xcuda/report/rich.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace xcuda::magics {

class LaunchRecorder;

// The metric names `spec` stands for (sets expanded, names kept in order, duplicates dropped).
// UsageError naming a word that is neither a set nor a metric name (metric names hold "__").
std::vector<std::string> metric_names(const std::string& spec);

// The sets, for -h: "basic: ..., memory: ...".
std::string metric_sets_help();

// The counters report of the kernels `work` launches through `recorder`; `ran` turns true once
// `work` has started (so a caller that falls back knows whether to run it).
report::Rich counter_report(LaunchRecorder& recorder, const std::function<void()>& work, const std::string& spec,
                            bool& ran);

// xcuda.counters(fn, metrics): the raw values, one {metric: value} per kernel `work` launched,
// in launch order. Throws rt::ProfilerUnavailable / NoDeviceError when they cannot be read.
std::vector<std::map<std::string, double>> counter_values(const std::function<void()>& work, const std::string& spec);

// xcuda.profiler_metrics(chip=None): the metric names CUPTI knows for `chip` (the current
// device's when empty), without needing a GPU when a chip is named.
std::vector<std::string> profiler_metrics(const std::string& chip);
std::vector<std::string> profiler_chips();

}  // namespace xcuda::magics

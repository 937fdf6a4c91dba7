#pragma once
// `%%cuda_profile --metrics` / `--lines` and Kernel.profile: one of the hardware profilers
// (counters: counter_profile.hpp; PC sampling on the cell's lines: line_samples.hpp) around the
// launches some Python code makes, collected in-process with CUPTI while that code runs once, and
// the event timing with the reason where neither can run.
#include "profiling/counter_profile.hpp"

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

}  // namespace xcuda::magics

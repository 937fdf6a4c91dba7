#include "profiling/hardware_profile.hpp"
#include "profiling/line_samples.hpp"
#include "session/ipython_env.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/profiler_errors.hpp>

namespace xcuda::magics {
namespace {

report::Rich with_cause(std::optional<report::Rich> timing, const std::string& cause) {
    report::Rich r = timing ? *timing : report::Rich{};
    const std::string line = "No hardware counters: " + cause;
    r.plain = line + (r.plain.empty() ? "" : "\n" + r.plain);
    r.html = report::wrap_report(report::paragraph(line, "xcuda-warn")) + r.html;
    return r;
}

}  // namespace

void check_request(const HardwareProfileRequest& request) {
    if (request.metrics && request.lines) {
        profiling_usage_error(
            "--metrics and --lines each run the code under a different profiler, and the code runs "
            "once: give one of them, and profile again with the other");
    }
    if (request.metrics) metric_names(*request.metrics);
}

report::Rich hardware_profile(LaunchRecorder& recorder, const std::function<void()>& work,
                              const HardwareProfileRequest& request,
                              const std::function<std::optional<report::Rich>()>& timing) {
    check_request(request);
    bool ran = false;
    try {
        return request.metrics ? counter_report(recorder, work, *request.metrics, ran)
                               : line_samples_report(recorder, work, ran);
    } catch (const rt::ProfilerUnavailable& e) {
        if (!ran) work();
        return with_cause(timing(), e.what());
    } catch (const rt::NoDeviceError& e) {
        if (!ran) work();
        return with_cause(timing(), std::string("they need a GPU: ") + e.what());
    }
}

}  // namespace xcuda::magics

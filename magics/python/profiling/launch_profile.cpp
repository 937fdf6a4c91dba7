#include "profiling/launch_profile.hpp"
#include "display/rich_output.hpp"
#include "kernels/launch_recorder.hpp"
#include "profiling/cpu_line_counts.hpp"
#include "session/device_state.hpp"
#include "session/ipython_env.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/report/occupancy.hpp>
#include <xcuda/report/profile_report.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

report::ProfiledLaunch row(const RecordedLaunch& r, double ms) {
    report::ProfiledLaunch p;
    p.kernel = r.kernel;
    p.device = r.device;
    p.grid = {r.grid.x, r.grid.y, r.grid.z};
    p.block = {r.block.x, r.block.y, r.block.z};
    p.registers = r.registers;
    p.shared_bytes = r.static_shared + r.dynamic_shared;
    const auto& props = rt::Device(r.device).properties();
    if (auto limits = report::limits_for_cc(props.major, props.minor); limits && !r.graph) {
        p.occupancy = report::occupancy(*limits, r.registers, r.static_shared, static_cast<int>(r.block.volume()),
                                        r.dynamic_shared)
                          .fraction;
    }
    p.gpu_ms = ms;
    p.bytes_moved = r.array_bytes;
    return p;
}

// The report of what `recorder` saw, or nullopt (said on stderr) when the launches' times
// cannot be read because a fault in the code lost the context: the code's own error matters more.
std::optional<report::Rich> launches_report(const LaunchRecorder& recorder) {
    std::vector<report::ProfiledLaunch> rows;
    const auto& launches = recorder.launches();
    try {
        const std::vector<double> ms = recorder.elapsed_ms();
        for (std::size_t i = 0; i < launches.size(); ++i) rows.push_back(row(launches[i], ms[i]));
    } catch (const std::exception& e) {
        py::print("%%cuda_profile: " + std::to_string(launches.size()) +
                      " launches were recorded but their GPU times cannot be read: " + e.what(),
                  py::arg("file") = py::module_::import("sys").attr("stderr"));
        return std::nullopt;
    }
    return report::profile_report(rows);
}

void append(report::Rich& to, const report::Rich& more) {
    to.plain += (to.plain.empty() ? "" : "\n") + more.plain;
    to.html += more.html;
    if (to.svg.empty()) to.svg = more.svg;  // the launches' chart (the counts have none)
}

}  // namespace

py::object profile_source(const std::string& source, py::object globals, const HardwareProfileRequest& request) {
    py::object builtins = py::module_::import("builtins");
    py::object code = compile_user_code(source, "<cuda_profile>");
    return profile_callable([&] { builtins.attr("exec")(code, globals); }, request);
}

py::object profile_callable(const std::function<void()>& work, const HardwareProfileRequest& request) {
    check_request(request);
    LaunchRecorder recorder(true, "%%cuda_profile");
    // The CPU device counts every instruction instead: its teaching profile follows the timings.
    std::optional<CpuLineCounting> counting;
    if (current_device() == rt::cpu_device_ordinal) counting.emplace();
    try {
        if (!counting && (request.metrics || request.lines)) {
            return rich_object(hardware_profile(recorder, work, request, [&] { return launches_report(recorder); }));
        }
        work();
    } catch (py::error_already_set&) {
        // The launches made before the error are still worth seeing; with none, the error alone
        // says what happened ("nothing to profile" above it would mislead).
        if (!recorder.launches().empty()) {
            if (auto shown = launches_report(recorder)) display_rich(*shown);
        }
        throw;
    }
    auto shown = launches_report(recorder);
    if (!counting) return shown ? rich_object(*shown) : py::none();
    report::Rich r;
    if (request.metrics || request.lines) {
        r = report::one_line_report(std::string("No hardware counters") + (request.lines ? " or PC samples" : "") +
                                    ": " + rt::cpu_device_has_no_counters + ". Its exact counts follow.");
    }
    if (shown) append(r, *shown);
    append(r, counting->report());
    return rich_object(r);
}

py::object profile_kernel(py::object kernel, py::args args, py::kwargs kwargs) {
    HardwareProfileRequest request;
    py::kwargs launch;
    bool metrics_given = false;
    for (auto item : kwargs) {
        const std::string key = item.first.cast<std::string>();
        if (key == "metrics") {
            metrics_given = true;
            if (!item.second.is_none()) request.metrics = py::str(item.second).cast<std::string>();
        } else if (key == "lines") {
            request.lines = item.second.cast<bool>();
        } else {
            launch[item.first] = item.second;
        }
    }
    if (!metrics_given && !request.lines) request.metrics = "basic";
    return profile_callable([&] { kernel(*args, **launch); }, request);
}

void define_kernel_profile(py::module_& m) {
    // Attached here rather than with Kernel's other methods: the kernels layer launches, this
    // one profiles, and it sits above it.
    py::object kernel_class = m.attr("Kernel");
    py::setattr(
        kernel_class, "profile",
        py::cpp_function(
            [](py::object self, py::args args, py::kwargs kwargs) { return profile_kernel(self, args, kwargs); },
            py::name("profile"), py::is_method(kernel_class),
            "profile(*args, grid=, block=, shared_mem=0, stream=None, metrics='basic', lines=False) -> Report\n\n"
            "Launches the kernel as __call__ does and reports its hardware counters (metrics, 'basic' unless "
            "lines=True is given alone: a set, basic, "
            "memory, compute or all, or Nsight Compute metric names, comma-separated: speed of light, DRAM bytes, "
            "FLOPs and a roofline) or, with lines=True, PC samples on its cell's lines with the top stall "
            "reasons (not both in one call). Collected in this process with CUPTI. Where "
            "counters are not allowed, the event-timed launch is reported with the reason."));
}

}  // namespace xcuda::magics

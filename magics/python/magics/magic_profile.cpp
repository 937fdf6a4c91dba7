#include "magic_profile.hpp"
#include "hardware_profile.hpp"
#include "launch_recorder.hpp"
#include "magic_support.hpp"
#include "rich_output.hpp"
#include "cpu_line_counts.hpp"
#include "device_state.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/report/occupancy.hpp>
#include <xcuda/report/profile_report.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <pybind11/pybind11.h>

#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& spec() {
    static const compile::CommandSpec s = [] {
        compile::CommandSpec c = help_only_spec(
            "%%cuda_profile", "%%cuda_profile [--metrics[=SET|NAMES]] [--lines]",
            "Runs the Python cell below in the notebook's namespace, then reports every xcuda kernel launch it "
            "made: kernel, device, grid, block, registers, shared memory, theoretical occupancy for that launch, "
            "GPU time (CUDA events around each launch on its stream) and bandwidth where the bytes are known. "
            "Bytes are the sum of nbytes of the arrays passed to pointer parameters: an upper-bound estimate "
            "(the arrays passed, not the bytes the kernel touches). The launches behave as without the magic; an "
            "error in the cell is raised after the report of the launches before it. With --metrics, hardware "
            "counters of each kernel instead (CUPTI, in this process: speed of light, DRAM bytes, FLOPs and a "
            "roofline); with --lines, PC sampling shown on the %%cuda cells' own lines with the top stall "
            "reasons. Where counters are not allowed the event timing is shown with the reason. On the CPU device "
            "(no GPU, or %cuda_device cpu), each kernel's exact counts on the lines of its cell follow the timing: "
            "warp instructions, lanes busy, divergent branches, global memory requests and the 32-byte sectors "
            "each needed (coalescing), shared-memory bank conflicts.");
        compile::OptionSpec metrics;
        metrics.long_name = "--metrics";
        metrics.metavar = "SET|NAMES";
        metrics.implicit_value = "basic";
        metrics.example = "basic";
        metrics.help = "hardware counters: a set (" + metric_sets_help() +
                       ") or Nsight Compute metric names, comma-separated; bare --metrics is basic";
        c.options.push_back(metrics);
        compile::OptionSpec lines;
        lines.long_name = "--lines";
        lines.help = "PC sampling: samples and top stall reasons on each line of the kernels' cells";
        c.options.push_back(lines);
        return c;
    }();
    return s;
}

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

void cuda_profile_cell_magic(const std::string& line, const std::string& cell) {
    const compile::ParsedArgs args = parse_magic_line(line, spec());
    if (args.has("--help")) {
        py::print(compile::format_help(spec()));
        return;
    }
    HardwareProfileRequest request;
    if (args.has("--metrics")) request.metrics = args.value("--metrics");
    request.lines = args.has("--lines");
    py::object shown = profile_source(cell, ipython_shell().attr("user_ns"), request);
    if (!shown.is_none()) display_rich(shown.cast<const report::Rich&>());
}

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

void cuda_profile_line_magic(const std::string& line) {
    const compile::ParsedArgs args = parse_magic_line(line, spec());
    if (!args.has("--help")) {
        usage_error(
            "%%cuda_profile profiles the cell below it: start the cell with `%%cuda_profile` on its own "
            "line (%cuda_profile -h says what it reports)");
    }
    py::print(compile::format_help(spec()));
}

std::string cuda_profile_help() { return compile::format_help(spec()); }

}  // namespace xcuda::magics

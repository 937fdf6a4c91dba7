#include "ipython/magic_timeit.hpp"
#include "display/rich_output.hpp"
#include "ipython/magic_support.hpp"
#include "kernels/kernel_benchmark.hpp"
#include "kernels/launch_recorder.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"

#include <xcuda/rt/device.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

compile::OptionSpec count_option(const char* short_name, const char* metavar, const char* help) {
    compile::OptionSpec o;
    o.short_name = short_name;
    o.metavar = metavar;
    o.help = help;
    o.example = "10";
    o.check = [short_name](const std::string& v) -> std::optional<std::string> {
        if (!v.empty() && v.size() < 9 && std::all_of(v.begin(), v.end(), ::isdigit) && std::stoi(v) > 0) {
            return std::nullopt;
        }
        return std::string(short_name) + " needs a positive whole number, got '" + v + "'";
    };
    return o;
}

const compile::CommandSpec& timeit_spec() {
    static const compile::CommandSpec s = [] {
        compile::CommandSpec c;
        c.magic = "%cuda_timeit";
        c.usage = "%cuda_timeit [-n N] [-r R] [-o] STMT";
        c.description =
            "Runs the Python statement STMT in the notebook's namespace and times, with CUDA events, the GPU time "
            "of the xcuda kernel launches it makes (not host wall time): each launch is bracketed by two events "
            "on its own stream, and a run's time is the sum over its launches, so host work, copies of numpy "
            "arguments and gaps between launches are not counted (launches overlapping on several streams are "
            "counted in full). One warm-up execution first; without -n, enough executions for a run of about "
            "0.2 s (host or GPU time, whichever is longer).";
        compile::OptionSpec o;
        o.short_name = "-o";
        o.help = "return the xcuda.BenchmarkResult";
        c.options = {help_option(), count_option("-n", "N", "executions of STMT per run (default: automatic)"),
                     count_option("-r", "R", "runs (default 7); the median is reported"), o};
        c.positionals = compile::Positionals::rest;
        c.positional_name = "STMT";
        return c;
    }();
    return s;
}

constexpr int max_executions_per_run = 10000;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// GPU seconds of the launches recorded so far (waits for them), then forgets them.
double take_gpu_seconds(LaunchRecorder& recorder) {
    double ms = 0.0;
    for (double t : recorder.elapsed_ms()) ms += t;
    recorder.clear();
    return ms / 1000.0;
}

}  // namespace

py::object cuda_timeit_line_magic(const std::string& line) {
    const auto parsed = parse_magic_line(line, timeit_spec());
    if (!parsed) return py::none();
    const compile::ParsedArgs& args = *parsed;
    if (args.rest.empty())
        usage_error("%cuda_timeit needs a statement to time, e.g. %cuda_timeit saxpy[g, b](a, x, y, n)");
    const int number = args.has("-n") ? std::stoi(args.value("-n")) : 0;
    const int repeat = args.has("-r") ? std::stoi(args.value("-r")) : 7;
    py::object result = time_statement(args.rest, ipython_shell().attr("user_ns"), number, repeat);
    display_rich(report::timing_report(result.cast<const BenchmarkResult&>().summary, args.rest,
                                       result.cast<const BenchmarkResult&>().per));
    return args.has("-o") ? result : py::none();
}

py::object time_statement(const std::string& stmt, py::object globals, int number, int repeat) {
    if (number < 0 || repeat < 1) {
        raise(PyExc_ValueError, "cuda_timeit: number=" + std::to_string(number) + ", repeat=" + std::to_string(repeat) +
                                    "; pass number >= 1 (or 0 for automatic) and repeat >= 1");
    }
    py::object builtins = py::module_::import("builtins");
    py::object code = compile_user_code(stmt, "<cuda_timeit>");
    py::object exec = builtins.attr("exec");

    LaunchRecorder recorder(false, "%cuda_timeit");
    exec(code, globals);  // warm-up: module load, JIT, first touch
    const std::size_t launches_per_exec = recorder.launches().size();
    if (launches_per_exec == 0) {
        profiling_usage_error(
            "%cuda_timeit: the statement launched no xcuda kernel, so there is no GPU time to "
            "measure; time a statement that launches one (e.g. saxpy[g, b](a, x, y, n)), or use "
            "%timeit for host time");
    }
    take_gpu_seconds(recorder);

    if (number == 0) {
        const double t0 = now();
        exec(code, globals);
        const double gpu = take_gpu_seconds(recorder);
        const double per_exec = std::max(now() - t0, gpu);
        number = per_exec <= 0.0 ? max_executions_per_run
                                 : static_cast<int>(std::clamp(std::ceil(target_run_seconds / per_exec), 1.0,
                                                               static_cast<double>(max_executions_per_run)));
    }

    BenchmarkResult result;
    result.label = stmt;
    result.per = launches_per_exec == 1 ? "launch" : "loop";
    for (int run = 0; run < repeat; ++run) {
        for (int i = 0; i < number; ++i) exec(code, globals);
        result.timings.push_back(take_gpu_seconds(recorder) / number);
    }
    result.summary = report::summarize_timing(result.timings, number);
    result.summary.emulated = current_device() == rt::cpu_device_ordinal;
    return py::cast(std::move(result));
}

std::string cuda_timeit_help() { return compile::format_help(timeit_spec()); }

}  // namespace xcuda::magics

#include "ipython/extension.hpp"
#include "ipython/help_cells.hpp"
#include "ipython/magic_cache.hpp"
#include "ipython/magic_cuda.hpp"
#include "ipython/magic_header.hpp"
#include "ipython/magic_info.hpp"
#include "ipython/magic_profile.hpp"
#include "ipython/magic_timeit.hpp"
#include "profiling/counter_profile.hpp"
#include "profiling/launch_profile.hpp"
#include "session/post_cell_sync.hpp"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// The explicit magic registry: name, kind, function, help (its `?`). Each but %%cuda_profile
// (whose cell is the user's Python) shows its own failures in one line (xcuda/_magic_errors.py).
void register_magics(py::object ip) {
    py::object one_line = py::module_::import("xcuda._magic_errors").attr("one_line_errors");
    auto cell = [&](const char* name, void (*fn)(const std::string&, const std::string&), const std::string& help) {
        ip.attr("register_magic_function")(
            one_line(py::cpp_function(fn, py::arg("line"), py::arg("cell"), py::doc(help.c_str()))),
            py::arg("magic_kind") = "cell", py::arg("magic_name") = name);
    };
    auto line = [&](const char* name, void (*fn)(const std::string&), const std::string& help) {
        ip.attr("register_magic_function")(one_line(py::cpp_function(fn, py::arg("line"), py::doc(help.c_str()))),
                                           py::arg("magic_kind") = "line", py::arg("magic_name") = name);
    };
    cell("cuda", cuda_cell_magic, cuda_help());
    line("cuda", cuda_line_magic, cuda_help());
    cell("cuda_header", cuda_header_cell_magic, cuda_header_help());
    line("cuda_header", cuda_header_line_magic, cuda_header_help());
    line("cuda_info", cuda_info_line_magic, cuda_info_help());
    line("cuda_device", cuda_device_line_magic, cuda_device_help());
    line("cuda_cache", cuda_cache_line_magic, cuda_cache_help());
    const std::string profile_help = cuda_profile_help();
    ip.attr("register_magic_function")(
        py::cpp_function(cuda_profile_cell_magic, py::arg("line"), py::arg("cell"), py::doc(profile_help.c_str())),
        py::arg("magic_kind") = "cell", py::arg("magic_name") = "cuda_profile");
    line("cuda_profile", cuda_profile_line_magic, profile_help);
    // %%cuda_check and %%cuda_timeline are Python (the first runs a cell's launches on the CPU
    // device; the second draws in Python). %cuda_restart is the xcuda kernel's, which registers it
    // over the stand-in registered here (in any other IPython it says to restart from the frontend).
    py::object check = py::module_::import("xcuda._cuda_check");
    ip.attr("register_magic_function")(check.attr("cuda_check"), py::arg("magic_kind") = "cell",
                                       py::arg("magic_name") = "cuda_check");
    ip.attr("register_magic_function")(check.attr("cuda_check_line"), py::arg("magic_kind") = "line",
                                       py::arg("magic_name") = "cuda_check");
    py::object timeline = py::module_::import("xcuda._cuda_timeline");
    ip.attr("register_magic_function")(timeline.attr("cuda_timeline"), py::arg("magic_kind") = "cell",
                                       py::arg("magic_name") = "cuda_timeline");
    ip.attr("register_magic_function")(timeline.attr("cuda_timeline_line"), py::arg("magic_kind") = "line",
                                       py::arg("magic_name") = "cuda_timeline");
    py::module_::import("xcuda._kernel_only_magics").attr("register")(ip);
    // %cuda_timeit -o returns its result, so it is registered with its return value.
    const std::string timeit_help = cuda_timeit_help();
    ip.attr("register_magic_function")(
        one_line(py::cpp_function(cuda_timeit_line_magic, py::arg("line"), py::doc(timeit_help.c_str()))),
        py::arg("magic_kind") = "line", py::arg("magic_name") = "cuda_timeit");
}

}  // namespace

void define_extension(py::module_& m) {
    m.def(
        "load_ipython_extension",
        [](py::object ip) {
            register_magics(ip);
            register_help_cells(ip);
            register_post_cell_sync(ip);
        },
        py::arg("ipython"),
        "Registers %%cuda, %%cuda_header, %cuda_info, %cuda_device, %cuda_cache, %cuda_timeit, %%cuda_profile, "
        "%%cuda_check, %%cuda_timeline and %cuda_restart (outside the xcuda kernel: a note that it runs only there).");
    m.def("cuda_timeit", &time_statement, py::arg("stmt"), py::arg("globals"), py::arg("number") = 0,
          py::arg("repeat") = 7,
          "%cuda_timeit without IPython: GPU time of the kernel launches of `stmt` run in `globals` "
          "(number=0: automatic). Returns an xcuda.BenchmarkResult.");
    m.def(
        "cuda_profile",
        [](const std::string& source, py::object globals, py::object metrics, bool lines) {
            HardwareProfileRequest request;
            if (!metrics.is_none()) request.metrics = py::str(metrics).cast<std::string>();
            request.lines = lines;
            return profile_source(source, globals, request);
        },
        py::arg("source"), py::arg("globals"), py::arg("metrics") = py::none(), py::arg("lines") = false,
        "%%cuda_profile without IPython: runs `source` in `globals` and returns the report of its launches "
        "(metrics= and lines= as the magic's --metrics and --lines).");
    m.def("profiler_metrics", &profiler_metrics, py::arg("chip") = "",
          "The metric names CUPTI knows for `chip` (e.g. 'GH100'; the current device's when empty): what "
          "%%cuda_profile --metrics and Kernel.profile(metrics=...) accept, with a rollup such as .sum or .avg. "
          "Naming a chip needs no GPU.");
    m.def(
        "counters",
        [](py::function fn, const std::string& metrics) {
            py::list out;
            for (const auto& values : counter_values([&] { fn(); }, metrics)) {
                py::dict d;
                for (const auto& [name, value] : values) d[py::str(name)] = value;
                out.append(d);
            }
            return out;
        },
        py::arg("fn"), py::arg("metrics") = "basic",
        "Calls fn() once with CUPTI's hardware counters on and returns, for each kernel it launched (in order; "
        "CuPy and PyTorch kernels too), a dict of metric name -> value. metrics: a set (basic, memory, compute, "
        "all) or Nsight Compute metric names, comma-separated. Raises xcuda.ProfilerUnavailableError saying why "
        "when counters cannot be read here.");
    m.def("_metric_names", &metric_names, py::arg("spec"),
          "The metric names a --metrics value stands for (sets expanded), in order.");
    m.def("profiler_chips", &profiler_chips, "The chips CUPTI's profiler knows (names for profiler_metrics).");
    m.def(
        "unload_ipython_extension",
        [](py::object ip) {
            unregister_help_cells(ip);
            unregister_post_cell_sync(ip);
        },
        py::arg("ipython"),
        "Undoes load_ipython_extension's cell hooks (the -h cells and the post-cell synchronisation); the magics "
        "stay registered.");
    m.def("sync_after_cell", &set_sync_after_cell, py::arg("enabled"),
          "Whether a cell that launched kernels waits for them before it ends (default True).");
}

}  // namespace xcuda::magics

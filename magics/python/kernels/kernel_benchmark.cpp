#include "kernels/kernel_benchmark.hpp"
#include "display/rich_output.hpp"
#include "kernels/kernel_object.hpp"
#include "launch/launch_config.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"

#include <xcuda/cpu/argument_extents.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/stream.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// Seconds of GPU time for `count` back-to-back launches, between two events on `stream`.
// The configuration was validated once before the first run.
double time_launches(const rt::Function& f, rt::Dim3 grid, rt::Dim3 block, std::size_t shared, CUstream stream,
                     const rt::LaunchOptions& options, PackedArgs& packed, int count) {
    rt::Event start, end;
    start.record(stream);
    for (int i = 0; i < count; ++i) rt::launch_validated(f, grid, block, shared, stream, packed.params(), options);
    end.record(stream);
    wait_without_gil([&] { end.synchronize(); });
    return rt::elapsed_ms(start, end) / 1000.0;
}

// Launches for one run to last about target_run_seconds, from the GPU time of `count` launches.
int launches_for_target(double seconds, int count) {
    if (seconds <= 0.0) return max_launches_per_run;
    const double n = std::ceil(target_run_seconds * count / seconds);
    return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(max_launches_per_run)));
}

void check_signals() {
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

py::dict bundle(const BenchmarkResult& r) {
    const report::Rich rich = report::timing_report(r.summary, r.label, r.per);
    py::dict d;
    d["text/plain"] = rich.plain;
    d["text/html"] = rich.html;
    return d;
}

}  // namespace

int checked_count(py::handle value, const char* what, int minimum) {
    if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
        raise(PyExc_TypeError, std::string(what) + " must be an int, got " + py::repr(value).cast<std::string>());
    }
    const long long n = value.cast<long long>();
    if (n < minimum || n > max_launches_per_run * 100LL) {
        raise(PyExc_ValueError, std::string(what) + "=" + std::to_string(n) + " is out of range; pass " +
                                    std::to_string(minimum) + " to " + std::to_string(max_launches_per_run * 100LL));
    }
    return static_cast<int>(n);
}

py::object benchmark_kernel(Kernel& k, py::args args, py::kwargs kwargs) {
    LaunchKeywords launch;
    int number = 0, repeat = 7, warmup = 1;
    for (auto item : kwargs) {
        const std::string key = item.first.cast<std::string>();
        if (launch.take(key, item.second)) continue;
        if (key == "number")
            number = item.second.is_none() ? 0 : checked_count(item.second, "number", 1);
        else if (key == "repeat")
            repeat = checked_count(item.second, "repeat", 1);
        else if (key == "warmup")
            warmup = checked_count(item.second, "warmup", 0);
        else
            raise(PyExc_TypeError, k.name() + ".benchmark() got an unexpected keyword argument '" + key +
                                       "'; options are " + launch_keywords_text(false) + ", number=, repeat=, warmup=");
    }
    if (!launch.grid || !launch.block) raise(PyExc_TypeError, k.name() + ".benchmark(...) needs grid= and block=");
    const rt::Dim3 g = parse_dim3(launch.grid, "grid");
    const rt::Dim3 b = parse_dim3(launch.block, "block");
    const std::size_t shared_mem = parse_shared_mem(launch.shared_mem);
    const CUstream stream = parse_stream(launch.stream);
    const rt::LaunchOptions& options = launch.options;

    // Packed and staged once: numpy arrays are copied to the device before the first launch
    // and back after the last, so the figures are kernel time, not copies.
    PackedArgs packed;
    k.packer().pack(args, stream, packed);
    if (packed.required_device >= 0 && packed.required_device != current_device()) {
        raise(PyExc_ValueError, "kernel `" + k.name() + "` would run on device " + std::to_string(current_device()) +
                                    " but its array arguments are on device " + std::to_string(packed.required_device) +
                                    ": select that device first");
    }
    const rt::Function& f = k.function();
    for (CUstream producer : packed.producer_streams) wait_without_gil([&] { rt::synchronize_stream(producer); });
    rt::validate_launch(f, g, b, shared_mem, options);
    stage_host_arrays(packed, stream, current_device());
    std::optional<cpu::LaunchArgumentExtents> extents;
    if (current_device() == rt::cpu_device_ordinal) extents.emplace(argument_extents(packed, k.packer().count()));
    note_launch();

    if (warmup > 0) time_launches(f, g, b, shared_mem, stream, options, packed, warmup);
    if (number == 0) {
        // One launch, then a batch of about a tenth of the target, so launch latency does not
        // inflate the estimate for short kernels.
        const int batch =
            launches_for_target(time_launches(f, g, b, shared_mem, stream, options, packed, 1), 1) / 10 + 1;
        number = launches_for_target(time_launches(f, g, b, shared_mem, stream, options, packed, batch), batch);
    }
    BenchmarkResult result;
    result.label = k.name() + (k.instantiation().empty() ? "" : "<" + k.instantiation() + ">");
    result.per = "launch";
    for (int run = 0; run < repeat; ++run) {
        check_signals();
        result.timings.push_back(time_launches(f, g, b, shared_mem, stream, options, packed, number) / number);
    }
    result.summary = report::summarize_timing(result.timings, number);
    result.summary.emulated = current_device() == rt::cpu_device_ordinal;
    unstage_host_arrays(packed, stream, current_device());
    return py::cast(std::move(result));
}

const char* benchmark_docstring() {
    static const std::string doc =
        "benchmark(*args, " + launch_keywords_text(true) +
        ", number=None, repeat=7, warmup=1)\n\n"
        "GPU time per launch from CUDA events: `repeat` runs of `number` back-to-back launches on `stream`, "
        "after `warmup` launches. number=None picks enough launches for a run of about 0.2 s (at most 100000). "
        "Arguments are packed once: numpy arrays are copied to the device before the first launch and back "
        "after the last (so an in-place kernel has run warmup + number * repeat times on them), and the copies "
        "are not timed. Returns an xcuda.BenchmarkResult.";
    return doc.c_str();
}

void define_benchmark_result(py::module_& m) {
    py::class_<BenchmarkResult>(m, "BenchmarkResult",
                                "GPU time per launch (or per loop of a %cuda_timeit statement), in seconds.")
        .def_property_readonly("median", [](const BenchmarkResult& r) { return r.summary.median; })
        .def_property_readonly("min", [](const BenchmarkResult& r) { return r.summary.min; })
        .def_property_readonly("max", [](const BenchmarkResult& r) { return r.summary.max; })
        .def_property_readonly("mean", [](const BenchmarkResult& r) { return r.summary.mean; })
        .def_property_readonly("stdev", [](const BenchmarkResult& r) { return r.summary.stdev; })
        .def_property_readonly(
            "number", [](const BenchmarkResult& r) { return r.summary.number; },
            "Launches (statement executions) per run.")
        .def_property_readonly("repeat", [](const BenchmarkResult& r) { return r.summary.repeats; })
        .def_readonly("timings", &BenchmarkResult::timings, "Seconds per launch (or loop) of each run.")
        .def_property_readonly(
            "all_runs",
            [](const BenchmarkResult& r) {
                std::vector<double> out;
                for (double t : r.timings) out.push_back(t * r.summary.number);
                return out;
            },
            "Seconds of each whole run (number launches), as IPython's TimeitResult.all_runs.")
        .def_readonly("label", &BenchmarkResult::label)
        .def_readonly("per", &BenchmarkResult::per)
        .def("_repr_mimebundle_", [](const BenchmarkResult& r, py::args, py::kwargs) { return bundle(r); })
        .def("_repr_html_",
             [](const BenchmarkResult& r) { return report::timing_report(r.summary, r.label, r.per).html; })
        .def("__str__", [](const BenchmarkResult& r) { return report::timeit_line(r.summary, r.per); })
        .def("__repr__", [](const BenchmarkResult& r) { return report::timeit_line(r.summary, r.per); });
}

}  // namespace xcuda::magics

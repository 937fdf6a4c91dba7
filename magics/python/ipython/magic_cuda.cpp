#include "ipython/magic_cuda.hpp"
#include "display/rich_output.hpp"
#include "display/sass.hpp"
#include "ipython/magic_support.hpp"
#include "kernels/kernel_object.hpp"
#include "session/device_state.hpp"
#include "session/running_cell.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include <xcuda/compile/cell_options.hpp>
#include <xcuda/report/ptx_view.hpp>
#include <xcuda/report/resources_report.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

report::Rich resources(const compile::CompiledModule& m) {
    std::vector<report::KernelResources> rows;
    for (const auto& k : m.kernels) {
        if (!k.resources) continue;
        report::KernelResources r;
        r.name = k.decl.name + (k.instantiation.empty() ? "" : "<" + k.instantiation + ">");
        r.arch = k.resources->arch.empty() ? m.arch : k.resources->arch;
        r.registers = k.resources->registers;
        r.spill_store_bytes = k.resources->spill_store_bytes;
        r.spill_load_bytes = k.resources->spill_load_bytes;
        r.stack_bytes = k.resources->stack_frame_bytes;
        r.shared_bytes = k.resources->shared_bytes;
        r.constant_bytes = k.resources->constant_bytes;
        rows.push_back(std::move(r));
    }
    report::ResourcesOptions options;
    if (rt::driver_available()) {
        const auto& p = rt::Device(current_device()).properties();
        options.limits = report::limits_for_cc(p.major, p.minor);
    }
    return report::resources_report(rows, options);
}

}  // namespace

void cuda_line_magic(const std::string& line) {
    cuda_magic_on_a_line(line,
                         "%%cuda compiles the cell below it: start the cell with `%%cuda [options]` on its own line "
                         "(%cuda -h lists the options)");
}

namespace {

// The line a compiled cell prints (-q: none): what was bound, for which arch, and how the module
// came: compiled now (and how long it took), or from the cache.
std::string compiled_line(const compile::CompiledModule& cm, const CompiledPythonModule& compiled,
                          const compile::CellOptions& options, const std::vector<std::string>& bound) {
    char took[32];
    std::snprintf(took, sizeof took, compiled.milliseconds >= 1000 ? "%.1f s" : "%.0f ms",
                  compiled.milliseconds >= 1000 ? compiled.milliseconds / 1000 : compiled.milliseconds);
    const compile::CacheLevel from = compiled.impl->cache();
    std::string line = from == compile::CacheLevel::none     ? "Compiled for " + cm.arch + " in " + took
                       : from == compile::CacheLevel::memory ? "From the compile cache (" + cm.arch + ", " + took + ")"
                                                             : "From the disk cache (" + cm.arch + ", " + took + ")";
    std::string names;
    for (const auto& n : bound) names += (names.empty() ? "" : ", ") + n;
    line += ": " + (names.empty() ? std::string("no kernel bound") : names);
    if (!options.name.empty()) line += "; module " + options.name;
    if (!options.fast_compile.empty()) {
        line += " (--fast-compile=" + options.fast_compile + ": built quickly, its kernels may run slower)";
    }
    return line;
}

}  // namespace

void cuda_cell_magic(const std::string& line, const std::string& cell) {
    const auto parsed = parse_cuda_line(line);
    if (!parsed) return;
    const compile::CellOptions& options = *parsed;
    py::object ip = ipython_shell();
    const std::string label = "cell_" + py::str(running_cell_number()).cast<std::string>();
    // The notebook shows `%%cuda ...` as the cell's line 1: keep NVRTC's line numbers equal to
    // the ones the user sees.
    const std::string source = "\n" + cell;
    CompiledPythonModule compiled = compile_to_module(source, options, label);
    const compile::CompiledModule& cm = compiled.impl->compiled();

    py::object user_ns = ip.attr("user_ns");
    std::vector<std::string> bound;
    for (auto item : compiled.module.attr("kernels").cast<py::dict>()) {
        user_ns[item.first] = item.second;
        bound.push_back(item.first.cast<std::string>());
    }
    if (!options.name.empty()) user_ns[py::str(options.name)] = compiled.module;
    if (!options.quiet) py::print(compiled_line(cm, compiled, options, bound));

    py::object stderr_ = py::module_::import("sys").attr("stderr");
    for (const auto& note : cm.notes) py::print(note, py::arg("file") = stderr_);
    if (!cm.warnings.empty()) py::print(compile::format_diagnostics(cm.warnings), py::arg("file") = stderr_);

    if (options.resources) display_rich(resources(cm));
    if (options.ptx) display_rich(report::ptx_view(cm.ptx, source, compile::cell_program_name));
    if (options.sass) display_rich(sass_report(cm.cubin));
    if (!options.exercise.empty()) {
        // The exercise grader is Python (xcuda._exercise); its rubric is this cell's output.
        py::object graded = py::module_::import("xcuda._exercise")
                                .attr("grade_cell")(compiled.module.attr("kernels"), options.exercise);
        py::module_::import("IPython.display").attr("display")(graded);
    }
}

std::string cuda_help() { return compile::cuda_help_text(); }

}  // namespace xcuda::magics

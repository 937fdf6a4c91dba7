#include "ipython/magic_profile.hpp"
#include "display/rich_output.hpp"
#include "ipython/magic_support.hpp"
#include "profiling/hardware_profile.hpp"
#include "profiling/launch_profile.hpp"

#include <xcuda/report/rich.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& profile_spec() {
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

}  // namespace

void cuda_profile_cell_magic(const std::string& line, const std::string& cell) {
    const auto parsed = parse_magic_line(line, profile_spec());
    if (!parsed) return;
    const compile::ParsedArgs& args = *parsed;
    HardwareProfileRequest request;
    if (args.has("--metrics")) request.metrics = args.value("--metrics");
    request.lines = args.has("--lines");
    py::object shown = profile_source(cell, ipython_shell().attr("user_ns"), request);
    if (!shown.is_none()) display_rich(shown.cast<const report::Rich&>());
}

void cuda_profile_line_magic(const std::string& line) {
    cell_magic_on_a_line(line, profile_spec(),
                         "%%cuda_profile profiles the cell below it: start the cell with `%%cuda_profile` on its own "
                         "line (%cuda_profile -h says what it reports)");
}

std::string cuda_profile_help() { return compile::format_help(profile_spec()); }

}  // namespace xcuda::magics

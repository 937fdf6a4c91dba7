#include "ipython/magic_info.hpp"
#include "display/rich_output.hpp"
#include "ipython/magic_support.hpp"
#include "session/device_state.hpp"

#include <xcuda/report/device_info_report.hpp>
#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <cuda.h>

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& info_spec() {
    static const auto s =
        help_only_spec("%cuda_info", "%cuda_info",
                       "Shows the device kernels run on (a GPU, the CPU device, or none and why), the driver, and "
                       "where NVRTC, its headers, nvJitLink, CUPTI and compute-sanitizer came from, or the pip "
                       "package that brings each missing one.",
                       compile::Positionals::none, "");
    return s;
}

const compile::CommandSpec& device_spec() {
    static const auto s = help_only_spec("%cuda_device", "%cuda_device [N | cpu]",
                                         "Selects GPU N, or the CPU device (`cpu`: kernels emulated on this "
                                         "machine's cores, every access checked), for later launches and "
                                         "allocations; without an argument, shows the selected device.",
                                         compile::Positionals::words, "N");
    return s;
}

// "text (from ORIGIN)", or the text alone where no place lists it.
std::string with_origin(const std::string& text, const std::string& origin) {
    return origin.empty() ? text : text + " (from " + origin + ")";
}

report::Piece found(const std::string& name, const std::string& text) { return {name, text, false}; }

report::Piece missing(const std::string& name, const std::string& text) { return {name, "not found: " + text, true}; }

// Each piece of CUDA that xcuda opens at run time, where it came from, or what to install; never
// throws (a piece that cannot load is a line saying so).
std::vector<report::Piece> toolkit_pieces() {
    std::vector<report::Piece> pieces;
    const py::module_ sys = py::module_::import("sys");
    pieces.push_back(found("Python", py::str(sys.attr("executable")).cast<std::string>() +
                                         " (pip installs go here: " + "%pip install in a notebook cell)"));
    int major = CUDA_VERSION / 1000;
    bool have_nvrtc = false;
    try {
        const rt::NvrtcInUse nvrtc = rt::nvrtc_in_use();
        major = nvrtc.major;
        have_nvrtc = true;
        std::string text = std::to_string(nvrtc.major) + "." + std::to_string(nvrtc.minor) + ", " + nvrtc.path +
                           " (from " + nvrtc.origin + ")";
        if (!nvrtc.driver_mismatch.empty()) {
            text += "; " + nvrtc.driver_mismatch + ": the GPU may refuse its code; pip install \"" +
                    rt::pip_extra_for(rt::driver_version() / 1000) + "\" for an NVRTC the driver supports";
        }
        pieces.push_back({"NVRTC", text, !nvrtc.driver_mismatch.empty()});
    } catch (const std::exception& e) {
        // The loader's message names NVRTC first, as a compile shows it; here the line does.
        std::string why = e.what();
        const std::string named = "NVRTC, CUDA's runtime compiler, was not found: ";
        if (why.rfind(named, 0) == 0) why.erase(0, named.size());
        pieces.push_back(missing("NVRTC", why));
    }
    if (have_nvrtc) {
        try {
            const rt::HeadersInUse headers = rt::headers_in_use();
            pieces.push_back(headers.include_dir.empty()
                                 ? missing("Headers", "cuda_fp16.h and the runtime's other headers: pip install " +
                                                          rt::pip_package_for("headers", major))
                                 : found("Headers", headers.include_dir + " (from " + headers.include_origin + ")"));
            pieces.push_back(headers.cccl_dir.empty()
                                 ? missing("CCCL", "<cuda/std/...>, cub and thrust: pip install " +
                                                       rt::pip_package_for("cccl", major))
                                 : found("CCCL", headers.cccl_dir + " (from " + headers.cccl_origin + ")"));
        } catch (const std::exception& e) {
            pieces.push_back(missing("Headers", e.what()));
        }
    }
    try {
        const std::string path = rt::nvjitlink_in_use();
        pieces.push_back(found("nvJitLink", with_origin(path, rt::origin_of(path))));
    } catch (const std::exception&) {
        pieces.push_back(missing("nvJitLink", "pip install " + rt::pip_package_for("nvjitlink", major) +
                                                  " (only -dc cells, linked across cells, need it)"));
    }
    try {
        const std::string path = rt::cupti_in_use();
        pieces.push_back(found("CUPTI", with_origin(path, rt::origin_of(path))));
    } catch (const std::exception&) {
        pieces.push_back(
            missing("CUPTI", "pip install " + rt::pip_package_for("cupti", major) +
                                 " (only hardware counters, --lines and %%cuda_timeline on a GPU need it)"));
    }
    try {
        const py::object where = py::module_::import("xcuda._sanitizer").attr("where_tool")();
        if (where.is_none()) {
            pieces.push_back(missing("compute-sanitizer", "pip install " + rt::pip_package_for("sanitizer", major) +
                                                              " for %%cuda_check on a GPU (it runs launches on the "
                                                              "CPU device instead)"));
        } else {
            const auto [path, origin] = where.cast<std::pair<std::string, std::string>>();
            pieces.push_back(found("compute-sanitizer", path + " (from " + origin + ")"));
        }
    } catch (const py::error_already_set& e) {
        pieces.push_back(missing("compute-sanitizer", e.what()));
    }
    return pieces;
}

// The GPUs and their driver, or why there are none.
void list_gpus(report::SystemInfo& info) {
    if (!rt::gpu_available()) {
        info.no_device_reason = rt::gpu_unavailable_reason();
        return;
    }
    try {
        info.driver_version = rt::driver_version();
        for (int i = 0; i < rt::device_count(); ++i) {
            const rt::Device d(i);
            const auto& p = d.properties();
            report::DeviceInfo di;
            di.index = i;
            di.name = p.name;
            di.cc_major = p.major;
            di.cc_minor = p.minor;
            di.sm_count = p.sm_count;
            di.total_memory = p.total_memory;
            di.sm_clock_khz = p.clock_khz;
            di.memory_clock_khz = p.memory_clock_khz;
            di.memory_bus_width_bits = p.memory_bus_width_bits;
            di.l2_bytes = static_cast<std::uint64_t>(p.l2_cache_bytes);
            di.current = i == current_device();
            info.devices.push_back(std::move(di));
        }
    } catch (const std::exception& e) {
        info.devices.clear();
        info.no_device_reason = e.what();
    }
}

}  // namespace

void cuda_info_line_magic(const std::string& line) {
    if (!parse_magic_line(line, info_spec())) return;
    report::SystemInfo info;
    info.pieces = toolkit_pieces();
    info.cpu.available = rt::cpu_device_available();
    if (info.cpu.available) {
        const rt::Device cpu(rt::cpu_device_ordinal);
        info.cpu.current = current_device() == rt::cpu_device_ordinal;
        info.cpu.arch = cpu.arch();
        info.cpu.memory = cpu.properties().total_memory;
        info.cpu.workers = cpu::worker_threads();
        info.cpu.checks = cpu::checks();
    }
    list_gpus(info);
    display_rich(report::device_info_report(info));
}

void cuda_device_line_magic(const std::string& line) {
    const auto parsed = parse_magic_line(line, device_spec());
    if (!parsed) return;
    const compile::ParsedArgs& args = *parsed;
    if (args.positionals.size() > 1) usage_error("%cuda_device takes one device: an index (%cuda_device 1) or cpu");
    if (!args.positionals.empty()) {
        const std::string& which = args.positionals[0];
        int n = 0;
        if (which == "cpu") {
            n = rt::cpu_device_ordinal;
        } else {
            try {
                std::size_t used = 0;
                n = std::stoi(which, &used);
                if (used != which.size()) throw std::invalid_argument("trailing characters");
            } catch (const std::exception&) {
                usage_error("%cuda_device takes a GPU's index (0, 1, ...) or cpu, got `" + which + "`");
            }
        }
        select_device(n);
    }
    const rt::Device d(current_device());
    if (d.is_cpu()) {
        py::print("cuda_device: using the CPU device: emulated " + d.arch() + ", slower than a GPU, " +
                  (cpu::checks() ? "checks every access" : "checks off") +
                  (rt::gpu_available() ? " (%cuda_device 0 goes back to the GPU)" : ""));
        return;
    }
    py::print("cuda_device: using device " + std::to_string(d.ordinal()) + ": " + d.name() + " (" + d.arch() + ")");
}

std::string cuda_info_help() { return compile::format_help(info_spec()); }

std::string cuda_device_help() { return compile::format_help(device_spec()); }

}  // namespace xcuda::magics

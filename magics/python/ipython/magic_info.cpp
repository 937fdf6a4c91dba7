#include "ipython/magic_info.hpp"
#include "display/rich_output.hpp"
#include "ipython/magic_support.hpp"
#include "session/device_state.hpp"

#include <xcuda/report/device_info_report.hpp>
#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <cstdlib>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& info_spec() {
    static const auto s =
        help_only_spec("%cuda_info", "%cuda_info", "Shows the CUDA devices, driver, NVRTC and toolkit.",
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

std::string toolkit_path() {
    if (const char* home = std::getenv("CUDA_HOME")) return home;
    const auto dirs = rt::toolkit_include_dirs();
    if (dirs.empty()) return "";
    const std::string& inc = dirs.front();
    const auto slash = inc.rfind("/include");
    return slash == std::string::npos ? inc : inc.substr(0, slash);
}

}  // namespace

void cuda_info_line_magic(const std::string& line) {
    if (!parse_magic_line(line, info_spec())) return;
    report::SystemInfo info;
    const auto [major, minor] = rt::nvrtc_version();
    info.nvrtc_major = major;
    info.nvrtc_minor = minor;
    info.toolkit_path = toolkit_path();
    info.cpu.available = rt::cpu_device_available();
    if (info.cpu.available) {
        const rt::Device cpu(rt::cpu_device_ordinal);
        info.cpu.current = current_device() == rt::cpu_device_ordinal;
        info.cpu.arch = cpu.arch();
        info.cpu.memory = cpu.properties().total_memory;
        info.cpu.workers = cpu::worker_threads();
        info.cpu.checks = cpu::checks();
    }
    if (rt::gpu_available()) {
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
    } else {
        info.no_device_reason = rt::gpu_unavailable_reason();
    }
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

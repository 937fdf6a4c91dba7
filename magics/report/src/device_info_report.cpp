#include "xcuda/report/device_info_report.hpp"

#include <cstdio>

#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

std::string mhz(int khz) { return khz > 0 ? std::to_string((khz + 500) / 1000) + " MHz" : "unknown"; }

}  // namespace

std::string format_cuda_version(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

Rich device_info_report(const SystemInfo& info) {
    std::vector<Piece> facts;
    facts.push_back({"Driver",
                     info.driver_version ? "CUDA " + format_cuda_version(*info.driver_version) : std::string("none"),
                     false});
    facts.insert(facts.end(), info.pieces.begin(), info.pieces.end());

    Rich r;
    std::string body;
    if (info.devices.empty()) {
        const std::string reason =
            info.no_device_reason.empty() ? std::string("no device reported") : info.no_device_reason;
        const std::string msg =
            "No NVIDIA GPU here: " + reason + "." +
            (info.cpu.current ? std::string(" Kernels run on the CPU device.")
             : info.cpu.available
                 ? std::string(" Cells still compile; launches raise NoDeviceError (XCUDA_DEVICE=none); "
                               "%cuda_device cpu runs them on the CPU device.")
                 : std::string(" Cells still compile; launches raise NoDeviceError."));
        r.plain = msg + "\n";
        body = "<p class=\"xcuda-line xcuda-warn\">" + html_escape(msg) + "</p>";
    } else {
        Table table({{"#", Align::right},
                     {"Name"},
                     {"CC", Align::right},
                     {"SMs", Align::right},
                     {"Memory", Align::right},
                     {"SM clock", Align::right},
                     {"Memory clock", Align::right},
                     {"Bus", Align::right},
                     {"L2", Align::right}},
                    info.devices.size() == 1 ? "1 CUDA device" : std::to_string(info.devices.size()) + " CUDA devices");
        for (const auto& d : info.devices) {
            table.add_row({std::to_string(d.index) + (d.current ? " *" : ""), d.name,
                           std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor), std::to_string(d.sm_count),
                           format_bytes(d.total_memory), mhz(d.sm_clock_khz), mhz(d.memory_clock_khz),
                           d.memory_bus_width_bits > 0 ? std::to_string(d.memory_bus_width_bits) + "-bit" : "unknown",
                           format_bytes(d.l2_bytes)});
        }
        r.plain = table.plain();
        body = table.html();
        bool any_current = false;
        for (const auto& d : info.devices) any_current = any_current || d.current;
        if (any_current) {
            r.plain += "* = current device (%cuda_device N selects another)\n";
            body +=
                "<p class=\"xcuda-line xcuda-note\">* = current device (<code>%cuda_device N</code> selects "
                "another)</p>";
        }
    }
    if (info.cpu.available) {
        const std::string line = "CPU device" + std::string(info.cpu.current ? " (current)" : "") + ": emulated " +
                                 info.cpu.arch + ", " + format_bytes(info.cpu.memory) + ", " +
                                 std::to_string(info.cpu.workers) +
                                 (info.cpu.workers == 1 ? " worker thread" : " worker threads") +
                                 "; slower than a GPU; " + (info.cpu.checks ? "checks every access" : "checks off") +
                                 (info.cpu.current ? std::string() : std::string(" (%cuda_device cpu selects it)"));
        r.plain += line + "\n";
        body += "<p class=\"xcuda-line xcuda-note\">" + html_escape(line) + "</p>";
    }
    body += "<table class=\"xcuda-table\"><tbody>";
    for (const auto& fact : facts) {
        r.plain += fact.name + ": " + fact.text + "\n";
        body += "<tr><th>" + html_escape(fact.name) + "</th><td" +
                (fact.missing ? std::string(" class=\"xcuda-warn\"") : std::string()) + ">" + html_escape(fact.text) +
                "</td></tr>";
    }
    body += "</tbody></table>";
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report

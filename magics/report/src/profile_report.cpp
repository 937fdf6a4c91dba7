#include "xcuda/report/profile_report.hpp"

#include <algorithm>
#include <map>

#include "xcuda/report/bar_chart.hpp"
#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

// A cell that launches in a loop can make thousands of launches; the table lists the
// first ones, the totals and the chart count them all.
constexpr std::size_t kMaxListedLaunches = 200;

std::string ms(double milliseconds) { return format_duration(milliseconds / 1e3); }

}  // namespace

std::string dim3_text(const Dim3& d) {
    if (d.y == 1 && d.z == 1) return std::to_string(d.x);
    return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

std::vector<KernelTotal> totals_by_kernel(const std::vector<ProfiledLaunch>& launches) {
    std::map<std::string, KernelTotal> by_name;
    for (const auto& l : launches) {
        auto& t = by_name[l.kernel];
        t.kernel = l.kernel;
        t.launches += 1;
        t.total_ms += l.gpu_ms;
    }
    std::vector<KernelTotal> out;
    for (auto& kv : by_name) out.push_back(std::move(kv.second));
    std::stable_sort(out.begin(), out.end(),
                     [](const KernelTotal& a, const KernelTotal& b) { return a.total_ms > b.total_ms; });
    return out;
}

Rich profile_report(const std::vector<ProfiledLaunch>& launches) {
    if (launches.empty()) return one_line_report("The cell launched no CUDA kernels, so there is nothing to profile.");
    Rich r;

    double total_ms = 0.0;
    for (const auto& l : launches) total_ms += l.gpu_ms;
    // On the CPU device the times are how long the emulation took, not what a GPU would take.
    const bool emulated = std::all_of(launches.begin(), launches.end(), [](const auto& l) { return l.device < 0; });
    const std::string time_word = emulated ? "Device time (emulated)" : "GPU time";
    const auto totals = totals_by_kernel(launches);

    Table summary({{"Kernel"},
                   {"Launches", Align::right},
                   {"Total", Align::right},
                   {"Mean", Align::right},
                   {"Share", Align::right}},
                  time_word + " per kernel: " + std::to_string(launches.size()) +
                      (launches.size() == 1 ? " launch, " : " launches, ") + ms(total_ms) + " in all");
    std::vector<Bar> bars;
    for (const auto& t : totals) {
        summary.add_row({t.kernel, std::to_string(t.launches), ms(t.total_ms), ms(t.total_ms / t.launches),
                         total_ms > 0 ? format_percent(t.total_ms / total_ms) : "n/a"});
        bars.push_back({t.kernel, t.total_ms, ms(t.total_ms) + " ×" + std::to_string(t.launches)});
    }

    const std::size_t listed = std::min(launches.size(), kMaxListedLaunches);
    Table table({{"#", Align::right},
                 {"Kernel"},
                 {"Device", Align::right},
                 {"Grid", Align::right},
                 {"Block", Align::right},
                 {"Regs", Align::right},
                 {"Shared", Align::right},
                 {"Occupancy", Align::right},
                 {emulated ? "Device time (emulated)" : "GPU time", Align::right},
                 {"Bandwidth", Align::right}},
                "Launches in order");
    for (std::size_t i = 0; i < listed; ++i) {
        const auto& l = launches[i];
        std::string bandwidth = "";
        if (l.bytes_moved && l.gpu_ms > 0)
            bandwidth = format_bandwidth(static_cast<double>(*l.bytes_moved) / (l.gpu_ms / 1e3));
        table.add_row({std::to_string(i + 1), l.kernel, l.device < 0 ? std::string("cpu") : std::to_string(l.device),
                       dim3_text(l.grid), dim3_text(l.block), std::to_string(l.registers), format_bytes(l.shared_bytes),
                       l.occupancy ? format_percent(*l.occupancy) : "", ms(l.gpu_ms), bandwidth});
    }
    std::string more;
    if (launches.size() > listed)
        more =
            std::to_string(launches.size() - listed) + " more launches are not listed; the totals above include them.";

    BarChartOptions chart;
    chart.title = time_word + " per kernel (total over launches)";
    r.svg = horizontal_bar_chart(bars, chart);

    r.plain = summary.plain() + "\n" + table.plain();
    if (!more.empty()) r.plain += more + "\n";
    std::string body = summary.html() + r.svg + table.html();
    if (!more.empty()) body += "<p class=\"xcuda-line xcuda-note\">" + html_escape(more) + "</p>";
    body += emulated ? "<p class=\"xcuda-line xcuda-note\">Device time (emulated): how long the CPU device took to "
                       "run each launch on this machine's cores, not what a GPU would take; occupancy is the "
                       "emulated sm_90's; bandwidth counts the bytes of the array arguments.</p>"
                     : "<p class=\"xcuda-line xcuda-note\">GPU time from CUDA events around each launch; occupancy "
                       "is theoretical; bandwidth counts the bytes of the array arguments.</p>";
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report

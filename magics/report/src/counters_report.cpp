#include "xcuda/report/counters_report.hpp"

#include <cmath>
#include <cstdio>

#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

std::string percent(double pct) { return format_percent(pct / 100.0); }

bool positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

std::string launch_label(std::size_t index, const CounterLaunch& l) {
    return "#" + std::to_string(index + 1) + " " + l.kernel;
}

std::string launch_shape(const CounterLaunch& l) {
    return "grid " + dim3_text(l.grid) + ", block " + dim3_text(l.block);
}

double seconds(const CounterLaunch& l) { return positive(l.duration_ns) ? *l.duration_ns * 1e-9 : 0.0; }

double total_flops(const CounterLaunch& l) {
    double sum = 0;
    for (const auto* f : {&l.flops_fp16, &l.flops_fp32, &l.flops_fp64})
        if (positive(*f)) sum += **f;
    return sum;
}

double dram_bytes(const CounterLaunch& l) {
    return (positive(l.dram_bytes_read) ? *l.dram_bytes_read : 0.0) +
           (positive(l.dram_bytes_write) ? *l.dram_bytes_write : 0.0);
}

// A launch's point on the roofline, or what it lacks to have one.
struct Placement {
    std::optional<RooflinePoint> point;
    std::string missing;
};

Placement place(std::size_t index, const CounterLaunch& l) {
    const double flops = total_flops(l), bytes = dram_bytes(l), s = seconds(l);
    if (flops <= 0) return {std::nullopt, "no FP operations counted"};
    if (bytes <= 0) return {std::nullopt, "no DRAM bytes counted"};
    if (s <= 0) return {std::nullopt, "no duration measured"};
    return {RooflinePoint{launch_label(index, l), flops / bytes, flops / s}, {}};
}

// CUPTI values span counts of billions and ratios below one: whole numbers grouped by
// thousands, the rest with four significant digits.
std::string metric_value(double v) {
    if (!std::isfinite(v)) return "n/a";
    if (std::fabs(v) >= 1000.0 && std::fabs(v) < 9e15) {
        const std::string digits = format_count(static_cast<std::uint64_t>(std::llround(std::fabs(v))));
        return v < 0 ? "-" + digits : digits;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

Table speed_of_light(const CounterLaunch& l, const std::optional<RooflinePoint>& point) {
    Table t({{"Speed of light"}, {"Value"}, {"Rate", Align::right}});
    auto pct_row = [&t](const char* name, const std::optional<double>& pct) {
        if (pct) t.add_row({name, percent_bar_plain(*pct), ""}, {"", percent_bar_html(*pct), ""});
    };
    const double s = seconds(l);
    auto amount_row = [&t, s](const std::string& name, const std::optional<double>& amount, const std::string& unit,
                              const std::string& rate) {
        if (amount) t.add_row({name, format_si(*amount, unit), s > 0 ? rate : ""});
    };
    pct_row("SM throughput", l.sm_throughput_pct);
    pct_row("Memory throughput", l.memory_throughput_pct);
    pct_row("DRAM throughput", l.dram_throughput_pct);
    if (l.duration_ns) t.add_row({"Duration", format_duration(*l.duration_ns * 1e-9), ""});
    pct_row("Achieved occupancy", l.achieved_occupancy_pct);
    pct_row("Theoretical occupancy", l.theoretical_occupancy_pct);
    pct_row("L1 hit rate", l.l1_hit_rate_pct);
    pct_row("L2 hit rate", l.l2_hit_rate_pct);
    for (const auto& [name, bytes] :
         {std::pair{"DRAM read", l.dram_bytes_read}, std::pair{"DRAM written", l.dram_bytes_write}})
        amount_row(name, bytes, "B", bytes && s > 0 ? format_bandwidth(*bytes / s) : "");
    for (const auto& [name, flops] :
         {std::pair{"FP16 operations", l.flops_fp16}, std::pair{"FP32 operations", l.flops_fp32},
          std::pair{"FP64 operations", l.flops_fp64}})
        amount_row(name, flops, "FLOP", flops && s > 0 ? format_si(*flops / s, "FLOP/s") : "");
    if (point) t.add_row({"Arithmetic intensity", format_intensity(point->intensity), ""});
    return t;
}

Table all_metrics(const CounterLaunch& l) {
    Table t({{"Metric"}, {"Value", Align::right}, {"Unit"}}, "All metrics (" + std::to_string(l.metrics.size()) + ")");
    for (const auto& m : l.metrics) t.add_row({m.name, metric_value(m.value), m.unit});
    return t;
}

struct Section {
    std::string plain, html, svg;
};

Section launch_section(std::size_t index, const CounterLaunch& l, const std::optional<RooflinePoint>& point) {
    Section s;
    const std::string verdict_text = verdict(l).text;
    s.plain = launch_label(index, l) + "  " + launch_shape(l) + "\n" + verdict_text + "\n";
    s.html = "<p class=\"xcuda-line\"><b>#" + std::to_string(index + 1) + " <code>" + html_escape(l.kernel) +
             "</code></b> " + html_escape(launch_shape(l)) + "</p><p class=\"xcuda-line\"><b>" +
             html_escape(verdict_text) + "</b></p>";
    const Table sol = speed_of_light(l, point);
    if (sol.rows() > 0) {
        s.plain += sol.plain();
        s.html += sol.html();
    } else {
        const std::string none = "No speed-of-light counters were collected for this launch.";
        s.plain += none + "\n";
        s.html += paragraph(none, "xcuda-note");
    }
    if (!l.metrics.empty()) {
        const Table metrics = all_metrics(l);
        s.plain += "\n" + metrics.plain();
        s.html += metrics.html();
    }
    return s;
}

Section roofline_section(const Roofline& roofline, const std::vector<CounterLaunch>& launches,
                         const std::vector<Placement>& placements) {
    Section s;
    std::string roofs = "DRAM " + format_bandwidth(roofline.dram_bytes_per_second);
    for (std::size_t i = 0; i < roofline.compute_roofs.size(); ++i)
        roofs += (i ? ", " : "; ") + roofline.compute_roofs[i].name + " " +
                 format_si(roofline.compute_roofs[i].flops_per_second, "FLOP/s");
    const std::string heading = "Roofline" + (roofline.device.empty() ? "" : " of " + roofline.device) + ": " + roofs;

    std::vector<RooflinePoint> points;
    Table table({{"Launch"}, {"Intensity", Align::right}, {"Performance", Align::right}}, heading);
    for (const auto& p : placements) {
        if (!p.point) continue;
        points.push_back(*p.point);
        table.add_row(
            {p.point->label, format_intensity(p.point->intensity), format_si(p.point->flops_per_second, "FLOP/s")});
    }
    if (!points.empty()) {
        s.svg = roofline_chart(roofline, points);
        s.plain = table.plain();
        s.html = s.svg;
    } else {
        s.plain = heading + "\n";
        s.html = paragraph(heading, "xcuda-note");
    }
    for (std::size_t i = 0; i < launches.size(); ++i) {
        if (placements[i].point) continue;
        const std::string off =
            launch_label(i, launches[i]) + " is not on the roofline: " + placements[i].missing + ".";
        s.plain += off + "\n";
        s.html += paragraph(off, "xcuda-note");
    }
    return s;
}

}  // namespace

Verdict verdict(const CounterLaunch& l) {
    // Memory throughput is the busiest of L1, L2 and DRAM; name DRAM when it is that one.
    std::optional<double> memory = l.memory_throughput_pct;
    std::string memory_name = "memory";
    if (l.dram_throughput_pct && (!memory || *l.dram_throughput_pct >= *memory)) {
        memory = l.dram_throughput_pct;
        memory_name = "DRAM";
    }
    const std::optional<double>& sm = l.sm_throughput_pct;
    auto above = [](const std::optional<double>& v) { return v && *v > kBoundThresholdPct; };
    if (above(sm) && (!memory || *sm >= *memory))
        return {Bound::compute, "compute-bound: SM at " + percent(*sm) + " of peak" +
                                    (memory ? ", " + memory_name + " at " + percent(*memory) : "")};
    if (above(memory))
        return {Bound::memory, "memory-bound: " + memory_name + " at " + percent(*memory) + " of peak" +
                                   (sm ? ", SM at " + percent(*sm) : "")};
    if (sm && memory)
        return {Bound::latency, "latency-bound: neither SM (" + percent(*sm) + ") nor " + memory_name + " (" +
                                    percent(*memory) + ") above " + percent(kBoundThresholdPct) + " of peak"};
    if (sm)
        return {Bound::unknown, "bound unknown: SM at " + percent(*sm) + " of peak, memory throughput not collected"};
    if (memory)
        return {Bound::unknown,
                "bound unknown: " + memory_name + " at " + percent(*memory) + " of peak, SM throughput not collected"};
    return {Bound::unknown, "bound unknown: SM and memory throughput not collected"};
}

Rich counters_report(const std::vector<CounterLaunch>& launches, const std::optional<Roofline>& roofline,
                     const std::string& note) {
    Rich r;
    std::string body;
    if (!note.empty()) {
        r.plain = note + "\n";
        body = paragraph(note, "xcuda-warn");
    }
    if (launches.empty()) {
        const std::string none = "No kernel launches were profiled, so there are no counters to show.";
        if (note.empty()) return one_line_report(none);
        r.plain += none + "\n";
        r.html = wrap_report(body + paragraph(none, "xcuda-note"));
        return r;
    }

    std::vector<Placement> placements;
    for (std::size_t i = 0; i < launches.size(); ++i) placements.push_back(place(i, launches[i]));
    if (roofline) {
        const Section s = roofline_section(*roofline, launches, placements);
        r.svg = s.svg;
        r.plain += s.plain;
        body += s.html;
    }
    for (std::size_t i = 0; i < launches.size(); ++i) {
        const Section s = launch_section(i, launches[i], placements[i].point);
        r.plain += (r.plain.empty() ? "" : "\n") + s.plain;
        body += s.html;
    }
    body += paragraph("Percentages are of the device's peak, read from hardware counters (CUPTI).", "xcuda-note");
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report

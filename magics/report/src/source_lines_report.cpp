#include "xcuda/report/source_lines_report.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "source_listing.hpp"
#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

constexpr std::size_t kTopStalls = 3;

constexpr std::string_view kCuptiStallPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssuedSuffix = "_not_issued";

struct LineSamples {
    std::uint64_t samples = 0;
    std::map<std::string, std::uint64_t> stalls;  // by readable name, so renamed duplicates merge
};

std::string share(std::uint64_t part, std::uint64_t whole, int decimals) {
    return format_percent(whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0, decimals);
}

// The line's stall reasons, most frequent first (ties in name order).
std::vector<std::pair<std::string, std::uint64_t>> ranked_stalls(const LineSamples& line) {
    std::vector<std::pair<std::string, std::uint64_t>> reasons;
    for (const auto& r : line.stalls)
        if (r.second > 0) reasons.push_back(r);
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return reasons;
}

// "long_scoreboard 62%, wait 20%, selected 9%": the most frequent reasons, as shares of the
// line's samples (of its stall counts when the line's own count is missing).
std::string top_stalls(const LineSamples& line) {
    const auto reasons = ranked_stalls(line);
    std::uint64_t whole = line.samples;
    if (whole == 0)
        for (const auto& r : reasons) whole += r.second;
    std::string out;
    for (std::size_t i = 0; i < reasons.size() && i < kTopStalls; ++i)
        out += (i ? ", " : "") + reasons[i].first + " " + share(reasons[i].second, whole, 0);
    return out;
}

detail::Section kernel_section(const SourceSamples& k) {
    const std::size_t count = k.cell_lines.size();
    std::map<int, LineSamples> sampled;
    std::uint64_t in_cell = 0;
    for (const auto& l : k.lines) {
        if (l.line < 1 || static_cast<std::size_t>(l.line) > count) continue;  // counted with the unattributed
        auto& merged = sampled[l.line];
        merged.samples += l.samples;
        for (const auto& s : l.stalls) merged.stalls[stall_reason_name(s.reason)] += s.samples;
        in_cell += l.samples;
    }
    const std::uint64_t total = std::max(k.total_samples, in_cell);

    detail::Section s;
    const std::string prefix = k.kernel + ": ";
    std::string summary;
    if (total == 0) {
        summary = "no samples were collected (a kernel shorter than the sampling interval gets none).";
        s.plain = prefix + summary + "\n";
        s.html = "<p class=\"xcuda-line\"><b><code>" + html_escape(k.kernel) + "</code></b>: " + html_escape(summary) +
                 "</p>";
        return s;
    }
    auto hottest = sampled.end();
    for (auto it = sampled.begin(); it != sampled.end(); ++it)
        if (it->second.samples > 0 && (hottest == sampled.end() || it->second.samples > hottest->second.samples))
            hottest = it;
    summary = format_count(total) + (total == 1 ? " sample; " : " samples; ");
    if (hottest == sampled.end()) {
        summary += "none on a line of this cell";
    } else {
        summary +=
            "hottest line " + std::to_string(hottest->first) + " (" + share(hottest->second.samples, total, 0) + ")";
        const auto stalls = ranked_stalls(hottest->second);
        if (!stalls.empty()) summary += ": " + stalls.front().first;
    }

    Table table(
        {{"Line", Align::right}, {"Samples", Align::right}, {"Share", Align::right}, {"Source"}, {"Top stalls"}});
    std::set<int> marked;
    for (const auto& entry : sampled) marked.insert(entry.first);
    const std::vector<bool> shown = detail::shown_lines(count, marked);
    const double hottest_samples = hottest == sampled.end() ? 0.0 : static_cast<double>(hottest->second.samples);
    for (std::size_t i = 0; i < count; ++i) {
        if (!shown[i]) {
            if (i == 0 || shown[i - 1]) table.add_row({"...", "", "", "", ""});
            continue;
        }
        const std::string source = detail::expand_tabs(k.cell_lines[i]);
        const auto found = sampled.find(static_cast<int>(i + 1));
        if (found == sampled.end() || found->second.samples == 0) {
            table.add_row({std::to_string(i + 1), "", "", source, ""},
                          {"", "", "", detail::plain_source_html(source), ""});
            continue;
        }
        const LineSamples& line = found->second;
        const double fraction = static_cast<double>(line.samples) / static_cast<double>(total);
        table.add_row(
            {std::to_string(i + 1), format_count(line.samples), format_percent(fraction, 1), source, top_stalls(line)},
            {"", "", percent_bar_html(fraction * 100.0),
             detail::heated_source_html(source, static_cast<double>(line.samples) / hottest_samples), ""});
    }

    std::string elsewhere;
    if (total > in_cell) {
        elsewhere = format_count(total - in_cell) + " samples (" + share(total - in_cell, total, 1) +
                    ") are not on a line of this cell";
        if (k.unattributed_samples > 0)
            elsewhere += " (" + format_count(k.unattributed_samples) + " with no line information or in headers)";
        elsewhere += ".";
    }
    s.plain = prefix + summary + "\n" + table.plain() + (elsewhere.empty() ? "" : elsewhere + "\n");
    s.html = "<p class=\"xcuda-line\"><b><code>" + html_escape(k.kernel) + "</code></b>: " + html_escape(summary) +
             "</p>" + table.html() + (elsewhere.empty() ? "" : paragraph(elsewhere, "xcuda-note"));
    return s;
}

}  // namespace

std::string stall_reason_name(std::string_view cupti_name) {
    std::string_view name = cupti_name;
    if (name.substr(0, kCuptiStallPrefix.size()) == kCuptiStallPrefix) name.remove_prefix(kCuptiStallPrefix.size());
    if (name.size() > kNotIssuedSuffix.size() &&
        name.substr(name.size() - kNotIssuedSuffix.size()) == kNotIssuedSuffix) {
        name.remove_suffix(kNotIssuedSuffix.size());
        return std::string(name) + " (not issued)";
    }
    return std::string(name);
}

Rich source_lines_report(const std::vector<SourceSamples>& kernels) {
    if (kernels.empty()) return one_line_report("No kernels were sampled, so there is no source to attribute time to.");
    const detail::Section sections = detail::join_sections(kernels, kernel_section);
    Rich r;
    r.plain = sections.plain;
    std::string body = sections.html;
    body += paragraph(
        "Each sample is a warp's program counter and state, read by CUPTI at a fixed interval; a "
        "line's stall reasons are shares of that line's samples.",
        "xcuda-note");
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report

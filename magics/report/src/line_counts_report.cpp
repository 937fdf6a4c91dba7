#include "xcuda/report/line_counts_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "source_listing.hpp"
#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

void add(LineCounts& to, const LineCounts& from) {
    to.instructions += from.instructions;
    to.thread_instructions += from.thread_instructions;
    to.divergent += from.divergent;
    to.requests += from.requests;
    to.sectors += from.sectors;
    to.bank_conflicts += from.bank_conflicts;
}

std::string count(std::uint64_t v) { return v == 0 ? std::string() : format_count(v); }

// "4.0": sectors per request, the coalescing figure (4 for 32 consecutive floats).
std::string per_request(const LineCounts& c) {
    if (c.requests == 0) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(c.sectors) / static_cast<double>(c.requests));
    return buf;
}

// Of the lanes a warp could have had active, how many were: below 100% the warps diverged or ran
// partly empty.
std::string lane_use(const LineCounts& c) {
    if (c.instructions == 0) return "";
    return format_percent(static_cast<double>(c.thread_instructions) / (32.0 * static_cast<double>(c.instructions)), 0);
}

detail::Section kernel_section(const KernelLineCounts& k) {
    const std::size_t count_lines = k.cell_lines.size();
    std::map<int, LineCounts> lines;
    LineCounts total = k.elsewhere, elsewhere = k.elsewhere;
    for (const LineCounts& l : k.lines) {
        add(total, l);
        if (l.line < 1 || static_cast<std::size_t>(l.line) > count_lines) {
            add(elsewhere, l);
            continue;
        }
        add(lines[l.line], l);
    }
    std::string summary = format_count(total.instructions) + " warp instructions (" +
                          format_count(total.thread_instructions) + " thread instructions, lanes " + lane_use(total) +
                          " busy)";
    summary +=
        ", " + format_count(total.divergent) + (total.divergent == 1 ? " divergent branch" : " divergent branches");
    if (total.requests > 0) {
        summary += ", " + format_count(total.requests) + " global memory requests (" + per_request(total) +
                   " sectors each; 4 is fully coalesced for 4-byte elements)";
    }
    summary += ", " + format_count(total.bank_conflicts) +
               (total.bank_conflicts == 1 ? " shared-memory bank conflict" : " shared-memory bank conflicts");
    if (k.launches > 1) summary += "; " + format_count(k.launches) + " launches added up";

    Table table({{"Line", Align::right},
                 {"Warp instr.", Align::right},
                 {"Lanes busy", Align::right},
                 {"Divergent", Align::right},
                 {"Requests", Align::right},
                 {"Sectors/req", Align::right},
                 {"Bank conflicts", Align::right},
                 {"Source"}});
    std::set<int> marked;
    std::uint64_t hottest = 0;
    for (const auto& [line, c] : lines) {
        marked.insert(line);
        hottest = std::max(hottest, c.instructions);
    }
    const std::vector<bool> shown = detail::shown_lines(count_lines, marked);
    for (std::size_t i = 0; i < count_lines; ++i) {
        if (!shown[i]) {
            if (i == 0 || shown[i - 1]) table.add_row({"...", "", "", "", "", "", "", ""});
            continue;
        }
        const std::string source = detail::expand_tabs(k.cell_lines[i]);
        const auto found = lines.find(static_cast<int>(i + 1));
        if (found == lines.end() || found->second.instructions == 0) {
            table.add_row({std::to_string(i + 1), "", "", "", "", "", "", source},
                          {"", "", "", "", "", "", "", detail::plain_source_html(source)});
            continue;
        }
        const LineCounts& c = found->second;
        table.add_row(
            {std::to_string(i + 1), format_count(c.instructions), lane_use(c), count(c.divergent), count(c.requests),
             per_request(c), count(c.bank_conflicts), source},
            {"", "", "", "", "", "", "",
             detail::heated_source_html(source, static_cast<double>(c.instructions) / static_cast<double>(hottest))});
    }
    std::string note;
    if (elsewhere.instructions > 0) {
        note = format_count(elsewhere.instructions) +
               " warp instructions are on no line of this cell (headers, or code without line information).";
    }
    detail::Section s;
    const std::string title = k.kernel + " on the CPU device: ";
    s.plain = title + summary + "\n" + table.plain() + (note.empty() ? "" : note + "\n");
    s.html = "<p class=\"xcuda-line\"><b><code>" + html_escape(k.kernel) +
             "</code></b> on the CPU device: " + html_escape(summary) + "</p>" + table.html() +
             (note.empty() ? "" : paragraph(note, "xcuda-note"));
    return s;
}

}  // namespace

Rich line_counts_report(const std::vector<KernelLineCounts>& kernels) {
    if (kernels.empty())
        return one_line_report("No kernel ran on the CPU device in this cell, so there is nothing to count.");
    const detail::Section sections = detail::join_sections(kernels, kernel_section);
    Rich r;
    r.plain = sections.plain;
    std::string body = sections.html;
    const std::string explained =
        "Exact counts of what each line made the emulated GPU do. Lanes busy: of 32 lanes per warp instruction, "
        "the share that ran it (divergence and partial warps lower it). A request is one warp's global load or store; "
        "sectors per request say how coalesced it is (4 for 32 consecutive 4-byte elements, 32 when every lane is in "
        "its own 32-byte sector). A bank conflict is a shared-memory wavefront beyond the first: lanes reading "
        "different words of one of the 32 banks wait for each other.";
    r.plain += explained + "\n";
    body += paragraph(explained, "xcuda-note");
    r.html = wrap_report(body);
    return r;
}

}  // namespace xcuda::report

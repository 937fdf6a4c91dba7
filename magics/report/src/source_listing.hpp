// What the reports that show a cell's source beside figures share: tab expansion (so plain-text
// columns after the source line up), which lines of a long cell to show, the heat background
// of a line, and one section per kernel joined into the report. Internal to the report library.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace xcuda::report::detail {

// Tabs to spaces (stops every 4 columns).
std::string expand_tabs(const std::string& text);

// Which lines of a cell of `count` lines (0-based) to show: all of a short cell (200 lines or
// fewer), else those within 3 lines of one of `marked` (1-based line numbers).
std::vector<bool> shown_lines(std::size_t count, const std::set<int>& marked);

// A source line in HTML over a background whose opacity says how hot it is (0 < heat <= 1:
// the hottest line's share).
std::string heated_source_html(const std::string& source, double heat);
// A source line in HTML without figures.
std::string plain_source_html(const std::string& source);

// One kernel's part of a report, as text and as HTML.
struct Section {
    std::string plain, html;
};

// The sections `section_of` makes of `kernels`: their texts one per line (returned in `plain`) and
// their HTML one after another, for the report to add its note and wrap.
template <class Kernel, class SectionOf>
Section join_sections(const std::vector<Kernel>& kernels, SectionOf section_of) {
    Section joined;
    for (const auto& k : kernels) {
        const Section s = section_of(k);
        joined.plain += (joined.plain.empty() ? "" : "\n") + s.plain;
        joined.html += s.html;
    }
    return joined;
}

}  // namespace xcuda::report::detail

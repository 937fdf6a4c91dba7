// What the reports that show a cell's source beside figures share: tab expansion (so plain-text
// columns after the source line up), which lines of a long cell to show, and the heat background
// of a line. Internal to the report library.
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

}  // namespace xcuda::report::detail

#include "source_listing.hpp"

#include <cstdio>

#include "xcuda/report/html.hpp"

namespace xcuda::report::detail {
namespace {

// Cells are short; a long one (a pasted file) shows only the neighbourhood of its figures.
constexpr std::size_t kFullCellLines = 200;
constexpr std::size_t kContextLines = 3;
constexpr std::size_t kTabStop = 4;
// The hottest line's background; every line with figures keeps a visible tint.
constexpr double kMaxHeat = 0.55, kMinHeat = 0.08;

}  // namespace

std::string expand_tabs(const std::string& text) {
    std::string out;
    std::size_t column = 0;
    for (char c : text) {
        if (c == '\t') {
            const std::size_t pad = kTabStop - column % kTabStop;
            out.append(pad, ' ');
            column += pad;
        } else {
            out += c;
            if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;
        }
    }
    return out;
}

std::vector<bool> shown_lines(std::size_t count, const std::set<int>& marked) {
    std::vector<bool> shown(count, count <= kFullCellLines);
    if (count <= kFullCellLines) return shown;
    for (int line : marked) {
        if (line < 1) continue;
        const std::size_t at = static_cast<std::size_t>(line - 1);
        const std::size_t from = at >= kContextLines ? at - kContextLines : 0;
        for (std::size_t i = from; i < count && i <= at + kContextLines; ++i) shown[i] = true;
    }
    return shown;
}

std::string heated_source_html(const std::string& source, double heat) {
    char opacity[16];
    std::snprintf(opacity, sizeof opacity, "%.2f", kMinHeat + (kMaxHeat - kMinHeat) * heat);
    return "<span class=\"xcuda-heat-cell\"><span class=\"xcuda-heat\" style=\"opacity:" + std::string(opacity) +
           "\"></span><span class=\"xcuda-code\">" + html_escape(source) + "</span></span>";
}

std::string plain_source_html(const std::string& source) {
    return "<span class=\"xcuda-code\">" + html_escape(source) + "</span>";
}

}  // namespace xcuda::report::detail

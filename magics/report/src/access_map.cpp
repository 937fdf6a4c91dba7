#include "xcuda/report/access_map.hpp"

#include <algorithm>

#include "svg.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

constexpr int kCell = 24;       // px per cell
constexpr int kRowGap = 4;      // between rows of one array
constexpr int kArrayGap = 30;   // between arrays (room for the next label)
constexpr unsigned kWrap = 32;  // cells per row of a 1-D array
// Block colours: distinct hues that keep black text readable, in light and dark themes alike.
constexpr const char* kBlockColours[] = {"#8ecae6", "#ffb703", "#90be6d", "#f4a3c1",
                                         "#cdb4db", "#f9c74f", "#84dcc6", "#ffadad"};
constexpr const char* kWrongStroke = "#c62828";
constexpr const char* kFocusStroke = "#1d3557";

unsigned columns_of(const AccessMapArray& a) {
    if (a.columns != 0) return a.columns;
    return static_cast<unsigned>(std::min<std::size_t>(kWrap, std::max<std::size_t>(1, a.writer.size())));
}

std::size_t rows_of(const AccessMapArray& a) {
    const unsigned c = columns_of(a);
    return (a.writer.size() + c - 1) / c;
}

bool at(const std::vector<bool>& v, std::size_t i) { return i < v.size() && v[i]; }

std::string text(int x, int y, const std::string& s, const std::string& style) {
    return "<text x=\"" + std::to_string(x) + "\" y=\"" + std::to_string(y) + "\" style=\"" + style + "\">" +
           html_escape(s) + "</text>";
}

// A thread's index in its block as the cell shows it: "5", or "5,1" in a 2-D block.
std::string thread_label(std::uint64_t thread, std::uint32_t block_x, std::uint32_t threads_per_block) {
    if (block_x == 0 || block_x >= threads_per_block) return std::to_string(thread);
    return std::to_string(thread % block_x) + "," + std::to_string(thread / block_x);
}

std::string cell(const AccessMapArray& a, std::size_t i, int x, int y, std::uint32_t threads_per_block,
                 std::uint32_t block_x) {
    const std::int64_t w = i < a.writer.size() ? a.writer[i] : -1;
    const std::uint32_t reads = i < a.reads.size() ? a.reads[i] : 0;
    std::string fill = "fill:var(--jp-layout-color1,#fff)";
    std::string label;
    if (w >= 0) {
        const std::uint64_t block = static_cast<std::uint64_t>(w) / threads_per_block;
        fill = std::string("fill:") + kBlockColours[block % (sizeof kBlockColours / sizeof *kBlockColours)];
        label = thread_label(static_cast<std::uint64_t>(w) % threads_per_block, block_x, threads_per_block);
    } else if (reads > 0) {
        fill = "fill:var(--jp-layout-color3,#bbb);fill-opacity:" +
               svg::num(std::min(1.0, 0.25 + 0.15 * static_cast<double>(reads)));
        label = std::to_string(reads);
    }
    const bool focus = at(a.focus_read, i) || at(a.focus_written, i);
    std::string stroke = "stroke:var(--jp-border-color1,#999);stroke-width:1";
    if (at(a.wrong, i) || focus)
        stroke = std::string("stroke:") + (at(a.wrong, i) ? kWrongStroke : kFocusStroke) + ";stroke-width:3" +
                 (focus ? ";stroke-dasharray:4 2" : "");
    std::string out =
        "<rect x=\"" + std::to_string(x + 1) + "\" y=\"" + std::to_string(y + 1) + "\" width=\"" +
        std::to_string(kCell - 2) + "\" height=\"" + std::to_string(kCell - 2) + "\" style=\"" + fill + ";" + stroke +
        "\"><title>" + html_escape(a.name + "[" + std::to_string(i) + "]") +
        (w >= 0
             ? html_escape(": written by thread " +
                           thread_label(static_cast<std::uint64_t>(w) % threads_per_block, block_x, threads_per_block) +
                           " of block " + std::to_string(w / threads_per_block))
             : std::string()) +
        (reads > 0 ? html_escape(", read " + std::to_string(reads) + (reads == 1 ? " time" : " times"))
                   : std::string()) +
        "</title></rect>";
    if (!label.empty()) {
        const int size = label.size() > 3 ? 8 : label.size() > 2 ? 9 : 11;
        out += "<text x=\"" + std::to_string(x + kCell / 2) + "\" y=\"" + std::to_string(y + kCell / 2 + 4) +
               "\" text-anchor=\"middle\" style=\"fill:#111;font-family:var(--jp-code-font-family,monospace);"
               "font-size:" +
               std::to_string(size) + "px\">" + html_escape(label) + "</text>";
    }
    return out;
}

}  // namespace

std::string access_map_svg(const AccessMap& map) {
    if (map.arrays.empty()) return {};
    const std::uint32_t per_block = std::max<std::uint32_t>(1, map.threads_per_block);
    unsigned widest = 0;
    int height = 28;
    for (const AccessMapArray& a : map.arrays) {
        widest = std::max(widest, columns_of(a));
        height += kArrayGap + static_cast<int>(rows_of(a)) * (kCell + kRowGap);
    }
    const std::vector<std::string> legend = {
        "Colour: the block that wrote the element last; number: that thread's index in its block.",
        "Grey with a number: read that many times, never written. Red border: a wrong value.",
        map.focus.empty() ? std::string() : "Dashed outline: what " + map.focus + " read or wrote."};
    std::size_t longest = map.title.size();
    for (const std::string& line : legend) longest = std::max(longest, line.size());
    height += 3 * 16 + svg::kMargin;
    const int width = std::max(2 * svg::kMargin + static_cast<int>(widest) * kCell + 48,
                               2 * svg::kMargin + static_cast<int>(static_cast<double>(longest) * svg::kCharWidth));
    std::string out = svg::open(width, height, map.title);
    const std::string label_style = std::string(svg::kText) + ";" + svg::kFont;
    const std::string muted_style = std::string(svg::kMuted) + ";" + svg::kFont;
    int y = 28;
    for (const AccessMapArray& a : map.arrays) {
        y += kArrayGap;
        out += text(svg::kMargin, y - 8, a.role.empty() ? a.name : a.name + " (" + a.role + ")",
                    label_style + ";font-weight:600");
        const unsigned columns = columns_of(a);
        for (std::size_t i = 0; i < a.writer.size(); ++i) {
            const int row = static_cast<int>(i / columns), col = static_cast<int>(i % columns);
            if (col == 0 && rows_of(a) > 1) {
                out += text(svg::kMargin, y + row * (kCell + kRowGap) + kCell / 2 + 4, std::to_string(i), muted_style);
            }
            out += cell(a, i, svg::kMargin + 40 + col * kCell, y + row * (kCell + kRowGap), per_block, map.block_x);
        }
        y += static_cast<int>(rows_of(a)) * (kCell + kRowGap);
    }
    for (const std::string& line : legend) {
        if (line.empty()) continue;
        y += 16;
        out += text(svg::kMargin, y, line, muted_style);
    }
    return out + "</svg>";
}

}  // namespace xcuda::report

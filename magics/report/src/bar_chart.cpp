#include "xcuda/report/bar_chart.hpp"

#include <algorithm>
#include <cstdio>

#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

// Monospace text at 12 px: ~7.2 px per character in the fonts JupyterLab ships with.
constexpr double kCharWidth = 7.2;
constexpr int kFontSize = 12;
constexpr int kMargin = 8;
constexpr int kTitleHeight = 24;
constexpr int kGap = 6;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

// Same variables as report_css(); explicit fallbacks so the SVG is readable as a
// standalone image (<img>, where the page's variables do not reach).
constexpr const char* kText = "fill:var(--jp-content-font-color1,#111)";
constexpr const char* kMuted = "fill:var(--jp-content-font-color2,#555)";
constexpr const char* kBackground = "fill:var(--jp-layout-color1,#fff)";
constexpr const char* kBarFill = "fill:var(--jp-brand-color1,#1976d2)";
constexpr const char* kFont = "font-family:var(--jp-code-font-family,monospace);font-size:12px";

}  // namespace

std::string truncate_label(const std::string& text, std::size_t max_chars) {
    if (display_width(text) <= max_chars) return text;
    if (max_chars == 0) return {};
    std::size_t keep = max_chars - 1, count = 0, i = 0;
    for (; i < text.size(); ++i) {
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            if (count == keep) break;
            ++count;
        }
    }
    return text.substr(0, i) + "…";
}

std::string horizontal_bar_chart(const std::vector<Bar>& bars, const BarChartOptions& opt) {
    std::size_t label_chars = 1, value_chars = 1;
    for (const auto& b : bars) {
        label_chars = std::max(label_chars, display_width(truncate_label(b.label, opt.max_label_chars)));
        value_chars = std::max(value_chars, display_width(b.value_text));
    }
    const double label_w = label_chars * kCharWidth + kMargin;
    const double value_w = std::min(value_chars * kCharWidth + kMargin, opt.width * 0.3);
    const double bar_x = kMargin + label_w;
    const double bar_max = std::max(10.0, opt.width - bar_x - value_w - kMargin);
    double max_value = 0.0;
    for (const auto& b : bars) max_value = std::max(max_value, b.value);

    const int row_h = opt.bar_height + kGap;
    const int height = kTitleHeight + static_cast<int>(bars.size()) * row_h + kMargin;
    std::string w = std::to_string(opt.width), h = std::to_string(height);

    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"xcuda-chart\" role=\"img\" width=\"" + w +
                      "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">";
    svg += "<title>" + html_escape(opt.title) + "</title>";
    svg += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" style=\"" + kBackground + "\"/>";
    svg += "<text x=\"" + std::to_string(kMargin) + "\" y=\"16\" style=\"" + kText + ";" + kFont +
           ";font-weight:600\">" + html_escape(truncate_label(opt.title, static_cast<std::size_t>(opt.width / kCharWidth) - 2)) +
           "</text>";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double y = kTitleHeight + static_cast<double>(i) * row_h;
        const double text_y = y + opt.bar_height / 2.0 + kFontSize * 0.35;
        const double v = std::max(0.0, b.value);
        // Zero-width bars would vanish; any positive value stays visible.
        double bw = max_value > 0 ? bar_max * v / max_value : 0.0;
        if (v > 0 && bw < 1.0) bw = 1.0;
        svg += "<g class=\"xcuda-bar-row\"><title>" + html_escape(b.label) + ": " + html_escape(b.value_text) + "</title>";
        svg += "<text x=\"" + num(kMargin) + "\" y=\"" + num(text_y) + "\" style=\"" + kText + ";" + kFont + "\">" +
               html_escape(truncate_label(b.label, opt.max_label_chars)) + "</text>";
        svg += "<rect class=\"xcuda-bar\" x=\"" + num(bar_x) + "\" y=\"" + num(y) + "\" width=\"" + num(bw) +
               "\" height=\"" + std::to_string(opt.bar_height) + "\" rx=\"2\" style=\"" + kBarFill + "\"/>";
        svg += "<text x=\"" + num(bar_x + bw + 4) + "\" y=\"" + num(text_y) + "\" style=\"" + kMuted + ";" + kFont +
               "\">" + html_escape(b.value_text) + "</text></g>";
    }
    svg += "</svg>";
    return svg;
}

}  // namespace xcuda::report

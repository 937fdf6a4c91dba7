#include "xcuda/report/bar_chart.hpp"

#include <algorithm>

#include "svg.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

using svg::kBrandFill;
using svg::kCharWidth;
using svg::kFont;
using svg::kFontSize;
using svg::kMargin;
using svg::kMuted;
using svg::kText;
using svg::num;

constexpr int kTitleHeight = 24;
constexpr int kGap = 6;

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
    std::string out = svg::open(opt.width, height, opt.title);
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const auto& b = bars[i];
        const double y = kTitleHeight + static_cast<double>(i) * row_h;
        const double text_y = y + opt.bar_height / 2.0 + kFontSize * 0.35;
        const double v = std::max(0.0, b.value);
        // Zero-width bars would vanish; any positive value stays visible.
        double bw = max_value > 0 ? bar_max * v / max_value : 0.0;
        if (v > 0 && bw < 1.0) bw = 1.0;
        out +=
            "<g class=\"xcuda-bar-row\"><title>" + html_escape(b.label) + ": " + html_escape(b.value_text) + "</title>";
        out += "<text x=\"" + num(kMargin) + "\" y=\"" + num(text_y) + "\" style=\"" + kText + ";" + kFont + "\">" +
               html_escape(truncate_label(b.label, opt.max_label_chars)) + "</text>";
        out += "<rect class=\"xcuda-bar\" x=\"" + num(bar_x) + "\" y=\"" + num(y) + "\" width=\"" + num(bw) +
               "\" height=\"" + std::to_string(opt.bar_height) + "\" rx=\"2\" style=\"" + kBrandFill + "\"/>";
        out += "<text x=\"" + num(bar_x + bw + 4) + "\" y=\"" + num(text_y) + "\" style=\"" + kMuted + ";" + kFont +
               "\">" + html_escape(b.value_text) + "</text></g>";
    }
    out += "</svg>";
    return out;
}

}  // namespace xcuda::report

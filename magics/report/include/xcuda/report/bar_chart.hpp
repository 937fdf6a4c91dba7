// A self-contained horizontal bar chart as SVG: text in currentColor and bars in a
// JupyterLab CSS variable, so it reads in light and dark themes; long labels are cut with
// an ellipsis and carry the full text in a <title>.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace xcuda::report {

struct Bar {
    std::string label;       // e.g. kernel name
    double value = 0.0;      // bar length is proportional to it (negative counts as 0)
    std::string value_text;  // printed after the bar, e.g. "1.23 ms (×10)"
};

struct BarChartOptions {
    std::string title;                 // the chart's <title> and visible heading
    int width = 600;                   // px
    int bar_height = 18;               // px
    std::size_t max_label_chars = 24;  // longer labels end with "…"
};

// Bars in the given order. Each bar is a <rect class="xcuda-bar"> with its full label and
// value in a <title>.
std::string horizontal_bar_chart(const std::vector<Bar>& bars, const BarChartOptions& options);

// Cuts to at most max_chars code points, ending with "…" when cut (UTF-8 safe).
std::string truncate_label(const std::string& text, std::size_t max_chars);

}  // namespace xcuda::report

// Pieces every SVG chart of the reports shares (private to xcuda-report): the themed styles
// and the document's opening. Colours are the variables of report_css() with explicit
// fallbacks, so a chart also reads as a standalone image (<img>), where the page's variables
// do not reach.
#pragma once

#include <string>

namespace xcuda::report::svg {

constexpr const char* kText = "fill:var(--jp-content-font-color1,#111)";
constexpr const char* kMuted = "fill:var(--jp-content-font-color2,#555)";
constexpr const char* kBackground = "fill:var(--jp-layout-color1,#fff)";
constexpr const char* kBrandFill = "fill:var(--jp-brand-color1,#1976d2)";
constexpr const char* kFont = "font-family:var(--jp-code-font-family,monospace);font-size:12px";

// Monospace text at 12 px: ~7.2 px per character in the fonts JupyterLab ships with.
constexpr double kCharWidth = 7.2;
constexpr int kFontSize = 12;
constexpr int kMargin = 8;

// A coordinate with at most two decimals and no trailing zeros: 12.5, 3, 0.25.
std::string num(double v);

// <svg ...> with the chart class and role, its <title>, the background and the visible
// title in the top left corner; the caller appends the content and "</svg>".
std::string open(int width, int height, const std::string& title);

}  // namespace xcuda::report::svg

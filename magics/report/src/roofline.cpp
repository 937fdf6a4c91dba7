#include "xcuda/report/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "svg.hpp"
#include "xcuda/report/bar_chart.hpp"
#include "xcuda/report/html.hpp"
#include "xcuda/report/units.hpp"

namespace xcuda::report {
namespace {

constexpr int kWidth = 640;
constexpr int kHeight = 420;
constexpr double kLeft = 64, kRight = 16, kTop = 32, kBottom = 44;
constexpr std::size_t kMaxPointLabel = 24;
constexpr double kDegreesPerRadian = 57.29577951308232;

constexpr const char* kGrid = "stroke:var(--jp-border-color2,#ccc);stroke-width:1;fill:none";
constexpr const char* kRoofStroke = "stroke:var(--jp-content-font-color1,#111);stroke-width:2;fill:none";
constexpr const char* kRidgeStyle =
    "stroke:var(--jp-content-font-color1,#111);stroke-width:1.5;fill:var(--jp-layout-color1,#fff)";

bool usable(double v) { return std::isfinite(v) && v > 0; }

// One log10 axis over whole decades [lo, hi], mapped onto pixels [from, to].
struct Axis {
    int lo = 0, hi = 1;
    double from = 0, to = 1;
    double at(double v) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
    double pixels_per_decade() const { return std::fabs(to - from) / (hi - lo); }
};

// Whole decades with a quarter decade of room around the extremes, at least two decades.
Axis decades(const std::vector<double>& values, double fallback_lo, double fallback_hi) {
    double lo = fallback_lo, hi = fallback_hi;
    if (!values.empty()) {
        lo = *std::min_element(values.begin(), values.end());
        hi = *std::max_element(values.begin(), values.end());
    }
    Axis a;
    a.lo = static_cast<int>(std::floor(std::log10(lo) - 0.25));
    a.hi = static_cast<int>(std::ceil(std::log10(hi) + 0.25));
    if (a.hi - a.lo < 2) a.hi = a.lo + 2;
    return a;
}

// 10^d as a tick label: "0.01", "1", "1000", "10k", "1T"; "1e-5" or "1e21" beyond.
std::string decade_label(int d) {
    if (d >= -3 && d < 0) return "0." + std::string(static_cast<std::size_t>(-d - 1), '0') + "1";
    if (d >= 0 && d <= 3) return "1" + std::string(static_cast<std::size_t>(d), '0');
    static const char* const prefixes[] = {"k", "M", "G", "T", "P", "E"};
    if (d > 3 && d < 21) return "1" + std::string(static_cast<std::size_t>(d % 3), '0') + prefixes[d / 3 - 1];
    return "1e" + std::to_string(d);
}

std::string text(double x, double y, const std::string& content, const char* style, const char* anchor = "start",
                 const std::string& extra = {}) {
    return "<text x=\"" + svg::num(x) + "\" y=\"" + svg::num(y) + "\" text-anchor=\"" + anchor + "\" style=\"" + style +
           ";" + svg::kFont + "\"" + extra + ">" + html_escape(content) + "</text>";
}

std::string line(const char* cls, double x1, double y1, double x2, double y2, const char* style,
                 const std::string& extra = {}) {
    return "<line class=\"" + std::string(cls) + "\"" + extra + " x1=\"" + svg::num(x1) + "\" y1=\"" + svg::num(y1) +
           "\" x2=\"" + svg::num(x2) + "\" y2=\"" + svg::num(y2) + "\" style=\"" + style + "\"/>";
}

std::string grid(const Axis& x, const Axis& y) {
    std::string out = "<g class=\"xcuda-axes\">";
    const double bottom = y.from, top = y.to, left = x.from, right = x.to;
    for (int d = x.lo; d <= x.hi; ++d) {
        const double px = x.at(std::pow(10.0, d));
        out += line("xcuda-grid", px, top, px, bottom, kGrid,
                    " data-axis=\"x\" data-decade=\"" + std::to_string(d) + "\"");
        out += text(px, bottom + 16, decade_label(d), svg::kMuted, "middle");
    }
    for (int d = y.lo; d <= y.hi; ++d) {
        const double py = y.at(std::pow(10.0, d));
        out += line("xcuda-grid", left, py, right, py, kGrid,
                    " data-axis=\"y\" data-decade=\"" + std::to_string(d) + "\"");
        out += text(left - 6, py + 4, decade_label(d), svg::kMuted, "end");
    }
    out += text((left + right) / 2, kHeight - 8, "Arithmetic intensity (FLOP per byte of DRAM traffic)", svg::kText,
                "middle");
    const double mid = (top + bottom) / 2;
    out += text(14, mid, "FLOP/s", svg::kText, "middle", " transform=\"rotate(-90 14 " + svg::num(mid) + ")\"");
    return out + "</g>";
}

}  // namespace

double ridge_intensity(const Roof& roof, double dram_bytes_per_second) {
    return dram_bytes_per_second > 0 ? roof.flops_per_second / dram_bytes_per_second : 0.0;
}

std::string roofline_chart(const Roofline& roofline, const std::vector<RooflinePoint>& points) {
    const double bandwidth = roofline.dram_bytes_per_second;
    const bool memory_roof = usable(bandwidth);
    std::vector<Roof> roofs;
    for (const auto& r : roofline.compute_roofs)
        if (usable(r.flops_per_second)) roofs.push_back(r);
    std::vector<RooflinePoint> shown;
    for (const auto& p : points)
        if (usable(p.intensity) && usable(p.flops_per_second)) shown.push_back(p);

    std::vector<double> xs, ys;
    for (const auto& p : shown) {
        xs.push_back(p.intensity);
        ys.push_back(p.flops_per_second);
    }
    for (const auto& r : roofs) {
        if (memory_roof) xs.push_back(ridge_intensity(r, bandwidth));
        ys.push_back(r.flops_per_second);
    }
    Axis x = decades(xs, 0.1, 100.0), y = decades(ys, 1e9, 1e12);
    x.from = kLeft;
    x.to = kWidth - kRight;
    y.from = kHeight - kBottom;
    y.to = kTop;
    const double x_min = std::pow(10.0, x.lo), x_max = std::pow(10.0, x.hi);
    const double y_min = std::pow(10.0, y.lo), y_max = std::pow(10.0, y.hi);

    std::string title = roofline.device.empty() ? "Roofline" : "Roofline: " + roofline.device;
    std::string out = svg::open(kWidth, kHeight, title);
    out += grid(x, y);

    double top_roof = 0;
    for (const auto& r : roofs) top_roof = std::max(top_roof, r.flops_per_second);
    if (memory_roof) {
        // The diagonal runs inside the plot until it meets the highest compute roof.
        const double start = std::max(x_min, y_min / bandwidth);
        double end = std::min(x_max, y_max / bandwidth);
        if (top_roof > 0) end = std::min(end, top_roof / bandwidth);
        if (start < end) {
            const std::string label = "DRAM " + format_bandwidth(bandwidth);
            out += "<g class=\"xcuda-roof-memory\"><title>" + html_escape("Memory roof: " + label) + "</title>";
            out +=
                line("xcuda-roof", x.at(start), y.at(start * bandwidth), x.at(end), y.at(end * bandwidth), kRoofStroke);
            // Both axes are logarithmic, so the diagonal climbs one y decade per x decade.
            const double slope = y.pixels_per_decade() / x.pixels_per_decade();
            const double angle = std::atan(slope) * kDegreesPerRadian;
            const double lx = x.at(start) + 10, ly = y.at(start * bandwidth) - 10 * slope - 6;
            out += text(lx, ly, label, svg::kText, "start",
                        " transform=\"rotate(" + svg::num(-angle) + " " + svg::num(lx) + " " + svg::num(ly) + ")\"");
            out += "</g>";
        }
    }
    for (const auto& r : roofs) {
        const double ridge = memory_roof ? ridge_intensity(r, bandwidth) : x_min;
        const double py = y.at(r.flops_per_second);
        const std::string label = r.name + " " + format_si(r.flops_per_second, "FLOP/s");
        out += "<g class=\"xcuda-roof-compute\"><title>" + html_escape("Compute roof " + label) + "</title>";
        out += line("xcuda-roof", x.at(std::max(ridge, x_min)), py, x.to, py, kRoofStroke);
        out += text(x.to - 4, py - 5, label, svg::kText, "end") + "</g>";
        if (!memory_roof) continue;
        const std::string at = format_intensity(ridge);
        out += "<g class=\"xcuda-ridge\"><title>" + html_escape(r.name + " ridge point: " + at) + "</title>";
        out += "<circle class=\"xcuda-ridge-point\" cx=\"" + svg::num(x.at(ridge)) + "\" cy=\"" + svg::num(py) +
               "\" r=\"3.5\" style=\"" + kRidgeStyle + "\"/>";
        char value[32];
        std::snprintf(value, sizeof value, "%.3g", ridge);
        out += text(x.at(ridge) + 6, py + 14, value, svg::kMuted) + "</g>";
    }
    for (const auto& p : shown) {
        const double px = x.at(p.intensity), py = y.at(p.flops_per_second);
        out += "<g class=\"xcuda-roofline-point\"><title>" +
               html_escape(p.label + ": " + format_intensity(p.intensity) + ", " +
                           format_si(p.flops_per_second, "FLOP/s")) +
               "</title>";
        out += "<circle class=\"xcuda-point\" cx=\"" + svg::num(px) + "\" cy=\"" + svg::num(py) +
               "\" r=\"4\" style=\"" + svg::kBrandFill + "\"/>";
        // A label that would run past the plot's right edge goes on the point's left.
        const std::string label = truncate_label(p.label, kMaxPointLabel);
        const bool fits_right = px + 7 + display_width(label) * svg::kCharWidth <= x.to;
        out += text(fits_right ? px + 7 : px - 7, py + 4, label, svg::kText, fits_right ? "start" : "end") + "</g>";
    }
    return out + "</svg>";
}

}  // namespace xcuda::report

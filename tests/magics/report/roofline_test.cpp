#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <regex>

#include "xcuda/report/counters_report.hpp"
#include "xcuda/report/roofline.hpp"

using namespace xcuda::report;

namespace {

const Roofline kH200{"NVIDIA H200", 4.8e12, {{"FP64", 3.4e13}, {"FP32", 6.7e13}, {"FP16", 1.3e14}}};

// Pixel position of each decade's grid line, per axis, read back from the chart.
struct Grid {
    std::map<int, double> x, y;

    // Where a value must land: between its decade's lines, at the log fraction.
    double expected_x(double v) const { return between(x, v); }
    double expected_y(double v) const { return between(y, v); }

    static double between(const std::map<int, double>& lines, double v) {
        const double l = std::log10(v);
        const int d = static_cast<int>(std::floor(l));
        return lines.at(d) + (l - d) * (lines.at(d + 1) - lines.at(d));
    }
};

Grid read_grid(const std::string& svg) {
    Grid g;
    std::regex re(
        R"re(<line class="xcuda-grid" data-axis="([xy])" data-decade="(-?[0-9]+)" x1="([-0-9.]+)" y1="([-0-9.]+)")re");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
        const int decade = std::stoi((*it)[2]);
        if ((*it)[1] == "x")
            g.x[decade] = std::stod((*it)[3]);
        else
            g.y[decade] = std::stod((*it)[4]);
    }
    return g;
}

std::vector<std::pair<double, double>> circles(const std::string& svg, const std::string& cls) {
    std::vector<std::pair<double, double>> out;
    std::regex re("<circle class=\"" + cls + "\" cx=\"([-0-9.]+)\" cy=\"([-0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
        out.emplace_back(std::stod((*it)[1]), std::stod((*it)[2]));
    return out;
}

CounterLaunch launch(std::string kernel, std::optional<double> flops, std::optional<double> bytes, double ns) {
    CounterLaunch l;
    l.kernel = std::move(kernel);
    l.flops_fp32 = flops;
    l.dram_bytes_read = bytes;
    l.duration_ns = ns;
    return l;
}

}  // namespace

TEST(Roofline, RidgePointIsTheRoofOverTheBandwidth) {
    EXPECT_DOUBLE_EQ(ridge_intensity({"FP32", 6.7e13}, 4.8e12), 6.7e13 / 4.8e12);
    EXPECT_DOUBLE_EQ(ridge_intensity({"FP32", 6.7e13}, 0), 0.0);
}

TEST(Roofline, PointLandsBetweenTheDecadesOfItsIntensityAndFlopRate) {
    // 3 GFLOP over 100 MB in 1 ms: 30 FLOP/byte (between 10 and 100), 3 TFLOP/s (between 1T and 10T).
    Rich r = counters_report({launch("k", 3e9, 1e8, 1e6)}, kH200, "");
    const Grid g = read_grid(r.svg);
    const auto points = circles(r.svg, "xcuda-point");
    ASSERT_EQ(points.size(), 1u) << r.svg;
    const auto [cx, cy] = points[0];
    EXPECT_GT(cx, g.x.at(1));
    EXPECT_LT(cx, g.x.at(2));
    EXPECT_LT(cy, g.y.at(12));  // y grows downwards in SVG
    EXPECT_GT(cy, g.y.at(13));
    EXPECT_NEAR(cx, g.expected_x(30.0), 0.02);
    EXPECT_NEAR(cy, g.expected_y(3e12), 0.02);
    EXPECT_NE(r.svg.find("#1 k: 30.0 FLOP/byte, 3.00 TFLOP/s"), std::string::npos) << r.svg;
}

TEST(Roofline, RidgePointsSitAtRoofOverBandwidthOnTheirRoof) {
    Rich r = counters_report({launch("k", 3e9, 1e8, 1e6)}, kH200, "");
    const Grid g = read_grid(r.svg);
    const auto ridges = circles(r.svg, "xcuda-ridge-point");
    ASSERT_EQ(ridges.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const Roof& roof = kH200.compute_roofs[i];
        EXPECT_NEAR(ridges[i].first, g.expected_x(roof.flops_per_second / 4.8e12), 0.02) << roof.name;
        EXPECT_NEAR(ridges[i].second, g.expected_y(roof.flops_per_second), 0.02) << roof.name;
    }
    EXPECT_NE(r.svg.find("FP32 ridge point: 14.0 FLOP/byte"), std::string::npos);
}

TEST(Roofline, AxesAreLabelledWithDecades) {
    Rich r = counters_report({launch("k", 1e6, 1.2e7, 2e4)}, kH200, "");  // 0.083 FLOP/byte
    const Grid g = read_grid(r.svg);
    EXPECT_LE(g.x.begin()->first, -2);   // the point's decade and the one below it
    EXPECT_GE(g.x.rbegin()->first, 2);   // FP16's ridge at 27 FLOP/byte
    EXPECT_GE(g.y.rbegin()->first, 15);  // the 130 TFLOP/s roof, with room above
    EXPECT_NE(r.svg.find(">0.01</text>"), std::string::npos);
    EXPECT_NE(r.svg.find(">100T</text>"), std::string::npos);
    EXPECT_NE(r.svg.find("Arithmetic intensity (FLOP per byte of DRAM traffic)"), std::string::npos);
}

TEST(Roofline, LaunchWithoutFlopsIsListedAsNotOnTheRoofline) {
    Rich r = counters_report({launch("fma", 3e9, 1e8, 1e6), launch("copy", std::nullopt, 1e8, 1e6),
                              launch("regs_only", 1e9, std::nullopt, 1e6)},
                             kH200, "");
    EXPECT_EQ(circles(r.svg, "xcuda-point").size(), 1u);
    EXPECT_NE(r.plain.find("#2 copy is not on the roofline: no FP operations counted."), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("#3 regs_only is not on the roofline: no DRAM bytes counted."), std::string::npos);
    EXPECT_NE(r.html.find("#2 copy is not on the roofline: no FP operations counted."), std::string::npos);
}

TEST(Roofline, NoChartWithoutARooflineOrWithoutAPoint) {
    EXPECT_TRUE(counters_report({launch("fma", 3e9, 1e8, 1e6)}, std::nullopt, "").svg.empty());
    Rich r = counters_report({launch("copy", 0.0, 1e8, 1e6)}, kH200, "");
    EXPECT_TRUE(r.svg.empty());
    EXPECT_NE(r.plain.find("not on the roofline: no FP operations counted"), std::string::npos);
    EXPECT_NE(r.plain.find("Roofline of NVIDIA H200: DRAM 4800 GB/s; FP64 34.0 TFLOP/s"), std::string::npos) << r.plain;
}

#include <gtest/gtest.h>

#include <regex>

#include "xcuda/report/bar_chart.hpp"
#include "xcuda/report/profile_report.hpp"

using namespace xcuda::report;

namespace {

ProfiledLaunch launch(std::string name, double ms, std::optional<std::uint64_t> bytes = std::nullopt) {
    ProfiledLaunch l;
    l.kernel = std::move(name);
    l.grid = {4096, 1, 1};
    l.block = {256, 1, 1};
    l.registers = 16;
    l.occupancy = 1.0;
    l.gpu_ms = ms;
    l.bytes_moved = bytes;
    return l;
}

std::vector<double> bar_widths(const std::string& svg) {
    std::vector<double> out;
    std::regex re("<rect class=\"xcuda-bar\"[^>]* width=\"([0-9.]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
        out.push_back(std::stod((*it)[1]));
    return out;
}

}  // namespace

TEST(TotalsByKernel, SumsLaunchesOfTheSameKernelAndSortsByTime) {
    auto t = totals_by_kernel({launch("a", 1.0), launch("b", 5.0), launch("a", 2.0), launch("c", 0.5)});
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].kernel, "b");
    EXPECT_EQ(t[1].kernel, "a");
    EXPECT_EQ(t[1].launches, 2);
    EXPECT_DOUBLE_EQ(t[1].total_ms, 3.0);
    EXPECT_EQ(t[2].kernel, "c");
}

TEST(ProfileReport, ChartHasOneBarPerKernelWithWidthsProportionalToTotalTime) {
    Rich r = profile_report({launch("a", 1.0), launch("b", 4.0), launch("a", 1.0), launch("c", 0.5)});
    auto w = bar_widths(r.svg);
    ASSERT_EQ(w.size(), 3u);  // b (4 ms), a (2 ms), c (0.5 ms)
    EXPECT_NEAR(w[1] / w[0], 0.5, 0.01);
    EXPECT_NEAR(w[2] / w[0], 0.125, 0.01);
    EXPECT_NE(r.svg.find("×2"), std::string::npos);  // a's launch count
}

TEST(ProfileReport, TableListsEveryLaunchWithBandwidthWhenBytesAreKnown) {
    // 8 MB in 1 ms = 8 GB/s.
    Rich r = profile_report({launch("saxpy", 1.0, 8'000'000), launch("saxpy", 2.0)});
    EXPECT_NE(r.html.find("8.00 GB/s"), std::string::npos);
    EXPECT_NE(r.plain.find("8.00 GB/s"), std::string::npos);
    EXPECT_NE(r.plain.find("GPU time per kernel: 2 launches, 3.00 ms in all"), std::string::npos) << r.plain;
    EXPECT_NE(r.html.find("<svg"), std::string::npos);  // the chart is inline in the HTML too
}

TEST(ProfileReport, OnTheCpuDeviceTheTimesAreCalledEmulatedDeviceTime) {
    ProfiledLaunch l = launch("k", 1.0);
    l.device = -1;  // the CPU device
    Rich r = profile_report({l, l});
    EXPECT_NE(r.plain.find("Device time (emulated) per kernel: 2 launches, 2.00 ms in all"), std::string::npos)
        << r.plain;
    EXPECT_NE(r.plain.find("Device time (emulated)  Bandwidth"), std::string::npos) << r.plain;
    EXPECT_EQ(r.plain.find("GPU time"), std::string::npos) << r.plain;
    EXPECT_EQ(r.html.find("GPU time"), std::string::npos);
    EXPECT_EQ(r.html.find("CUDA events"), std::string::npos);
    EXPECT_NE(r.html.find("not what a GPU would take"), std::string::npos);
    // One GPU launch among them: GPU time again.
    Rich mixed = profile_report({l, launch("g", 1.0)});
    EXPECT_NE(mixed.plain.find("GPU time per kernel"), std::string::npos) << mixed.plain;
}

TEST(ProfileReport, EscapesKernelNamesInHtmlAndSvg) {
    Rich r = profile_report({launch("<script>alert(1)</script>", 1.0)});
    EXPECT_EQ(r.html.find("<script>"), std::string::npos);
    EXPECT_EQ(r.svg.find("<script>"), std::string::npos);
    EXPECT_NE(r.svg.find("&lt;script&gt;"), std::string::npos);
}

TEST(ProfileReport, NoLaunchesSaysSoAndHasNoChart) {
    Rich r = profile_report({});
    EXPECT_NE(r.plain.find("launched no CUDA kernels"), std::string::npos);
    EXPECT_TRUE(r.svg.empty());
}

TEST(ProfileReport, ShowsMultiDimensionalGridsAsTriples) {
    ProfiledLaunch l = launch("k", 1.0);
    l.grid = {64, 32, 1};
    EXPECT_NE(profile_report({l}).plain.find("(64, 32, 1)"), std::string::npos);
}

TEST(BarChart, LongLabelsAreCutWithAnEllipsisAndKeptWholeInTheTitle) {
    const std::string name = "a_very_long_templated_kernel_name_for_float4";
    BarChartOptions opt;
    opt.title = "t";
    std::string svg = horizontal_bar_chart({{name, 1.0, "1 ms"}}, opt);
    EXPECT_NE(svg.find("<title>" + name + ": 1 ms</title>"), std::string::npos);
    EXPECT_NE(svg.find(truncate_label(name, 24)), std::string::npos);
    EXPECT_EQ(truncate_label(name, 24).substr(23), "…");
}

TEST(BarChart, UsesThemeVariablesAndHasAnAccessibleTitle) {
    BarChartOptions opt;
    opt.title = "GPU time";
    std::string svg = horizontal_bar_chart({{"k", 1.0, "1 ms"}}, opt);
    EXPECT_NE(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    // The <title> is the svg's first child: the accessible name of the chart.
    EXPECT_NE(svg.find("role=\"img\""), std::string::npos);
    EXPECT_EQ(svg.find("<title>GPU time</title>"), svg.find('>') + 1);
    EXPECT_NE(svg.find("var(--jp-content-font-color1,#111)"), std::string::npos);
    EXPECT_NE(svg.find("var(--jp-layout-color1,#fff)"), std::string::npos);
    EXPECT_NE(svg.find("width=\"600\""), std::string::npos);
}

TEST(TruncateLabel, CountsCodePointsNotBytes) {
    EXPECT_EQ(truncate_label("µµµµ", 4), "µµµµ");
    EXPECT_EQ(truncate_label("µµµµµ", 4), "µµµ…");
}

TEST(ProfileReport, LongRunsListTheFirst200LaunchesButTotalAll) {
    std::vector<ProfiledLaunch> many(250, launch("k", 0.01));
    Rich r = profile_report(many);
    EXPECT_NE(r.plain.find("50 more launches are not listed"), std::string::npos);
    EXPECT_NE(r.plain.find("GPU time per kernel: 250 launches, 2.50 ms in all"), std::string::npos);
    EXPECT_EQ(r.plain.find("\n201  k"), std::string::npos);
    EXPECT_NE(r.plain.find("\n200  k"), std::string::npos);
}

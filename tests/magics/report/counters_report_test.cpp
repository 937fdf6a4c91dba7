#include <gtest/gtest.h>

#include <sstream>

#include "xcuda/report/counters_report.hpp"

using namespace xcuda::report;

namespace {

CounterLaunch throughput(std::optional<double> sm, std::optional<double> memory, std::optional<double> dram) {
    CounterLaunch l;
    l.kernel = "k";
    l.sm_throughput_pct = sm;
    l.memory_throughput_pct = memory;
    l.dram_throughput_pct = dram;
    return l;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

}  // namespace

TEST(CountersVerdict, MemoryBoundWhenDramIsAboveSixtyPercentAndAboveSm) {
    Verdict v = verdict(throughput(14.2, 91.3, 91.3));
    EXPECT_EQ(v.bound, Bound::memory);
    EXPECT_EQ(v.text, "memory-bound: DRAM at 91% of peak, SM at 14%");
}

TEST(CountersVerdict, NamesTheMemorySystemWhenItIsBusierThanDram) {
    Verdict v = verdict(throughput(20.0, 85.0, 12.0));  // an L1/L2-bound kernel
    EXPECT_EQ(v.bound, Bound::memory);
    EXPECT_TRUE(starts_with(v.text, "memory-bound: memory at 85% of peak")) << v.text;
}

TEST(CountersVerdict, ComputeBoundWhenSmIsAboveSixtyPercentAndAboveMemory) {
    Verdict v = verdict(throughput(88.6, 9.5, 7.8));
    EXPECT_EQ(v.bound, Bound::compute);
    EXPECT_EQ(v.text, "compute-bound: SM at 89% of peak, memory at 10%");
    // Both high: the busier unit bounds the launch.
    EXPECT_EQ(verdict(throughput(70.0, 90.0, 90.0)).bound, Bound::memory);
    EXPECT_EQ(verdict(throughput(90.0, 70.0, 65.0)).bound, Bound::compute);
}

TEST(CountersVerdict, LatencyBoundWhenNeitherIsAboveSixtyPercent) {
    Verdict v = verdict(throughput(22.0, 41.0, 35.0));
    EXPECT_EQ(v.bound, Bound::latency);
    EXPECT_EQ(v.text, "latency-bound: neither SM (22%) nor memory (41%) above 60% of peak");
    // The threshold itself is not above it; just past it is.
    EXPECT_EQ(verdict(throughput(60.0, 60.0, std::nullopt)).bound, Bound::latency);
    EXPECT_EQ(verdict(throughput(60.1, 60.0, std::nullopt)).bound, Bound::compute);
    EXPECT_EQ(verdict(throughput(10.0, std::nullopt, 60.1)).bound, Bound::memory);
}

TEST(CountersVerdict, UnknownWhenAMissingThroughputCouldChangeTheAnswer) {
    EXPECT_EQ(verdict(throughput(30.0, std::nullopt, std::nullopt)).bound, Bound::unknown);
    EXPECT_EQ(verdict(throughput(std::nullopt, 30.0, std::nullopt)).bound, Bound::unknown);
    Verdict none = verdict(throughput(std::nullopt, std::nullopt, std::nullopt));
    EXPECT_EQ(none.bound, Bound::unknown);
    EXPECT_EQ(none.text, "bound unknown: SM and memory throughput not collected");
    // A high figure is enough on its own.
    EXPECT_EQ(verdict(throughput(std::nullopt, 91.0, std::nullopt)).bound, Bound::memory);
}

TEST(CountersReport, EachLaunchHasItsVerdictLine) {
    Rich r = counters_report({throughput(14.2, 91.3, 91.3), throughput(88.6, 9.5, 7.8)}, std::nullopt, "");
    const auto lines = lines_of(r.plain);
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "#1 k  grid 1, block 1");
    EXPECT_EQ(lines[1], "memory-bound: DRAM at 91% of peak, SM at 14%");
    EXPECT_NE(r.plain.find("\n#2 k  grid 1, block 1\ncompute-bound: SM at 89% of peak"), std::string::npos) << r.plain;
    EXPECT_NE(r.html.find("memory-bound: DRAM at 91% of peak"), std::string::npos);
}

TEST(CountersReport, SpeedOfLightShowsPercentBarsDramBandwidthAndFlopRate) {
    CounterLaunch l = throughput(51.2, 91.3, 90.0);
    l.duration_ns = 1e6;         // 1 ms
    l.dram_bytes_read = 4.8e9;   // 4800 GB/s
    l.dram_bytes_write = 1.2e9;  // 1200 GB/s
    l.flops_fp32 = 6.7e10;       // 67.0 TFLOP/s
    l.achieved_occupancy_pct = 78.125;
    l.theoretical_occupancy_pct = 100;
    l.l2_hit_rate_pct = 33.4;
    Rich r = counters_report({l}, std::nullopt, "");
    EXPECT_NE(r.plain.find("SM throughput          [#####.....]  51.2%"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("Theoretical occupancy  [##########] 100.0%"), std::string::npos);
    EXPECT_NE(r.plain.find("Achieved occupancy     [########..]  78.1%"), std::string::npos);
    EXPECT_NE(r.plain.find("Duration               1.00 ms"), std::string::npos);
    EXPECT_NE(r.plain.find("DRAM read              4.80 GB"), std::string::npos);
    EXPECT_NE(r.plain.find("4800 GB/s"), std::string::npos);
    EXPECT_NE(r.plain.find("1200 GB/s"), std::string::npos);
    EXPECT_NE(r.plain.find("FP32 operations        67.0 GFLOP"), std::string::npos);
    EXPECT_NE(r.plain.find("67.0 TFLOP/s"), std::string::npos);
    EXPECT_NE(r.plain.find("Arithmetic intensity   11.2 FLOP/byte"), std::string::npos);  // 6.7e10 / 6e9
    EXPECT_EQ(r.plain.find("L1 hit rate"), std::string::npos);                            // not collected, not shown
    EXPECT_NE(r.html.find("<span class=\"xcuda-pct-fill\" style=\"width:51.2%\"></span></span>51.2%"),
              std::string::npos);
}

TEST(CountersReport, PlainTextBarsPercentsAndRatesLineUp) {
    CounterLaunch l = throughput(5.0, 100.0, 47.5);
    l.duration_ns = 2e6;
    l.dram_bytes_read = 1e9;
    l.dram_bytes_write = 2.5e7;
    l.flops_fp16 = 1e12;
    l.flops_fp64 = 3e6;
    const auto lines = lines_of(counters_report({l}, std::nullopt, "").plain);
    std::size_t bars = 0, rates = 0, bar_at = std::string::npos, end_at = 0, rate_end = 0;
    for (const auto& line : lines) {
        if (line.find("] ") != std::string::npos && line.find('[') != std::string::npos) {
            if (bars++ == 0) {
                bar_at = line.find('[');
                end_at = line.find('%');
            }
            EXPECT_EQ(line.find('['), bar_at) << line;
            EXPECT_EQ(line.find('%'), end_at) << line;
        }
        if ((line.find("/s") != std::string::npos && line.find("DRAM") != std::string::npos) ||
            line.find("FLOP/s") != std::string::npos) {
            if (rates++ == 0) rate_end = line.size();
            EXPECT_EQ(line.size(), rate_end) << line;  // right-aligned rates end together
        }
    }
    EXPECT_EQ(bars, 3u);
    EXPECT_EQ(rates, 4u);  // read, written, FP16, FP64
}

TEST(CountersReport, AllMetricsTableListsEveryMetricAsCollected) {
    CounterLaunch l = throughput(10, 10, 10);
    l.metrics = {{"dram__bytes_read.sum", 4.2e9, "byte"},
                 {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 14.25, "%"},
                 {"smsp__inst_executed.sum", 12, "inst"}};
    Rich r = counters_report({l}, std::nullopt, "");
    EXPECT_NE(r.plain.find("All metrics (3)"), std::string::npos);
    EXPECT_NE(r.plain.find("dram__bytes_read.sum                              4,200,000,000  byte"), std::string::npos)
        << r.plain;
    EXPECT_NE(r.plain.find("sm__throughput.avg.pct_of_peak_sustained_elapsed          14.25  %"), std::string::npos);
    EXPECT_NE(r.plain.find("smsp__inst_executed.sum                                      12  inst"), std::string::npos);
}

TEST(CountersReport, EscapesEveryUserString) {
    CounterLaunch l = throughput(10, 10, 10);
    l.kernel = "<script>alert(1)</script>";
    l.flops_fp32 = 1e9;
    l.dram_bytes_read = 1e8;
    l.duration_ns = 1e5;
    l.metrics = {{"<img src=x onerror=alert(1)>", 1, "<u>"}};
    Roofline roofs{"<script>dev</script>", 4.8e12, {{"<i>FP32</i>", 6.7e13}}};
    Rich r = counters_report({l}, roofs, "<script>note</script>");
    ASSERT_FALSE(r.svg.empty());
    for (const std::string* out : {&r.html, &r.svg}) {
        EXPECT_EQ(out->find("<script"), std::string::npos);
        EXPECT_EQ(out->find("<img"), std::string::npos);
        EXPECT_EQ(out->find("<u>"), std::string::npos);
        EXPECT_EQ(out->find("<i>"), std::string::npos);
    }
    EXPECT_NE(r.html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(r.html.find("&lt;script&gt;note&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(r.html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
    EXPECT_NE(r.svg.find("&lt;script&gt;dev&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(r.svg.find("&lt;i&gt;FP32&lt;/i&gt;"), std::string::npos);
    EXPECT_NE(r.plain.find("<script>alert(1)</script>"), std::string::npos);  // plain text stays verbatim
}

TEST(CountersReport, NoteIsAParagraphOnTop) {
    Rich r = counters_report({throughput(10, 10, 10)}, std::nullopt, "counters not allowed: ERR_NVGPUCTRPERM");
    EXPECT_TRUE(starts_with(r.plain, "counters not allowed: ERR_NVGPUCTRPERM\n"));
    EXPECT_NE(r.html.find("<p class=\"xcuda-line xcuda-warn\">counters not allowed: ERR_NVGPUCTRPERM</p>"),
              std::string::npos);
}

TEST(CountersReport, NoLaunchesIsOneLineAndNoChart) {
    Rich r = counters_report({}, Roofline{"NVIDIA H200", 4.8e12, {{"FP32", 6.7e13}}}, "");
    EXPECT_EQ(r.plain, "No kernel launches were profiled, so there are no counters to show.\n");
    EXPECT_TRUE(r.svg.empty());
    Rich noted = counters_report({}, std::nullopt, "counters not allowed");
    EXPECT_EQ(noted.plain,
              "counters not allowed\nNo kernel launches were profiled, so there are no counters to show.\n");
}

TEST(CountersReport, LaunchWithoutSpeedOfLightCountersSaysSo) {
    CounterLaunch l;
    l.kernel = "k";
    Rich r = counters_report({l}, std::nullopt, "");
    EXPECT_NE(r.plain.find("bound unknown: SM and memory throughput not collected"), std::string::npos);
    EXPECT_NE(r.plain.find("No speed-of-light counters were collected for this launch."), std::string::npos);
}

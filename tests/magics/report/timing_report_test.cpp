#include <gtest/gtest.h>

#include <stdexcept>

#include "xcuda/report/timing_report.hpp"

using namespace xcuda::report;

TEST(SummarizeTiming, ComputesMedianMinMaxMeanAndSampleStdev) {
    TimingSummary s = summarize_timing({3e-6, 1e-6, 2e-6, 4e-6, 5e-6}, 100);
    EXPECT_EQ(s.repeats, 5);
    EXPECT_EQ(s.number, 100);
    EXPECT_DOUBLE_EQ(s.median, 3e-6);
    EXPECT_DOUBLE_EQ(s.min, 1e-6);
    EXPECT_DOUBLE_EQ(s.max, 5e-6);
    EXPECT_DOUBLE_EQ(s.mean, 3e-6);
    EXPECT_NEAR(s.stdev, 1.5811388e-6, 1e-12);  // sqrt(10/4) µs
}

TEST(SummarizeTiming, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
    EXPECT_DOUBLE_EQ(summarize_timing({1.0, 4.0, 2.0, 3.0}, 1).median, 2.5);
}

TEST(SummarizeTiming, OneRunHasZeroStdev) { EXPECT_DOUBLE_EQ(summarize_timing({7e-3}, 1).stdev, 0.0); }

TEST(SummarizeTiming, RejectsNoRunsAndNonPositiveNumber) {
    EXPECT_THROW(summarize_timing({}, 1), std::invalid_argument);
    EXPECT_THROW(summarize_timing({1.0}, 0), std::invalid_argument);
}

TEST(TimeitLine, ReadsLikeIPythonTimeit) {
    TimingSummary s;
    s.repeats = 7;
    s.number = 1000;
    s.median = 12.3e-6;
    s.stdev = 0.4e-6;
    EXPECT_EQ(timeit_line(s), "12.3 µs ± 0.4 µs per launch (median of 7 runs, 1000 launches each; CUDA events)");
    s.repeats = 1;
    s.number = 1;
    EXPECT_EQ(timeit_line(s, "loop"), "12.3 µs ± 0.4 µs per loop (median of 1 run, 1 loop each; CUDA events)");
    s.emulated = true;  // the CPU device: its time, not a GPU's
    EXPECT_EQ(timeit_line(s, "loop"),
              "12.3 µs ± 0.4 µs per loop (median of 1 run, 1 loop each; device time (emulated) on the CPU device)");
}

TEST(TimingReport, HtmlEscapesTheStatementAndHasAStatsTable) {
    TimingSummary s = summarize_timing({1e-3, 2e-3, 3e-3}, 10);
    Rich r = timing_report(s, "k[1, 32](x) if a < b else None");
    EXPECT_EQ(r.plain, timeit_line(s) + "\n");
    EXPECT_NE(r.html.find("a &lt; b"), std::string::npos);
    EXPECT_EQ(r.html.find("a < b"), std::string::npos);
    EXPECT_NE(r.html.find("<th class=\"xcuda-num\">median</th>"), std::string::npos);
    EXPECT_NE(r.html.find("2.00 ms"), std::string::npos);
    EXPECT_TRUE(r.svg.empty());
}

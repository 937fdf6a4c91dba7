#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "xcuda/report/source_lines_report.hpp"

using namespace xcuda::report;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The first line of a report, the first line of the table and so on, by their leading text.
std::string line_starting(const std::string& text, const std::string& prefix) {
    for (const auto& line : lines_of(text))
        if (line.compare(0, prefix.size(), prefix) == 0) return line;
    return {};
}

std::vector<std::string> numbered_cell(int count) {
    std::vector<std::string> out;
    for (int i = 1; i <= count; ++i) out.push_back("statement_" + std::to_string(i) + "();");
    return out;
}

SourceSamples block_sum() {
    SourceSamples s;
    s.kernel = "block_sum";
    s.cell_lines = {"__global__ void block_sum(const float* x, float* out, int n) {",
                    "    partial[threadIdx.x] = i < n ? x[i] : 0.0f;", "    __syncthreads();", "}"};
    s.lines = {{3, 2000, {{"barrier", 2000}}},
               {2,
                5061,
                {{"smsp__pcsamp_warps_issue_stalled_long_scoreboard", 3138},
                 {"smsp__pcsamp_warps_issue_stalled_wait", 1012},
                 {"smsp__pcsamp_warps_issue_stalled_selected", 455},
                 {"smsp__pcsamp_warps_issue_stalled_barrier", 100}}}};
    s.total_samples = 12345;
    s.unattributed_samples = 5284;
    return s;
}

}  // namespace

TEST(StallReasonName, StripsCuptisPrefixAndSpellsOutNotIssued) {
    EXPECT_EQ(stall_reason_name("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
    EXPECT_EQ(stall_reason_name("smsp__pcsamp_warps_issue_stalled_lg_throttle_not_issued"), "lg_throttle (not issued)");
    EXPECT_EQ(stall_reason_name("wait"), "wait");
    EXPECT_EQ(stall_reason_name("smsp__pcsamp_sample_count"), "smsp__pcsamp_sample_count");
}

TEST(SourceLinesReport, SummaryNamesTheHottestLineItsShareAndItsTopStall) {
    Rich r = source_lines_report({block_sum()});
    EXPECT_EQ(lines_of(r.plain).at(0), "block_sum: 12,345 samples; hottest line 2 (41%): long_scoreboard");
    EXPECT_NE(r.html.find("12,345 samples; hottest line 2 (41%): long_scoreboard"), std::string::npos);
}

TEST(SourceLinesReport, SharesArePercentOfAllSamplesAndStallsOfTheLinesSamples) {
    Rich r = source_lines_report({block_sum()});
    // 5061 / 12345 = 41.0%; 3138 / 5061 = 62%, 1012 / 5061 = 20%, 455 / 5061 = 9%; barrier (2%) is fourth.
    const std::string line2 = line_starting(r.plain, "   2");
    EXPECT_NE(line2.find("5,061  41.0%"), std::string::npos) << line2;
    EXPECT_NE(line2.find("long_scoreboard 62%, wait 20%, selected 9%"), std::string::npos) << line2;
    EXPECT_EQ(line2.find("barrier"), std::string::npos);
    EXPECT_NE(line_starting(r.plain, "   3").find("2,000  16.2%"), std::string::npos);
    EXPECT_NE(line_starting(r.plain, "   3").find("barrier 100%"), std::string::npos);
}

TEST(SourceLinesReport, SaysTheShareNoLineOfTheCellAccountsFor) {
    Rich r = source_lines_report({block_sum()});
    // 12345 - 5061 - 2000 = 5284 = 42.8%.
    EXPECT_NE(r.plain.find("5,284 samples (42.8%) are not on a line of this cell "
                           "(5,284 with no line information or in headers)."),
              std::string::npos)
        << r.plain;
}

TEST(SourceLinesReport, SumsEntriesOfTheSameLineAndCountsLinesOutsideTheCellAsElsewhere) {
    SourceSamples s;
    s.kernel = "k";
    s.cell_lines = {"a();", "b();"};
    s.lines = {{1, 30, {{"smsp__pcsamp_warps_issue_stalled_wait", 30}}}, {1, 10, {{"wait", 10}}}, {9, 60, {}}};
    s.total_samples = 100;
    Rich r = source_lines_report({s});
    EXPECT_NE(line_starting(r.plain, "   1").find("40  40.0%  a();    wait 100%"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("60 samples (60.0%) are not on a line of this cell."), std::string::npos) << r.plain;
}

TEST(SourceLinesReport, ZeroSamplesSaysSoWithoutPercentages) {
    SourceSamples s;
    s.kernel = "tiny";
    s.cell_lines = {"tiny();"};
    Rich r = source_lines_report({s});
    EXPECT_EQ(r.plain, "tiny: no samples were collected (a kernel shorter than the sampling interval gets none).\n");
    EXPECT_EQ(r.html.find("nan"), std::string::npos);
    EXPECT_EQ(r.html.find("<table"), std::string::npos);
}

TEST(SourceLinesReport, SamplesOnNoLineOfTheCellHaveNoHottestLine) {
    SourceSamples s;
    s.kernel = "k";
    s.cell_lines = {"k();"};
    s.total_samples = 50;
    s.unattributed_samples = 50;
    Rich r = source_lines_report({s});
    EXPECT_EQ(lines_of(r.plain).at(0), "k: 50 samples; none on a line of this cell");
    EXPECT_NE(r.plain.find("50 samples (100.0%) are not on a line of this cell"), std::string::npos);
}

TEST(SourceLinesReport, ShortCellShowsEveryLine) {
    SourceSamples s;
    s.kernel = "k";
    s.cell_lines = numbered_cell(200);
    s.lines = {{100, 5, {}}};
    s.total_samples = 5;
    Rich r = source_lines_report({s});
    EXPECT_NE(line_starting(r.plain, "   1").find("statement_1();"), std::string::npos);
    EXPECT_NE(line_starting(r.plain, " 200").find("statement_200();"), std::string::npos);
    EXPECT_EQ(r.plain.find("..."), std::string::npos);
}

TEST(SourceLinesReport, CellOfMoreThan200LinesShowsOnlyLinesNearSamplesWithGaps) {
    SourceSamples s;
    s.kernel = "k";
    s.cell_lines = numbered_cell(250);
    s.lines = {{100, 5, {}}, {104, 5, {}}, {250, 5, {}}};
    s.total_samples = 15;
    std::vector<std::string> numbers;
    for (const auto& line : lines_of(source_lines_report({s}).plain)) {
        std::smatch m;
        if (std::regex_match(line, m, std::regex(R"(\s*([0-9]+|\.\.\.)(\s.*)?)"))) numbers.push_back(m[1]);
    }
    const std::vector<std::string> expected = {"...", "97",  "98",  "99",  "100", "101", "102", "103", "104",
                                               "105", "106", "107", "...", "247", "248", "249", "250"};
    EXPECT_EQ(numbers, expected);
}

TEST(SourceLinesReport, PlainTextColumnsLineUpAndTabsBecomeSpaces) {
    SourceSamples s;
    s.kernel = "k";
    s.cell_lines = {"void k() {", "\tx = 1;", "    y = 2;", "}"};
    s.lines = {{2, 12345, {{"wait", 12345}}}, {3, 7, {{"selected", 7}}}};
    s.total_samples = 12352;
    const auto lines = lines_of(source_lines_report({s}).plain);
    ASSERT_GE(lines.size(), 7u);
    const std::string header = lines[1];
    const std::size_t source_at = header.find("Source"), stalls_at = header.find("Top stalls");
    EXPECT_EQ(lines[3].substr(source_at), "void k() {");
    EXPECT_EQ(lines[4].substr(source_at, 10), "    x = 1;");
    EXPECT_EQ(lines[5].substr(source_at, 10), "    y = 2;");
    EXPECT_EQ(lines[4].substr(stalls_at), "wait 100%");
    EXPECT_EQ(lines[5].substr(stalls_at), "selected 100%");
    // Counts and shares are right-aligned: they end under the end of their header.
    const std::size_t samples_end = header.find("Samples") + 7, share_end = header.find("Share") + 5;
    EXPECT_EQ(lines[4].substr(samples_end - 6, 6), "12,345");
    EXPECT_EQ(lines[5].substr(samples_end - 2, 2), " 7");
    EXPECT_EQ(lines[4].substr(share_end - 5, 5), "99.9%");
    EXPECT_EQ(lines[5].substr(share_end - 5, 5), " 0.1%");
}

TEST(SourceLinesReport, HeatFollowsTheShare) {
    Rich r = source_lines_report({block_sum()});
    std::vector<double> opacity;
    std::regex re("class=\"xcuda-heat\" style=\"opacity:([0-9.]+)\"");
    for (auto it = std::sregex_iterator(r.html.begin(), r.html.end(), re); it != std::sregex_iterator(); ++it)
        opacity.push_back(std::stod((*it)[1]));
    ASSERT_EQ(opacity.size(), 2u);       // lines 2 and 3; lines 1 and 4 are plain
    EXPECT_DOUBLE_EQ(opacity[0], 0.55);  // line 2, the hottest
    EXPECT_NEAR(opacity[1], 0.08 + 0.47 * 2000.0 / 5061.0, 0.006);
    EXPECT_NE(r.html.find("style=\"width:41.0%\""), std::string::npos);
}

TEST(SourceLinesReport, EscapesKernelNamesSourceAndStallReasons) {
    SourceSamples s;
    s.kernel = "<script>alert(1)</script>";
    s.cell_lines = {"if (a < b && c > d) return; // <script>"};
    s.lines = {{1, 3, {{"<img src=x>", 3}}}};
    s.total_samples = 3;
    Rich r = source_lines_report({s});
    EXPECT_EQ(r.html.find("<script"), std::string::npos);
    EXPECT_EQ(r.html.find("<img"), std::string::npos);
    EXPECT_NE(r.html.find("if (a &lt; b &amp;&amp; c &gt; d) return; // &lt;script&gt;"), std::string::npos);
    EXPECT_NE(r.html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(r.plain.find("if (a < b && c > d) return; // <script>"), std::string::npos);
}

TEST(SourceLinesReport, NoKernelsIsOneLine) {
    EXPECT_EQ(source_lines_report({}).plain, "No kernels were sampled, so there is no source to attribute time to.\n");
}

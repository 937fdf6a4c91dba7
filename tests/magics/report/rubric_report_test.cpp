#include <xcuda/report/access_map.hpp>
#include <xcuda/report/rubric_report.hpp>

#include <gtest/gtest.h>

using namespace xcuda::report;

namespace {

Rubric failing_rubric() {
    Rubric r;
    r.exercise = "affine";
    r.kernel = "affine";
    r.device = "the CPU device";
    r.verdict = "not yet: 1 of 2 tests fail";
    r.score = 1;
    r.max_score = 5;
    r.tests = {{"n = 100 (smaller than a block of 256)", "1 x 256", true, "all 100 output elements right", "", ""},
               {"n = 1000 (not a multiple of the block, 256)", "4 x 256", false,
                "y[256] is 0, expected 769 (744 of 1000 elements wrong)",
                "elements 256 and up are 0: 256 is your block size: does the index use blockIdx?", ""}};
    RubricGate loads;
    loads.name = "global loads per element";
    loads.measured = "1.00";
    loads.limit = "<= 1";
    loads.judged = false;
    r.gates = {loads};
    ThreadStory story;
    story.title = "thread (0,0,0) of block (1,0,0) did (test n = 1000)";
    story.lines = {{3, "    int i = threadIdx.x;", 1, {}},
                   {4, "    if (i < n) y[i] = 3.0f * x[i] + 1.0f;", 1, {"x[0] = 2 read", "y[0] = 7 written"}}};
    r.stories = {story};
    r.notes = {"Gates are judged once every test passes."};
    return r;
}

}  // namespace

TEST(RubricReport, SaysTheVerdictAndScoreThenEachTestWithItsFirstWrongElementAndHint) {
    const Rich r = rubric_report(failing_rubric());
    EXPECT_EQ(r.plain.rfind("Exercise `affine` (kernel `affine`) on the CPU device: not yet: 1 of 2 tests fail. "
                            "Score 1/5.\n",
                            0),
              0u)
        << r.plain;
    EXPECT_NE(r.plain.find("y[256] is 0, expected 769"), std::string::npos);
    EXPECT_NE(r.plain.find("does the index use blockIdx?"), std::string::npos);
    EXPECT_NE(r.plain.find("FAIL"), std::string::npos);
    EXPECT_NE(r.plain.find("not judged"), std::string::npos);
    EXPECT_NE(r.html.find("<table class=\"xcuda-table\">"), std::string::npos);
    EXPECT_NE(r.html.find("Gates are judged once every test passes."), std::string::npos);
}

TEST(RubricReport, TellsWhatTheThreadDidLineByLineWithTheMemoryItTouched) {
    const Rich r = rubric_report(failing_rubric());
    EXPECT_NE(r.plain.find("What thread (0,0,0) of block (1,0,0) did (test n = 1000)"), std::string::npos) << r.plain;
    EXPECT_NE(r.plain.find("x[0] = 2 read; y[0] = 7 written"), std::string::npos) << r.plain;
    EXPECT_NE(r.html.find("x[0] = 2 read; y[0] = 7 written"), std::string::npos);
}

TEST(RubricReport, FindingsShowTheirLineAndAreEscapedInHtml) {
    Rubric r = failing_rubric();
    r.findings = {{4, "if (i <= n) y[i] = a<b;", "n = 100", "KernelCheckError: out-of-bounds read <x>", "guard it"}};
    const Rich rich = rubric_report(r);
    EXPECT_NE(rich.plain.find("line 4: `if (i <= n) y[i] = a<b;`"), std::string::npos) << rich.plain;
    EXPECT_NE(rich.html.find("a&lt;b"), std::string::npos);
    EXPECT_EQ(rich.html.find("<x>"), std::string::npos);
}

TEST(RubricReport, AColumnForTheGpuOnlyWhenATestRanThere) {
    Rubric r = failing_rubric();
    EXPECT_EQ(rubric_report(r).plain.find("On the GPU"), std::string::npos);
    r.tests[0].gpu = "pass";
    EXPECT_NE(rubric_report(r).plain.find("On the GPU"), std::string::npos);
}

TEST(AccessMap, ColoursCellsByTheirWritersBlockAndMarksWrongAndFocusCells) {
    AccessMap m;
    m.title = "Which thread touched which element";
    m.threads_per_block = 4;
    m.focus = "thread (1,0,0) of block (1,0,0)";
    AccessMapArray y;
    y.name = "y";
    y.role = "written";
    y.writer = {0, 1, 2, 3, 4, 5, -1, -1};
    y.reads = {0, 0, 0, 0, 0, 0, 0, 0};
    y.wrong = {false, false, false, false, false, false, true, true};
    y.focus_written = {false, false, false, false, false, true, false, false};
    AccessMapArray x;
    x.name = "x";
    x.role = "read";
    x.writer = std::vector<std::int64_t>(8, -1);
    x.reads = {1, 1, 1, 1, 2, 1, 0, 0};
    m.arrays = {y, x};
    const std::string svg = access_map_svg(m);
    ASSERT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("y[5]: written by thread 1 of block 1"), std::string::npos);
    EXPECT_NE(svg.find("x[4], read 2 times"), std::string::npos);
    EXPECT_NE(svg.find("stroke:#c62828"), std::string::npos);  // the wrong cells
    EXPECT_NE(svg.find("Dashed outline: what thread (1,0,0) of block (1,0,0) read or wrote."), std::string::npos);
    EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
}

TEST(AccessMap, NothingToDrawIsEmpty) { EXPECT_TRUE(access_map_svg({}).empty()); }

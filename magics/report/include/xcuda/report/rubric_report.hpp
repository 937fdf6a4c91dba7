// An exercise's grade as a student sees it: each test size passed or not (with the first wrong
// element, what it should be and a hint), each gate with its measured value and its limit, the
// checks' findings at the cell's lines, what one thread did, and a score. The grader (xcuda's
// Python side) decides everything; this only lays it out, as text and as HTML.
#pragma once

#include <string>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct RubricTest {
    std::string name;    // "n = 1000 (not a multiple of the block)"
    std::string launch;  // "4 x 256"
    bool passed = false;
    std::string outcome;  // "all 1000 elements right" or "y[256] is 0, expected 769 (744 of 1000 wrong)"
    std::string hint;     // empty when no pattern was recognised
    std::string gpu;      // on a GPU: "passed", "y[3] is ..." (empty: not run on a GPU)
};

struct RubricGate {
    std::string name;      // "global loads per element"
    std::string measured;  // "2.00"
    std::string limit;     // "<= 1"
    bool passed = false;
    bool judged = true;  // false: not judged (the tests failed), shown greyed
    std::string note;    // "line 7: `s[threadIdx.x * 2]`" or a hint
};

struct RubricFinding {
    int line = 0;         // the cell's line (0: none)
    std::string source;   // that line's text
    std::string test;     // which test found it
    std::string message;  // the check's report, as the KernelCheckError says it
    std::string hint;
};

// One line of what a thread did: the cell line it executed (how many times in a row) and the
// memory it touched there ("x[261] = 87 read").
struct StoryLine {
    int line = 0;
    std::string source;
    int times = 1;
    std::vector<std::string> touched;
};

struct ThreadStory {
    std::string title;  // "thread (5,0,0) of block (1,0,0) (global index 261) wrote y[261] = 0; it should be 769"
    std::vector<StoryLine> lines;
    std::string note;  // "... 120 more steps" or why nothing is shown
};

struct Rubric {
    std::string exercise;  // its name
    std::string title;     // one line saying what the kernel should do
    std::string kernel;    // the student's kernel name
    std::string device;    // where the tests ran: "the CPU device" or "GPU 0 (NVIDIA H100) and the CPU device"
    std::string verdict;   // "not solved yet: ...", "2 of 4 tests fail", "solved: every test and gate passes"
    bool solved = false;
    double score = 0, max_score = 0;
    std::vector<RubricTest> tests;
    std::vector<RubricGate> gates;
    std::vector<RubricFinding> findings;
    std::vector<ThreadStory> stories;
    std::vector<std::string> notes;  // timing on a GPU (shown, not graded), what the gates measure, ...
    std::string picture_svg;         // access_map_svg(), when there is one
};

Rich rubric_report(const Rubric& rubric);

}  // namespace xcuda::report

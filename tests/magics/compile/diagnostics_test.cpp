#include "xcuda/compile/diagnostics.hpp"

#include "xcuda/rt/compiler.hpp"

#include <gtest/gtest.h>

using namespace xcuda::compile;

namespace {

// The log NVRTC 13 gives for `source` (compiled for sm_90 as "cell.cu"); "" when it compiles.
std::string real_log(const std::string& source, std::vector<xcuda::rt::Header> headers = {}) {
    xcuda::rt::CompileOptions o;
    o.program_name = "cell.cu";
    o.arch = "sm_90";
    o.headers = std::move(headers);
    try {
        return xcuda::rt::compile(source, o).log;
    } catch (const xcuda::rt::CompileError& e) {
        return e.log();
    }
}

}  // namespace

TEST(Diagnostics, ParsesACannedLogWithCaretColumns) {
    const char* log =
        "cell_7(3): error: identifier \"foo\" is undefined\n"
        "      y[i] = foo;\n"
        "             ^\n"
        "\n"
        "cell_7(5): warning #177-D: variable \"unused\" was declared but never referenced\n"
        "    int unused;\n"
        "        ^\n"
        "\n"
        "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n"
        "\n"
        "1 error detected in the compilation of \"cell_7.cu\".\n";
    auto ds = parse_nvrtc_log(log);
    ASSERT_EQ(ds.size(), 2u);
    EXPECT_EQ(ds[0].severity, Severity::error);
    EXPECT_EQ(ds[0].file, "cell_7");
    EXPECT_EQ(ds[0].line, 3);
    EXPECT_EQ(ds[0].column, 12);
    EXPECT_EQ(ds[0].message, "identifier \"foo\" is undefined");
    EXPECT_EQ(ds[0].source_line, "    y[i] = foo;");
    EXPECT_EQ(ds[1].severity, Severity::warning);
    EXPECT_EQ(ds[1].code, "177-D");
    EXPECT_EQ(ds[1].column, 7);
    EXPECT_EQ(format_diagnostic(ds[0]),
              "cell_7:3:12: error: identifier \"foo\" is undefined\n"
              "        y[i] = foo;\n"
              "               ^");
}

TEST(Diagnostics, RealUndefinedIdentifierPointsAtTheCellLineAndColumn) {
    const std::string cell =
        "extern \"C\" __global__ void k(float* y, int n) {\n"
        "    int i = threadIdx.x;\n"
        "    if (i < n) y[i] = foo;\n"
        "}\n";
    std::string log = real_log(cell);
    auto ds = parse_nvrtc_log(log, cell);
    ASSERT_FALSE(ds.empty()) << log;
    EXPECT_EQ(ds[0].file, "cell.cu");
    EXPECT_EQ(ds[0].line, 3);
    EXPECT_EQ(ds[0].column, 23) << log;
    EXPECT_EQ(ds[0].source_line, "    if (i < n) y[i] = foo;");
    EXPECT_EQ(cell.substr(cell.find("if (i") - 4 + 22, 3), "foo");
}

TEST(Diagnostics, RealErrorsThenWarningsWithTabsKeptForTheCaret) {
    const std::string cell =
        "__global__ void k(int* p) {\n"
        "\tint unused;\n"
        "\tp[0] = a;\n"
        "\tp[1] = b;\n"
        "}\n";
    auto ds = parse_nvrtc_log(real_log(cell), cell);
    ASSERT_EQ(ds.size(), 3u);
    // NVRTC lists the errors first, then the warnings
    EXPECT_EQ(ds[0].severity, Severity::error);
    EXPECT_EQ(ds[0].line, 3);
    EXPECT_EQ(ds[0].column, 9);  // after a tab
    EXPECT_EQ(ds[1].line, 4);
    EXPECT_EQ(ds[2].severity, Severity::warning);
    EXPECT_EQ(ds[2].line, 2);
    EXPECT_EQ(ds[2].column, 6);
    EXPECT_EQ(format_diagnostic(ds[0]),
              "cell.cu:3:9: error: identifier \"a\" is undefined\n    \tp[0] = a;\n    \t       ^");
}

TEST(Diagnostics, RealErrorInsideAHeaderNamesTheHeader) {
    const std::string cell = "#include \"util.cuh\"\n__global__ void k() {}\n";
    std::string log = real_log(cell, {{"util.cuh", "// util\n__device__ int f() { return missing; }\n"}});
    auto ds = parse_nvrtc_log(log, cell);
    ASSERT_FALSE(ds.empty()) << log;
    EXPECT_EQ(ds[0].file, "util.cuh");
    EXPECT_EQ(ds[0].line, 2);
}

TEST(Diagnostics, RealMissingIncludeIsACatastrophicError) {
    const std::string cell = "#include \"nope.h\"\n__global__ void k() {}\n";
    auto ds = parse_nvrtc_log(real_log(cell), cell);
    ASSERT_FALSE(ds.empty());
    EXPECT_EQ(ds[0].severity, Severity::error);
    EXPECT_EQ(ds[0].line, 1);
    EXPECT_NE(ds[0].message.find("nope.h"), std::string::npos) << ds[0].message;
}

TEST(Diagnostics, RealTemplateErrorKeepsTheInstantiationContext) {
    const std::string cell =
        "template <typename T> __global__ void k(T* p) { p[0] = T::nothing; }\n"
        "template __global__ void k<int>(int*);\n";
    auto ds = parse_nvrtc_log(real_log(cell), cell);
    ASSERT_FALSE(ds.empty());
    EXPECT_EQ(ds[0].line, 1);
    EXPECT_EQ(ds[0].column, 56);  // the T of T::nothing
    EXPECT_NE(ds[0].message.find("detected during instantiation of \"void k(T *) [with T=int]\" at line 2"),
              std::string::npos)
        << ds[0].message;
}

TEST(Diagnostics, RealNotesFollowTheirErrorAfterItsOperandTypesUnderTheCellsName) {
    const std::string cell =
        "extern \"C\" __global__ void k(float* y) {\n"
        "    int i = blockIdx.x;\n"
        "    unsigned j = i + threadIdx;\n"
        "    y[j] = 1;\n"
        "}\n";
    auto ds = parse_nvrtc_log(real_log(cell), cell);
    relabel(ds, "cell.cu", "cell_6");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].message, "no operator \"+\" matches these operands\n    operand types are: int + const uint3");
    EXPECT_EQ(ds[0].source_line, "    unsigned j = i + threadIdx;");
    EXPECT_EQ(ds[0].column, 20);  // the +
    ASSERT_EQ(ds[0].notes.size(), 3u);
    EXPECT_EQ(ds[0].notes[0].severity, Severity::note);
    EXPECT_EQ(ds[0].notes[0].file, "cell_6");
    // As nvcc prints it: the error, its operand types, the line, then the notes, one file name.
    const std::string shown = format_diagnostic(ds[0]);
    EXPECT_EQ(shown.substr(0, shown.find("\ncell_6:3:20: note")),
              "cell_6:3:20: error: no operator \"+\" matches these operands\n"
              "    operand types are: int + const uint3\n"
              "        unsigned j = i + threadIdx;\n"
              "                       ^");
    EXPECT_NE(shown.find("cell_6:3:20: note #3328-D: built-in operator+(<promoted arithmetic>, <promoted arithmetic>) "
                         "does not match because argument #2 does not match parameter"),
              std::string::npos)
        << shown;
    EXPECT_EQ(shown.find("cell.cu"), std::string::npos) << shown;
    EXPECT_EQ(shown.find("unsigned j", shown.find("note")), std::string::npos) << "a note repeats the line: " << shown;
}

TEST(Diagnostics, UserLogDropsPtxasAndSummaryNoise) {
    std::string log =
        "cell.cu(2): warning #177-D: variable \"u\" was declared but never referenced\n"
        "    int u;\n"
        "        ^\n\n"
        "Remark: The warnings can be suppressed with \"-diag-suppress <warning-number>\"\n\n"
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Used 8 registers, used 0 barriers\n";
    log.push_back('\0');
    EXPECT_EQ(user_log(log),
              "cell.cu(2): warning #177-D: variable \"u\" was declared but never referenced\n    int u;\n        ^");
}

TEST(Diagnostics, NeverThrowsOnTruncatedOrHostileLogs) {
    const std::string log =
        "cell(3): error: x\n    abc\n      ^\n(99999999999): error: y\nf(12): warning #: z\nf(1): remark\n   ^\n";
    for (std::size_t cut = 0; cut <= log.size(); ++cut) EXPECT_NO_THROW(parse_nvrtc_log(log.substr(0, cut), "a\nb"));
    auto ds = parse_nvrtc_log("cell(3): error: x\n  abc\n            ^\n", "");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_NO_THROW(format_diagnostic(ds[0]));
}

TEST(Diagnostics, CellCompileErrorReportsTheFirstCellErrorAndFormatsErrorsFirst) {
    std::vector<Diagnostic> ds = {
        {Severity::warning, "cell_3", 1, 5, "177-D", "variable \"u\" unused", "int u;", {}},
        {Severity::error, "util.cuh", 4, 2, "", "bad header", "x", {}},
        {Severity::error, "cell_3", 2, 9, "", "identifier \"a\" is undefined", "p[0] = a;", {}},
    };
    CellCompileError e("cell.cu", {"-arch=sm_90"}, "raw log", ds, "cell_3");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 9);
    EXPECT_EQ(e.log(), "raw log");
    std::string what = e.what();
    EXPECT_EQ(what.find("util.cuh:4:2: error"), 0u) << what;
    EXPECT_LT(what.find("cell_3:2:9: error"), what.find("cell_3:1:5: warning"));
    const xcuda::rt::CompileError& base = e;
    EXPECT_STREQ(base.what(), e.what());
}

TEST(Diagnostics, ALineNumberTooLongForAnIntIsNotADiagnostic) {
    // Found by fuzz_nvrtc_log: ten digits overflowed int (undefined behaviour).
    auto d = parse_nvrtc_log("cell.cu(9999999999): error: x\n", "");
    EXPECT_TRUE(d.empty());
    auto ok = parse_nvrtc_log("cell.cu(123456789): error: x\n", "");
    ASSERT_EQ(ok.size(), 1u);
    EXPECT_EQ(ok[0].line, 123456789);
}

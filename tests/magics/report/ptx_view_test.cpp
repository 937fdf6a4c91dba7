#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "xcuda/report/asm_highlight.hpp"
#include "xcuda/report/ptx_view.hpp"

using namespace xcuda::report;

namespace {

std::string read_data(const std::string& name) {
    std::ifstream in(std::string(XCUDA_REPORT_TEST_DATA) + "/" + name);
    EXPECT_TRUE(in) << "missing test data " << name;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::size_t find_line(const std::string& text, const std::string& line, std::size_t from = 0) {
    return text.find("\n" + line + "\n", from);
}

}  // namespace

TEST(PtxView, InterleavesCellLinesFromNvrtcLineInfo) {
    const std::string ptx = read_data("saxpy_block_sum.nvrtc_lineinfo_sm90.ptx");
    const std::string src = read_data("saxpy_block_sum.cu");
    Rich r = ptx_view(ptx, src, "cell.cu");
    // Line 6 computes the index; its instructions follow its header.
    std::size_t l6 = find_line(r.plain, "//> 6: int i = blockIdx.x * blockDim.x + threadIdx.x;");
    ASSERT_NE(l6, std::string::npos) << r.plain;
    std::size_t mov = r.plain.find("mov.u32", l6);
    std::size_t l7 = find_line(r.plain, "//> 7: if (i < n) {", l6);
    ASSERT_NE(l7, std::string::npos);
    EXPECT_LT(mov, l7);
    EXPECT_NE(r.plain.find("//> 19: if (t < s) tile[t] += tile[t + s];"), std::string::npos);
    // The directives it consumed are not repeated.
    EXPECT_EQ(r.plain.find(".loc\t"), std::string::npos);
    EXPECT_EQ(r.plain.find(".file\t"), std::string::npos);
    EXPECT_NE(r.html.find("<span class=\"xcuda-src\">8: y[i] = a * x[i] + twice(y[i]);</span>"), std::string::npos);
}

TEST(PtxView, CodeInlinedFromAHeaderCountsForTheCellLineThatCalledIt) {
    // nvcc's PTX: atomicAdd's body has ".loc 2 84 3, ..., inlined_at 1 22 5".
    const std::string ptx = read_data("saxpy_block_sum.nvcc_lineinfo_sm90.ptx");
    Rich r = ptx_view(ptx, read_data("saxpy_block_sum.cu"), "/elsewhere/cell.cu");
    std::size_t l22 = r.plain.rfind("//> 22: if (t == 0) atomicAdd(out, tile[0]);");
    ASSERT_NE(l22, std::string::npos) << r.plain;
    std::size_t atom = r.plain.find("atom.global.add.f32");
    EXPECT_LT(l22, atom);
    EXPECT_EQ(r.plain.find("//> 84"), std::string::npos);
    EXPECT_EQ(r.plain.find("$L__info_string1:"), std::string::npos);  // .debug_str is hidden
    EXPECT_NE(r.plain.find("lines of .debug sections"), std::string::npos);
}

TEST(PtxView, EmptyCellFileMeansTheMostReferencedFile) {
    Rich r = ptx_view(read_data("saxpy_block_sum.nvcc_lineinfo_sm90.ptx"), read_data("saxpy_block_sum.cu"), "");
    EXPECT_NE(r.plain.find("//> 6: "), std::string::npos);
}

TEST(PtxView, WithoutLineInfoShowsThePtxAndSaysHowToGetIt) {
    const std::string ptx = ".version 9.0\n.target sm_90\n.visible .entry k()\n{\n\tret;\n}\n";
    Rich r = ptx_view(ptx, "whatever", "cell.cu");
    EXPECT_EQ(r.plain.find(ptx), 0u);
    EXPECT_NE(r.plain.find("--lineinfo"), std::string::npos);
}

TEST(PtxView, EscapesSourceLinesInHtml) {
    const std::string ptx = ".file 1 \"cell.cu\"\n.loc 1 1 0\n\tret;\n";
    Rich r = ptx_view(ptx, "if (a<b && c>d) /* </pre><script> */", "cell.cu");
    EXPECT_EQ(r.html.find("<script>"), std::string::npos);
    EXPECT_NE(r.html.find("a&lt;b &amp;&amp; c&gt;d"), std::string::npos);
}

TEST(HighlightAsm, PtxTokensGetTheirClasses) {
    const std::string h = highlight_asm_line("\t@%p1 bra \t$L__BB0_2; // done", AsmDialect::ptx);
    EXPECT_NE(h.find("<span class=\"xcuda-asm-register\">@%p1</span>"), std::string::npos) << h;
    EXPECT_NE(h.find("<span class=\"xcuda-asm-opcode\">bra</span>"), std::string::npos) << h;
    EXPECT_NE(h.find("<span class=\"xcuda-asm-label\">$L__BB0_2</span>"), std::string::npos) << h;
    EXPECT_NE(h.find("<span class=\"xcuda-asm-comment\">// done</span>"), std::string::npos) << h;

    const std::string m = highlight_asm_line("\tld.global.f32 \t%f2, [%rd6+4];", AsmDialect::ptx);
    EXPECT_NE(m.find("<span class=\"xcuda-asm-opcode\">ld.global.f32</span>"), std::string::npos) << m;
    EXPECT_NE(m.find("<span class=\"xcuda-asm-register\">%rd6</span>"), std::string::npos) << m;
    EXPECT_NE(m.find("<span class=\"xcuda-asm-number\">4</span>"), std::string::npos) << m;

    const std::string d = highlight_asm_line("\t.reg .b32 \t%r<6>;", AsmDialect::ptx);
    EXPECT_NE(d.find("<span class=\"xcuda-asm-directive\">.reg</span>"), std::string::npos) << d;
    EXPECT_NE(d.find("&lt;"), std::string::npos) << d;  // %r<6> escaped

    const std::string l = highlight_asm_line("$L__BB0_2:", AsmDialect::ptx);
    EXPECT_EQ(l, "<span class=\"xcuda-asm-label\">$L__BB0_2:</span>");
    const std::string f = highlight_asm_line("\tmov.f32 \t%f9, 0f3F800000;", AsmDialect::ptx);
    EXPECT_NE(f.find("<span class=\"xcuda-asm-number\">0f3F800000</span>"), std::string::npos) << f;
}

TEST(PtxView, CellFileThatMatchesNoFileNameIsSaidAndThePtxShownAsIs) {
    const std::string ptx = read_data("saxpy_block_sum.nvrtc_lineinfo_sm90.ptx");
    Rich r = ptx_view(ptx, read_data("saxpy_block_sum.cu"), "other.cu");
    EXPECT_EQ(r.plain.find("//> "), std::string::npos);
    EXPECT_NE(r.plain.find("names no file matching \"other.cu\""), std::string::npos);
    EXPECT_NE(r.plain.find(".loc\t1 6 5"), std::string::npos);
}

TEST(PtxView, MalformedLineInfoNeverBreaksTheView) {
    const std::string src = "line one\nline two\n";
    for (const char* ptx :
         {".loc", ".loc 1", ".loc 1 99999999999999999999999 1\n\tret;", ".file 1 \"cell.cu\n.loc 1 2 0\n\tret;",
          ".file 1 \"cell.cu\"\n.loc 1 0 0\n\tret;", ".file 1 \"cell.cu\"\n.loc 1 7 0\n\tret;",
          ".file 1 \"cell.cu\"\n.section .debug_str\n{\n", "\r\n\r\n", ""}) {
        Rich r = ptx_view(ptx, src, "cell.cu");
        EXPECT_FALSE(r.html.empty()) << ptx;
    }
    Rich beyond = ptx_view(".file 1 \"cell.cu\"\n.loc 1 7 0\n\tret;", src, "cell.cu");
    EXPECT_NE(beyond.plain.find("//> 7: (line beyond the cell)"), std::string::npos) << beyond.plain;
}

TEST(PtxView, RandomAsmLikeTextIsEscapedAndNeverCrashes) {
    // Deterministic pseudo-random lines over the characters the highlighter branches on.
    const std::string alphabet = " \t.%@!$_:;{}[]<>&\"'/*-0123456789abfxRPUSZ\n\xc2\xb5";
    unsigned state = 12345;
    for (int round = 0; round < 2000; ++round) {
        std::string text;
        const int len = static_cast<int>(state % 80);
        for (int i = 0; i < len; ++i) {
            state = state * 1103515245u + 12345u;
            text += alphabet[(state >> 16) % alphabet.size()];
        }
        state = state * 1103515245u + 12345u;
        for (auto dialect : {AsmDialect::ptx, AsmDialect::sass})
            EXPECT_EQ(highlight_asm_line(text, dialect).find('<' + std::string("script")), std::string::npos);
        Rich r = ptx_view(".file 1 \"cell.cu\"\n.loc 1 1 0\n" + text, text, "cell.cu");
        // Only our own tags: every '<' in the HTML starts a span, pre, p, div, style or a closing tag.
        for (std::size_t p = r.html.find('<'); p != std::string::npos; p = r.html.find('<', p + 1)) {
            const std::string tag = r.html.substr(p + 1, 5);
            ASSERT_TRUE(tag.rfind("span", 0) == 0 || tag.rfind("/span", 0) == 0 || tag.rfind("pre", 0) == 0 ||
                        tag.rfind("/pre", 0) == 0 || tag.rfind("p ", 0) == 0 || tag.rfind("/p>", 0) == 0 ||
                        tag.rfind("div", 0) == 0 || tag.rfind("/div", 0) == 0 || tag.rfind("style", 0) == 0 ||
                        tag.rfind("/styl", 0) == 0)
                << "unexpected tag at " << p << " for input: " << text;
        }
    }
}

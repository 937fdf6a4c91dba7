#include <gtest/gtest.h>

#include <stdexcept>

#include "xcuda/report/html.hpp"

using namespace xcuda::report;

TEST(HtmlEscape, MakesScriptTagsAndQuotesInert) {
    EXPECT_EQ(html_escape("<script>alert('x' & \"y\")</script>"),
              "&lt;script&gt;alert(&#39;x&#39; &amp; &quot;y&quot;)&lt;/script&gt;");
}

TEST(HtmlEscape, LeavesPlainTextAndUtf8Alone) { EXPECT_EQ(html_escape("saxpy µs ×3"), "saxpy µs ×3"); }

TEST(Table, HtmlHasOneHeaderRowAndOneRowPerAddRowWithCellsPerColumn) {
    Table t({{"Kernel"}, {"Regs", Align::right}}, "caption");
    t.add_row({"a", "1"});
    t.add_row({"b", "22"});
    const std::string h = t.html();
    auto count = [&](const std::string& needle) {
        std::size_t n = 0;
        for (auto p = h.find(needle); p != std::string::npos; p = h.find(needle, p + 1)) ++n;
        return n;
    };
    EXPECT_EQ(count("<tr>"), 3u);
    EXPECT_EQ(count("<th>") + count("<th class="), 2u);
    EXPECT_EQ(count("<td"), 4u);
    EXPECT_EQ(count("<td class=\"xcuda-num\">"), 2u);  // the numeric column, right-aligned
    EXPECT_NE(h.find("<caption>caption</caption>"), std::string::npos);
    EXPECT_EQ(t.rows(), 2u);
    EXPECT_EQ(t.columns(), 2u);
}

TEST(Table, EscapesCellsAndHeaders) {
    Table t({{"<th>"}});
    t.add_row({"<script>"});
    EXPECT_EQ(t.html().find("<script>"), std::string::npos);
    EXPECT_NE(t.html().find("&lt;script&gt;"), std::string::npos);
    EXPECT_NE(t.html().find("&lt;th&gt;"), std::string::npos);
}

TEST(Table, RejectsRowWithWrongCellCount) {
    Table t({{"a"}, {"b"}});
    EXPECT_THROW(t.add_row({"only one"}), std::invalid_argument);
    EXPECT_THROW(t.add_row({"a", "b"}, {"<i>a</i>"}), std::invalid_argument);
}

TEST(Table, HtmlCellsReplaceTheEscapedTextOnlyInHtml) {
    Table t({{"Name"}, {"Bar"}});
    t.add_row({"<k>", "[##..]"}, {"", "<span class=\"b\"></span>"});
    EXPECT_NE(t.html().find("<td>&lt;k&gt;</td><td><span class=\"b\"></span></td>"), std::string::npos) << t.html();
    EXPECT_NE(t.plain().find("<k>   [##..]"), std::string::npos) << t.plain();
}

TEST(Table, PlainAlignsColumnsCountingUtf8CodePoints) {
    Table t({{"Name"}, {"Time", Align::right}});
    t.add_row({"k", "1.00 µs"});
    t.add_row({"longer", "12.0 ms"});
    EXPECT_EQ(t.plain(),
              "Name       Time\n"
              "---------------\n"
              "k       1.00 µs\n"
              "longer  12.0 ms\n");
}

TEST(ReportCss, UsesJupyterLabThemeVariablesWithFallbacks) {
    const std::string css(report_css());
    for (const char* var : {"var(--jp-content-font-color1,", "var(--jp-layout-color1,", "var(--jp-border-color2,",
                            "var(--jp-layout-color2,", "var(--jp-code-font-family,"})
        EXPECT_NE(css.find(var), std::string::npos) << var;
}

TEST(ReportCss, EveryRuleIsScopedUnderTheReportClass) {
    // A <style> in an output applies to the whole page: each selector must start with .xcuda-report.
    const std::string css(report_css());
    std::size_t pos = 0;
    while (pos < css.size()) {
        std::size_t open = css.find('{', pos);
        if (open == std::string::npos) break;
        std::string selectors = css.substr(pos, open - pos);
        std::size_t start = 0;
        while (start <= selectors.size()) {
            std::size_t comma = selectors.find(',', start);
            std::string sel = selectors.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            EXPECT_EQ(sel.rfind(".xcuda-report", 0), 0u) << "unscoped selector: " << sel;
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        pos = css.find('}', open) + 1;
    }
}

TEST(WrapReport, PutsStyleInsideTheWrapperDiv) {
    const std::string h = wrap_report("<p>x</p>");
    EXPECT_EQ(h.rfind("<div class=\"xcuda-report\"><style>", 0), 0u);
    EXPECT_NE(h.find("</style><p>x</p></div>"), std::string::npos);
}

TEST(PercentBar, PlainHasTenCellsAndAFixedWidthNumber) {
    EXPECT_EQ(percent_bar_plain(51.2), "[#####.....]  51.2%");
    EXPECT_EQ(percent_bar_plain(100.0), "[##########] 100.0%");
    EXPECT_EQ(percent_bar_plain(0.0), "[..........]   0.0%");
    EXPECT_EQ(percent_bar_plain(-3.0), "[..........]  -3.0%");  // the bar is clamped, the number is not
    EXPECT_EQ(percent_bar_plain(130.0), "[##########] 130.0%");
}

TEST(PercentBar, HtmlFillsTheClampedShare) {
    EXPECT_EQ(percent_bar_html(51.2),
              "<span class=\"xcuda-pct\"><span class=\"xcuda-pct-fill\" style=\"width:51.2%\"></span></span>51.2%");
    EXPECT_NE(percent_bar_html(130.0).find("width:100.0%"), std::string::npos);
}

TEST(OneLineReport, IsTheSentenceAsTextAndAsAnEscapedNote) {
    Rich r = one_line_report("nothing for <k>");
    EXPECT_EQ(r.plain, "nothing for <k>\n");
    EXPECT_NE(r.html.find("<p class=\"xcuda-line xcuda-note\">nothing for &lt;k&gt;</p>"), std::string::npos);
    EXPECT_TRUE(r.svg.empty());
    EXPECT_EQ(paragraph("a & b"), "<p class=\"xcuda-line\">a &amp; b</p>");
}

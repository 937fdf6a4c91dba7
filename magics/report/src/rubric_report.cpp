#include "xcuda/report/rubric_report.hpp"

#include <cmath>
#include <cstdio>

#include "source_listing.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

constexpr const char* kPassStyle = "color:var(--jp-success-color1,#1a7f37);font-weight:600";
constexpr const char* kFailStyle = "color:var(--jp-error-color1,#c62828);font-weight:600";
constexpr const char* kMutedStyle = "color:var(--jp-content-font-color2,#555)";

std::string styled(const std::string& text, const char* style) {
    return "<span style=\"" + std::string(style) + "\">" + html_escape(text) + "</span>";
}

// "7", "7.5": a score without trailing zeros.
std::string points(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, std::fabs(v - std::round(v)) < 1e-9 ? "%.0f" : "%.1f", v);
    return buf;
}

std::string verdict_line(const Rubric& r) {
    std::string line = "Exercise `" + r.exercise + "` (kernel `" + r.kernel + "`) on " + r.device + ": " + r.verdict;
    if (r.max_score > 0) line += ". Score " + points(r.score) + "/" + points(r.max_score);
    return line + ".";
}

detail::Section tests_section(const Rubric& r) {
    bool any_gpu = false, any_hint = false;
    for (const RubricTest& t : r.tests) any_gpu |= !t.gpu.empty(), any_hint |= !t.hint.empty();
    std::vector<Column> columns = {{"Test"}, {"Launch"}, {"Result"}, {"What the output shows"}};
    if (any_gpu) columns.push_back({"On the GPU"});
    if (any_hint) columns.push_back({"Hint"});
    Table table(columns, "Tests");
    for (const RubricTest& t : r.tests) {
        std::vector<std::string> text = {t.name, t.launch, t.passed ? "pass" : "FAIL", t.outcome};
        std::vector<std::string> html = {"", "", styled(text[2], t.passed ? kPassStyle : kFailStyle), ""};
        if (any_gpu) text.push_back(t.gpu), html.push_back("");
        if (any_hint) text.push_back(t.hint), html.push_back("");
        table.add_row(text, html);
    }
    return {table.plain(), table.html()};
}

detail::Section gates_section(const Rubric& r) {
    if (r.gates.empty()) return {};
    Table table({{"Gate"}, {"Measured", Align::right}, {"Limit"}, {"Result"}, {"Where, and what to try"}},
                "Gates (exact counts on the CPU device)");
    for (const RubricGate& g : r.gates) {
        const std::string result = !g.judged ? "not judged" : g.passed ? "pass" : "FAIL";
        const char* style = !g.judged ? kMutedStyle : g.passed ? kPassStyle : kFailStyle;
        table.add_row({g.name, g.measured, g.limit, result, g.note}, {"", "", "", styled(result, style), ""});
    }
    return {table.plain(), table.html()};
}

detail::Section findings_section(const Rubric& r) {
    detail::Section s;
    if (r.findings.empty()) return s;
    s.plain = "Findings of the checks (a GPU leaves these undefined: the CPU device stops the launch)\n";
    s.html =
        "<p class=\"xcuda-line\"><b>Findings of the checks</b> (a GPU leaves these undefined: the CPU device "
        "stops the launch)</p>";
    for (const RubricFinding& f : r.findings) {
        const std::string at = f.line > 0 ? "line " + std::to_string(f.line) + ": `" + f.source + "`" : "the kernel";
        s.plain += "  " + at + " (test " + f.test + ")\n    " + f.message + "\n";
        if (!f.hint.empty()) s.plain += "    hint: " + f.hint + "\n";
        s.html += "<p class=\"xcuda-line xcuda-error\">" + html_escape(at) + " <span style=\"" + kMutedStyle +
                  "\">(test " + html_escape(f.test) + ")</span></p><pre class=\"xcuda-asm\">" + html_escape(f.message) +
                  "</pre>";
        if (!f.hint.empty()) s.html += paragraph("Hint: " + f.hint);
    }
    return s;
}

detail::Section story_section(const ThreadStory& story) {
    Table table({{"Line", Align::right}, {"Times", Align::right}, {"Source"}, {"Memory it touched"}});
    for (const StoryLine& l : story.lines) {
        std::string touched;
        for (const std::string& t : l.touched) touched += (touched.empty() ? "" : "; ") + t;
        const std::string source = detail::expand_tabs(l.source);
        table.add_row(
            {l.line > 0 ? std::to_string(l.line) : "?", l.times > 1 ? std::to_string(l.times) : "", source, touched},
            {"", "", detail::plain_source_html(source), ""});
    }
    detail::Section s;
    s.plain = "What " + story.title + "\n" + table.plain() + (story.note.empty() ? "" : story.note + "\n");
    s.html = "<p class=\"xcuda-line\"><b>What " + html_escape(story.title) + "</b></p>" + table.html() +
             (story.note.empty() ? "" : paragraph(story.note, "xcuda-note"));
    return s;
}

}  // namespace

Rich rubric_report(const Rubric& r) {
    Rich out;
    const std::string verdict = verdict_line(r);
    out.plain = verdict + "\n";
    std::string body = "<p class=\"xcuda-line\" style=\"" + std::string(r.solved ? kPassStyle : kFailStyle) + "\">" +
                       html_escape(verdict) + "</p>";
    if (!r.title.empty()) {
        out.plain += r.title + "\n";
        body += paragraph(r.title, "xcuda-note");
    }
    std::vector<detail::Section> sections = {tests_section(r), gates_section(r), findings_section(r)};
    for (const ThreadStory& story : r.stories) sections.push_back(story_section(story));
    for (const detail::Section& s : sections) {
        if (s.plain.empty()) continue;
        out.plain += "\n" + s.plain;
        body += s.html;
    }
    if (!r.picture_svg.empty()) {
        out.plain += "\n(a picture of which thread read and wrote which element is in the HTML form of this report)\n";
        body += r.picture_svg;
    }
    for (const std::string& n : r.notes) {
        out.plain += n + "\n";
        body += paragraph(n, "xcuda-note");
    }
    out.html = wrap_report(body);
    return out;
}

}  // namespace xcuda::report

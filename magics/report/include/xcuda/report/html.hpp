// HTML building blocks shared by every report: escaping, a table that renders both as HTML
// and as an aligned plain-text twin, and the themed wrapper div.
//
// Styling uses JupyterLab's CSS variables (with light-theme fallbacks, for classic Notebook
// and nbconvert) so every report reads in light and dark themes. All classes start with
// `xcuda-` and every rule is scoped under `.xcuda-report`, because a <style> element inside
// an output applies to the whole page.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

// Escapes & < > " ' so any user string (kernel name, source line, path) is inert text,
// in element content and in attribute values alike.
std::string html_escape(std::string_view text);

enum class Align { left, right };

struct Column {
    std::string header;
    Align align = Align::left;  // right for numbers, so digits line up
};

class Table {
public:
    explicit Table(std::vector<Column> columns, std::string caption = {});

    // Cells are plain text (escaped on output). Throws std::invalid_argument when the
    // row does not have one cell per column.
    void add_row(std::vector<std::string> cells);
    // The same row where the HTML of some cells is richer than their text (a bar, a heat
    // background): html[i], when not empty, is put in the <td> as it is (the caller escapes
    // any user string in it) and cells[i] stays the plain-text twin. Throws like add_row
    // when either vector does not have one entry per column.
    void add_row(std::vector<std::string> cells, std::vector<std::string> html);

    std::size_t columns() const { return columns_.size(); }
    std::size_t rows() const { return rows_.size(); }

    // <table class="xcuda-table"> with <caption>, <thead>, <tbody>; numbers get
    // class="xcuda-num". Not wrapped: put it inside wrap_report().
    std::string html() const;
    // Columns padded to their widest cell (counted in UTF-8 code points), a rule under
    // the header, the caption on its own first line.
    std::string plain() const;

private:
    std::vector<Column> columns_;
    std::string caption_;
    std::vector<std::vector<std::string>> rows_;
    std::vector<std::vector<std::string>> html_rows_;  // per row: empty, or one entry per column
};

// A percentage (0..100) as a bar: "[#####.....]  51.2%" in plain text (ten cells, the number
// padded to six characters so a column of them lines up); in HTML a themed bar and then the
// number. The bar is clamped to 0..100, the number shown as it is.
std::string percent_bar_plain(double percent);
std::string percent_bar_html(double percent);

// <p class="xcuda-line KIND"> around the escaped text: kind empty for an ordinary line,
// "xcuda-note" for a muted one, "xcuda-warn" for a warning.
std::string paragraph(std::string_view text, std::string_view kind = {});

// A report that is one sentence (there is nothing to show, and why): the sentence as text
// and as a note, no svg.
Rich one_line_report(const std::string& sentence);

// <div class="xcuda-report"> + the shared scoped <style> + body (already HTML).
std::string wrap_report(std::string_view body_html);

// The shared stylesheet (also embedded by wrap_report); exposed for tests and samples.
std::string_view report_css();

// Number of UTF-8 code points, for aligning plain-text columns that hold "µs".
std::size_t display_width(std::string_view utf8);

}  // namespace xcuda::report

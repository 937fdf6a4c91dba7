#include "xcuda/report/html.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "xcuda/report/units.hpp"

namespace xcuda::report {

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::size_t display_width(std::string_view utf8) {
    // Continuation bytes (10xxxxxx) do not start a code point.
    return static_cast<std::size_t>(
        std::count_if(utf8.begin(), utf8.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

Table::Table(std::vector<Column> columns, std::string caption)
    : columns_(std::move(columns)), caption_(std::move(caption)) {}

namespace {

void check_width(std::size_t cells, std::size_t columns) {
    if (cells != columns) {
        throw std::invalid_argument("Table row has " + std::to_string(cells) + " cells but the table has " +
                                    std::to_string(columns) + " columns; pass one cell per column");
    }
}

}  // namespace

void Table::add_row(std::vector<std::string> cells) {
    check_width(cells.size(), columns_.size());
    rows_.push_back(std::move(cells));
    html_rows_.emplace_back();
}

void Table::add_row(std::vector<std::string> cells, std::vector<std::string> html) {
    check_width(cells.size(), columns_.size());
    check_width(html.size(), columns_.size());
    rows_.push_back(std::move(cells));
    html_rows_.push_back(std::move(html));
}

std::string Table::html() const {
    std::string out = "<table class=\"xcuda-table\">";
    if (!caption_.empty()) out += "<caption>" + html_escape(caption_) + "</caption>";
    out += "<thead><tr>";
    for (const auto& col : columns_) {
        out += col.align == Align::right ? "<th class=\"xcuda-num\">" : "<th>";
        out += html_escape(col.header) + "</th>";
    }
    out += "</tr></thead><tbody>";
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        const auto& row = rows_[r];
        const auto& markup = html_rows_[r];
        out += "<tr>";
        for (std::size_t i = 0; i < row.size(); ++i) {
            out += columns_[i].align == Align::right ? "<td class=\"xcuda-num\">" : "<td>";
            out += (markup.empty() || markup[i].empty() ? html_escape(row[i]) : markup[i]) + "</td>";
        }
        out += "</tr>";
    }
    out += "</tbody></table>";
    return out;
}

std::string Table::plain() const {
    std::vector<std::size_t> widths(columns_.size());
    for (std::size_t i = 0; i < columns_.size(); ++i) widths[i] = display_width(columns_[i].header);
    for (const auto& row : rows_)
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));

    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            std::string pad(widths[i] - display_width(cells[i]), ' ');
            if (i > 0) out += "  ";
            if (columns_[i].align == Align::right) {
                out += pad + cells[i];
            } else {
                out += cells[i];
                if (i + 1 < cells.size()) out += pad;  // no trailing blanks
            }
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();  // empty last cells leave no blanks
        return out + "\n";
    };

    std::string out;
    if (!caption_.empty()) out += caption_ + "\n";
    std::vector<std::string> headers;
    for (const auto& col : columns_) headers.push_back(col.header);
    out += line(headers);
    std::size_t total = widths.empty() ? 0 : 2 * (widths.size() - 1);
    for (auto w : widths) total += w;
    out += std::string(total, '-') + "\n";
    for (const auto& row : rows_) out += line(row);
    return out;
}

std::string percent_bar_plain(double percent) {
    constexpr int kCells = 10;
    const double clamped = std::isfinite(percent) ? std::clamp(percent, 0.0, 100.0) : 0.0;
    const int filled = static_cast<int>(std::lround(clamped / 100.0 * kCells));
    const std::string number = format_percent(percent / 100.0, 1);
    return "[" + std::string(filled, '#') + std::string(kCells - filled, '.') + "] " +
           std::string(number.size() < 6 ? 6 - number.size() : 0, ' ') + number;
}

std::string percent_bar_html(double percent) {
    const double clamped = std::isfinite(percent) ? std::clamp(percent, 0.0, 100.0) : 0.0;
    return "<span class=\"xcuda-pct\"><span class=\"xcuda-pct-fill\" style=\"width:" +
           format_percent(clamped / 100.0, 1) + "\"></span></span>" + format_percent(percent / 100.0, 1);
}

std::string_view report_css() {
    // Every colour is a JupyterLab theme variable with a light-theme fallback, so the same
    // markup follows the light and dark themes and still reads outside JupyterLab.
    static const std::string css =
        ".xcuda-report{font-family:var(--jp-ui-font-family,system-ui,sans-serif);"
        "font-size:var(--jp-ui-font-size1,13px);color:var(--jp-content-font-color1,#111);line-height:1.4}"
        ".xcuda-report .xcuda-table{border-collapse:collapse;margin:4px 0 8px 0;"
        "background:var(--jp-layout-color1,#fff);color:var(--jp-content-font-color1,#111)}"
        ".xcuda-report .xcuda-table caption{text-align:left;font-weight:600;padding:2px 0 4px 0;"
        "color:var(--jp-content-font-color1,#111)}"
        ".xcuda-report .xcuda-table th,.xcuda-report .xcuda-table td{border:1px solid var(--jp-border-color2,#ccc);"
        "padding:2px 8px;text-align:left;vertical-align:top}"
        ".xcuda-report .xcuda-table th{background:var(--jp-layout-color2,#eee);font-weight:600}"
        ".xcuda-report .xcuda-table .xcuda-num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
        ".xcuda-report .xcuda-line{margin:2px 0}"
        ".xcuda-report .xcuda-note{color:var(--jp-content-font-color2,#555)}"
        ".xcuda-report .xcuda-warn{color:var(--jp-warn-color0,#a05a00)}"
        ".xcuda-report .xcuda-error{color:var(--jp-error-color1,#c62828)}"
        ".xcuda-report code{font-family:var(--jp-code-font-family,monospace)}"
        ".xcuda-report .xcuda-chart{display:block;margin:6px 0}"
        ".xcuda-report .xcuda-pct{display:inline-block;width:80px;height:9px;margin-right:6px;vertical-align:middle;"
        "border-radius:2px;overflow:hidden;background:var(--jp-layout-color3,#ddd)}"
        ".xcuda-report .xcuda-pct-fill{display:block;height:100%;background:var(--jp-brand-color1,#1976d2)}"
        ".xcuda-report .xcuda-heat-cell{display:block;position:relative}"
        ".xcuda-report .xcuda-heat{position:absolute;top:0;left:0;right:0;bottom:0;"
        "background:var(--jp-warn-color0,#ef6c00)}"
        ".xcuda-report .xcuda-code{position:relative;font-family:var(--jp-code-font-family,monospace);white-space:pre}"
        ".xcuda-report pre.xcuda-asm{font-family:var(--jp-code-font-family,monospace);"
        "font-size:var(--jp-code-font-size,13px);line-height:1.35;margin:4px 0;padding:6px 8px;overflow:auto;"
        "max-height:40em;background:var(--jp-cell-editor-background,#f7f7f7);"
        "color:var(--jp-content-font-color1,#111);border:1px solid var(--jp-border-color2,#ccc)}"
        ".xcuda-report .xcuda-src{display:inline-block;width:100%;font-weight:600;"
        "background:var(--jp-layout-color2,#eee);color:var(--jp-content-font-color1,#111);"
        "border-left:3px solid var(--jp-brand-color1,#1976d2);padding-left:4px;margin-top:4px}"
        ".xcuda-report .xcuda-asm-comment{color:var(--jp-mirror-editor-comment-color,#408080);font-style:italic}"
        ".xcuda-report .xcuda-asm-directive{color:var(--jp-mirror-editor-keyword-color,#008000);font-weight:600}"
        ".xcuda-report .xcuda-asm-register{color:var(--jp-mirror-editor-variable-2-color,#05a)}"
        ".xcuda-report .xcuda-asm-opcode{color:var(--jp-mirror-editor-builtin-color,#7928a1);font-weight:600}"
        ".xcuda-report .xcuda-asm-number{color:var(--jp-mirror-editor-number-color,#080)}"
        ".xcuda-report .xcuda-asm-label{color:var(--jp-mirror-editor-def-color,#00f)}"
        ".xcuda-report .xcuda-asm-string{color:var(--jp-mirror-editor-string-color,#ba2121)}"
        ".xcuda-report .xcuda-asm-address{color:var(--jp-content-font-color3,#888)}";
    return css;
}

std::string paragraph(std::string_view text, std::string_view kind) {
    std::string out = "<p class=\"xcuda-line";
    if (!kind.empty()) out += " " + std::string(kind);
    return out + "\">" + html_escape(text) + "</p>";
}

Rich one_line_report(const std::string& sentence) {
    Rich r;
    r.plain = sentence + "\n";
    r.html = wrap_report(paragraph(sentence, "xcuda-note"));
    return r;
}

std::string wrap_report(std::string_view body_html) {
    std::string out = "<div class=\"xcuda-report\"><style>";
    out += report_css();
    out += "</style>";
    out += body_html;
    out += "</div>";
    return out;
}

}  // namespace xcuda::report

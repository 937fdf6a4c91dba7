#include "xcuda/compile/diagnostics.hpp"

#include <cctype>

namespace xcuda::compile {
namespace {

// NVRTC quotes the offending source line indented by this much.
constexpr std::size_t nvrtc_quote_indent = 2;

std::vector<std::string_view> split_lines(std::string_view s) {
    std::vector<std::string_view> lines;
    std::size_t b = 0;
    while (b <= s.size()) {
        std::size_t e = s.find('\n', b);
        if (e == std::string_view::npos) e = s.size();
        std::string_view l = s.substr(b, e - b);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        lines.push_back(l);
        if (e == s.size()) break;
        b = e + 1;
    }
    return lines;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool blank(std::string_view s) {
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    return true;
}

bool caret_line(std::string_view s, std::size_t& caret) {
    caret = s.find('^');
    if (caret == std::string_view::npos) return false;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != caret && s[i] != ' ' && s[i] != '\t') return false;
    return true;
}

// "file(12): error #20-D: message" -> true and the parts. NVRTC's own complaints about the
// options ("nvrtc: error: unrecognized option -x found") have file "nvrtc" and line 0.
bool header_line(std::string_view l, Diagnostic& d) {
    for (auto [prefix, sev] : {std::pair{std::string_view("nvrtc: error: "), Severity::error},
                               std::pair{std::string_view("nvrtc: warning: "), Severity::warning}}) {
        if (!starts_with(l, prefix)) continue;
        d = Diagnostic{};
        d.severity = sev;
        d.file = "nvrtc";
        d.message = std::string(l.substr(prefix.size()));
        return true;
    }
    std::size_t close = l.find("): ");
    if (close == std::string_view::npos) return false;
    std::size_t open = l.rfind('(', close);
    if (open == std::string_view::npos || open == 0 || open + 1 == close) return false;
    // At most 9 digits: any line number a cell can have, and no int overflow (found by fuzz_nvrtc_log).
    if (close - open - 1 > 9) return false;
    int line = 0;
    for (std::size_t i = open + 1; i < close; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(l[i]))) return false;
        line = line * 10 + (l[i] - '0');
    }
    std::string_view rest = l.substr(close + 3);
    struct {
        std::string_view word;
        Severity sev;
    } kinds[] = {
        {"catastrophic error", Severity::error}, {"internal error", Severity::error}, {"error", Severity::error},
        {"warning", Severity::warning},          {"remark", Severity::remark},        {"note", Severity::note}};
    for (const auto& k : kinds) {
        if (!starts_with(rest, k.word)) continue;
        std::string_view after = rest.substr(k.word.size());
        std::string code;
        if (starts_with(after, " #")) {
            std::size_t colon = after.find(':');
            if (colon == std::string_view::npos) return false;
            code = std::string(after.substr(2, colon - 2));
            after = after.substr(colon);
        }
        if (!starts_with(after, ": ") && after != ":") return false;
        d.severity = k.sev;
        d.file = std::string(l.substr(0, open));
        d.line = line;
        d.code = code;
        d.message = std::string(after.size() > 2 ? after.substr(2) : std::string_view{});
        d.column = 0;
        d.source_line.clear();
        return true;
    }
    return false;
}

const char* severity_word(Severity s) {
    switch (s) {
        case Severity::error: return "error";
        case Severity::warning: return "warning";
        case Severity::remark: return "remark";
        case Severity::note: return "note";
    }
    return "error";
}

}  // namespace

namespace {

// The lines after a diagnostic's first: more message, then the quoted source line and the caret
// line under it, then perhaps more ("detected during instantiation of ..."). The quote is the
// line just above the caret: message lines are indented too ("operand types are: ...").
void read_body(const std::vector<std::string_view>& body, const std::vector<std::string_view>& src_lines,
               Diagnostic& d) {
    std::size_t caret = 0, caret_at = body.size();
    for (std::size_t k = 1; k < body.size(); ++k) {
        if (caret_line(body[k], caret)) {
            caret_at = k;
            break;
        }
    }
    auto add_message = [&](std::string_view l) {
        const std::size_t start = l.find_first_not_of(" \t");
        if (start != std::string_view::npos) d.message += "\n    " + std::string(l.substr(start));
    };
    if (caret_at == body.size()) {
        for (std::string_view l : body) add_message(l);
        return;
    }
    for (std::size_t k = 0; k + 1 < caret_at; ++k) add_message(body[k]);
    const std::string_view quoted = body[caret_at - 1];
    std::size_t indent = nvrtc_quote_indent;
    std::string_view own = quoted.substr(std::min(quoted.size(), nvrtc_quote_indent));
    if (d.line >= 1 && std::size_t(d.line) <= src_lines.size()) {
        std::string_view s = src_lines[d.line - 1];
        if (quoted.size() >= s.size() && quoted.substr(quoted.size() - s.size()) == s) {
            indent = quoted.size() - s.size();
            own = s;
        }
    }
    d.source_line = std::string(own);
    d.column = caret >= indent ? int(caret - indent) + 1 : 1;
    for (std::size_t k = caret_at + 1; k < body.size(); ++k) add_message(body[k]);
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, std::string_view source) {
    std::vector<std::string_view> lines = split_lines(log);
    std::vector<std::string_view> src_lines;
    if (!source.empty()) src_lines = split_lines(source);
    std::vector<Diagnostic> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        Diagnostic d;
        if (!header_line(lines[i], d)) continue;
        std::vector<std::string_view> body;
        std::size_t j = i + 1;
        for (; j < lines.size() && !blank(lines[j]); ++j) {
            Diagnostic next;
            if (header_line(lines[j], next)) break;
            body.push_back(lines[j]);
        }
        read_body(body, src_lines, d);
        if (d.severity == Severity::note && !out.empty()) {
            out.back().notes.push_back(std::move(d));
        } else {
            out.push_back(std::move(d));
        }
        i = j - 1;
    }
    return out;
}

std::string format_diagnostic(const Diagnostic& d) {
    std::string s = d.file;
    if (d.line > 0) s += ":" + std::to_string(d.line);
    if (d.column > 0) s += ":" + std::to_string(d.column);
    s += std::string(": ") + severity_word(d.severity);
    if (!d.code.empty()) s += " #" + d.code;
    s += ": " + d.message;
    if (!d.source_line.empty()) {
        s += "\n    " + d.source_line;
        if (d.column > 0) {
            s += "\n    ";
            for (std::size_t i = 0; i + 1 < std::size_t(d.column); ++i)
                s += i < d.source_line.size() && d.source_line[i] == '\t' ? '\t' : ' ';
            s += '^';
        }
    }
    for (const auto& note : d.notes) {
        Diagnostic shown = note;
        if (shown.file == d.file && shown.line == d.line && shown.source_line == d.source_line) {
            shown.source_line.clear();  // the line is just above
        }
        s += "\n" + format_diagnostic(shown);
    }
    return s;
}

void relabel(std::vector<Diagnostic>& ds, const std::string& from, const std::string& to) {
    for (auto& d : ds) {
        if (d.file == from) d.file = to;
        relabel(d.notes, from, to);
    }
}

std::string format_diagnostics(const std::vector<Diagnostic>& ds) {
    std::string s;
    for (const auto& d : ds) s += (s.empty() ? "" : "\n") + format_diagnostic(d);
    return s;
}

std::string user_log(std::string_view log) {
    std::string out;
    for (std::string_view l : split_lines(log)) {
        if (starts_with(l, "ptxas") || starts_with(l, "Remark: The warnings can be suppressed") ||
            (l.find(" detected in the compilation of ") != std::string_view::npos &&
             std::isdigit(static_cast<unsigned char>(l.empty() ? 'x' : l[0]))))
            continue;
        if (l.find('\0') != std::string_view::npos) l = l.substr(0, l.find('\0'));
        out += std::string(l) + "\n";
    }
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
    // collapse runs of blank lines left by the removed ones
    std::string squeezed;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\n' && squeezed.size() >= 2 && squeezed[squeezed.size() - 1] == '\n' &&
            squeezed[squeezed.size() - 2] == '\n')
            continue;
        squeezed += out[i];
    }
    std::size_t first = squeezed.find_first_not_of('\n');
    return first == std::string::npos ? std::string() : squeezed.substr(first);
}

std::string compile_error_text(const std::vector<Diagnostic>& ds, const std::string& log) {
    std::vector<Diagnostic> ordered;
    for (const auto& d : ds)
        if (d.severity == Severity::error) ordered.push_back(d);
    if (ordered.empty()) {
        std::string shown = user_log(log);
        return "NVRTC rejected the cell" + (shown.empty() ? std::string(" without a message") : ":\n" + shown);
    }
    for (const auto& d : ds)
        if (d.severity != Severity::error) ordered.push_back(d);
    return format_diagnostics(ordered);
}

CellCompileError::CellCompileError(std::string program_name, std::vector<std::string> options, std::string log,
                                   std::vector<Diagnostic> diagnostics, const std::string& cell_label,
                                   std::string message)
    : rt::CompileError(std::move(program_name), std::move(options), log),
      diagnostics_(std::move(diagnostics)),
      message_(message.empty() ? compile_error_text(diagnostics_, log) : std::move(message)) {
    for (const auto& d : diagnostics_)
        if (d.severity == Severity::error && d.file == cell_label) {
            line_ = d.line;
            column_ = d.column;
            break;
        }
}

}  // namespace xcuda::compile

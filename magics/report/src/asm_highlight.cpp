#include "xcuda/report/asm_highlight.hpp"

#include <cctype>

#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

std::string span(const char* cls, std::string_view text) {
    return std::string("<span class=\"xcuda-asm-") + cls + "\">" + html_escape(text) + "</span>";
}

// SASS register names: R0..R255, RZ, P0..P6, PT, UR0.., URZ, UP0.., UPT, B0.., SR_*.
// A modifier such as ".reuse" may follow.
bool is_sass_register(std::string_view word) {
    std::string_view base = word.substr(0, word.find('.'));
    auto all_digits = [](std::string_view s) {
        if (s.empty()) return false;
        for (char c : s)
            if (!is_digit(c)) return false;
        return true;
    };
    if (base == "RZ" || base == "PT" || base == "URZ" || base == "UPT") return true;
    if (base.substr(0, 3) == "SR_") return true;
    for (std::string_view prefix : {"UR", "UP", "R", "P", "B"})
        if (base.substr(0, prefix.size()) == prefix && all_digits(base.substr(prefix.size()))) return true;
    return false;
}

// A hex address comment as cuobjdump/nvdisasm print before each instruction: /*0a80*/.
bool is_address_comment(std::string_view c) {
    if (c.size() < 5) return false;
    std::string_view inner = c.substr(2, c.size() - 4);
    if (inner.empty()) return false;
    for (char ch : inner)
        if (!is_hex(ch)) return false;
    return true;
}

}  // namespace

std::string highlight_asm_line(std::string_view line, AsmDialect dialect) {
    const bool ptx = dialect == AsmDialect::ptx;
    std::string out;
    // PTX: every statement starts with an opcode or a directive. SASS: only instruction
    // lines (after the /*addr*/ comment) have an opcode; the rest are headers.
    bool expect_opcode = ptx;
    std::size_t i = 0;
    const std::size_t n = line.size();
    while (i < n) {
        const char c = line[i];
        if (c == ' ' || c == '\t') {
            out += c;
            ++i;
        } else if (line.compare(i, 2, "//") == 0) {
            out += span("comment", line.substr(i));
            break;
        } else if (line.compare(i, 2, "/*") == 0) {
            std::size_t end = line.find("*/", i + 2);
            end = end == std::string_view::npos ? n : end + 2;
            std::string_view comment = line.substr(i, end - i);
            if (!ptx && is_address_comment(comment)) {
                out += span("address", comment);
                expect_opcode = true;
            } else {
                out += span("comment", comment);
            }
            i = end;
        } else if (c == '"') {
            std::size_t end = line.find('"', i + 1);
            end = end == std::string_view::npos ? n : end + 1;
            out += span("string", line.substr(i, end - i));
            i = end;
        } else if (c == '@') {
            // Predicate guard: @%p1, @!P0. The opcode follows it.
            std::size_t j = i + 1;
            if (j < n && line[j] == '!') ++j;
            if (j < n && line[j] == '%') ++j;
            while (j < n && (is_ident_char(line[j]) || line[j] == '.')) ++j;
            out += span("register", line.substr(i, j - i));
            i = j;
        } else if (c == '%' && i + 1 < n && is_ident_start(line[i + 1])) {
            std::size_t j = i + 1;
            while (j < n && (is_ident_char(line[j]) || line[j] == '.')) ++j;
            out += span("register", line.substr(i, j - i));
            i = j;
        } else if (c == '.' && i + 1 < n && is_ident_start(line[i + 1])) {
            std::size_t j = i + 1;
            while (j < n && (is_ident_char(line[j]) || line[j] == '.')) ++j;
            std::string_view word = line.substr(i, j - i);
            const bool label_def = j < n && line[j] == ':';
            if (label_def || word.substr(0, 3) == ".L_") {
                out += span("label", label_def ? line.substr(i, j + 1 - i) : word);
                if (label_def) ++j;
            } else {
                out += span("directive", word);
                expect_opcode = false;
            }
            i = j;
        } else if (is_digit(c) || (c == '-' && i + 1 < n && is_digit(line[i + 1]))) {
            std::size_t j = i + 1;
            while (j < n && (is_hex(line[j]) || line[j] == 'x' || line[j] == 'X' || line[j] == '.' || line[j] == 'f' ||
                             line[j] == 'F' || line[j] == 'd' || line[j] == 'D'))
                ++j;
            out += span("number", line.substr(i, j - i));
            i = j;
        } else if (is_ident_start(c)) {
            std::size_t j = i + 1;
            while (j < n && (is_ident_char(line[j]) || line[j] == '.')) ++j;
            std::string_view word = line.substr(i, j - i);
            if (j < n && line[j] == ':' && (j + 1 >= n || line[j + 1] != ':')) {
                out += span("label", line.substr(i, j + 1 - i));
                i = j + 1;
                expect_opcode = ptx;
                continue;
            }
            if (expect_opcode) {
                out += span("opcode", word);
                expect_opcode = false;
            } else if (!ptx && is_sass_register(word)) {
                out += span("register", word);
            } else if (word.substr(0, 2) == "$L") {
                out += span("label", word);
            } else {
                out += html_escape(word);
            }
            i = j;
        } else {
            out += html_escape(line.substr(i, 1));
            if (c == ';' || c == '{' || c == '}') expect_opcode = ptx;
            ++i;
        }
    }
    return out;
}

}  // namespace xcuda::report

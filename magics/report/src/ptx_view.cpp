#include "xcuda/report/ptx_view.hpp"

#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "xcuda/report/asm_highlight.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            if (start < text.size()) lines.push_back(text.substr(start));
            break;
        }
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Reads a non-negative integer at `pos` (after blanks); -1 when there is none or when it
// is too large to be a file index or line number (PTX is untrusted text here).
long read_int(std::string_view s, std::size_t& pos) {
    constexpr long kMax = 1L << 30;
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t')) ++pos;
    if (pos >= s.size() || !std::isdigit(static_cast<unsigned char>(s[pos]))) return -1;
    long v = 0;
    bool too_large = false;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        if (v > kMax)
            too_large = true;
        else
            v = v * 10 + (s[pos] - '0');
        ++pos;
    }
    return too_large ? -1 : v;
}

struct Loc {
    long file = -1, line = -1;
    long inlined_file = -1, inlined_line = -1;
};

// ".loc 1 8 9" or ".loc 1 2 5, function_name $L__info_string0, inlined_at 1 8 9"
bool parse_loc(std::string_view t, Loc& loc) {
    if (!starts_with(t, ".loc") || t.size() < 5 || !std::isspace(static_cast<unsigned char>(t[4]))) return false;
    std::size_t pos = 4;
    loc.file = read_int(t, pos);
    loc.line = read_int(t, pos);
    if (loc.file < 0 || loc.line < 0) return false;
    std::size_t at = t.find("inlined_at", pos);
    if (at != std::string_view::npos) {
        pos = at + 10;
        loc.inlined_file = read_int(t, pos);
        loc.inlined_line = read_int(t, pos);
    }
    return true;
}

// '.file 1 "/tmp/x/cell.cu"' or with ", timestamp, size" after the name.
bool parse_file(std::string_view t, long& index, std::string& name) {
    if (!starts_with(t, ".file") || t.size() < 6 || !std::isspace(static_cast<unsigned char>(t[5]))) return false;
    std::size_t pos = 5;
    index = read_int(t, pos);
    std::size_t q1 = t.find('"', pos);
    std::size_t q2 = q1 == std::string_view::npos ? q1 : t.find('"', q1 + 1);
    if (index < 0 || q2 == std::string_view::npos) return false;
    name = std::string(t.substr(q1 + 1, q2 - q1 - 1));
    return true;
}

bool names_match(const std::string& file, std::string_view cell_file) {
    if (file == cell_file) return true;
    std::size_t slash = file.find_last_of('/');
    std::string_view base =
        slash == std::string::npos ? std::string_view(file) : std::string_view(file).substr(slash + 1);
    std::size_t cslash = cell_file.find_last_of('/');
    std::string_view cbase = cslash == std::string_view::npos ? cell_file : cell_file.substr(cslash + 1);
    return base == cbase;
}

}  // namespace

Rich ptx_view(std::string_view ptx, std::string_view cell_source, std::string_view cell_file) {
    const auto lines = split_lines(ptx);
    const auto source = split_lines(cell_source);

    std::map<long, std::string> files;
    std::map<long, std::size_t> loc_count;
    for (auto line : lines) {
        std::string_view t = trim(line);
        long index;
        std::string name;
        Loc loc;
        if (parse_file(t, index, name))
            files[index] = name;
        else if (parse_loc(t, loc))
            ++loc_count[loc.file];
    }

    std::set<long> cell_ids;
    if (!cell_file.empty()) {
        for (const auto& [index, name] : files)
            if (names_match(name, cell_file)) cell_ids.insert(index);
    } else if (!loc_count.empty()) {
        long most = loc_count.begin()->first;
        for (const auto& [index, count] : loc_count)
            if (count > loc_count[most]) most = index;
        cell_ids.insert(most);
    }
    const bool interleave = !cell_ids.empty() && !loc_count.empty();

    Rich r;
    std::string html_body;
    std::string note;
    if (!interleave) {
        if (loc_count.empty())
            note =
                "This PTX has no line info, so it is shown without the cell's source; compile with --lineinfo to "
                "interleave them.";
        else
            note = "The PTX's line info names no file matching \"" + std::string(cell_file) +
                   "\", so it is shown without the cell's source.";
    }

    long shown = -1;    // cell line whose header precedes the current instructions
    long pending = -1;  // cell line announced by the latest .loc, shown before the next instruction
    bool in_debug_section = false;
    std::size_t hidden_debug = 0;
    std::string plain_asm, html_asm;

    for (auto line : lines) {
        std::string_view t = trim(line);
        if (interleave) {
            Loc loc;
            long index;
            std::string name;
            if (parse_loc(t, loc)) {
                if (cell_ids.count(loc.file))
                    pending = loc.line;
                else if (cell_ids.count(loc.inlined_file))
                    pending = loc.inlined_line;
                continue;  // the source line it names replaces it
            }
            if (parse_file(t, index, name)) continue;
            // DWARF strings NVRTC adds for inlined functions: bytes, not code.
            if (starts_with(t, ".section") && t.find(".debug") != std::string_view::npos) {
                in_debug_section = true;
                ++hidden_debug;
                continue;
            }
            if (in_debug_section) {
                ++hidden_debug;
                if (t == "}") in_debug_section = false;
                continue;
            }
            const bool is_code = !t.empty() && !starts_with(t, "//") && t != "{" && t != "}";
            if (is_code && pending > 0 && pending != shown) {
                std::string text = pending <= static_cast<long>(source.size())
                                       ? std::string(trim(source[static_cast<std::size_t>(pending - 1)]))
                                       : std::string("(line beyond the cell)");
                std::string header = std::to_string(pending) + ": " + text;
                plain_asm += "//> " + header + "\n";
                html_asm += "<span class=\"xcuda-src\">" + html_escape(header) + "</span>\n";
                shown = pending;
            }
        }
        plain_asm += std::string(line) + "\n";
        html_asm += highlight_asm_line(line, AsmDialect::ptx) + "\n";
    }
    if (hidden_debug > 0)
        note = std::to_string(hidden_debug) +
               " lines of .debug sections and the .loc/.file directives are hidden; "
               "lines starting with //> are the cell's source.";
    else if (interleave)
        note = "The .loc/.file directives are hidden; lines starting with //> are the cell's source.";

    r.plain = plain_asm;
    if (!note.empty()) r.plain += "// " + note + "\n";
    html_body = "<pre class=\"xcuda-asm\">" + html_asm + "</pre>";
    if (!note.empty()) html_body += "<p class=\"xcuda-line xcuda-note\">" + html_escape(note) + "</p>";
    r.html = wrap_report(html_body);
    return r;
}

}  // namespace xcuda::report

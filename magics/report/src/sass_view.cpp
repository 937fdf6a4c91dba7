#include "xcuda/report/sass_view.hpp"

#include "xcuda/report/asm_highlight.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report {

Rich sass_view(std::string_view sass) {
    Rich r;
    r.plain = std::string(sass);
    if (!r.plain.empty() && r.plain.back() != '\n') r.plain += '\n';
    std::string body = "<pre class=\"xcuda-asm\">";
    std::size_t start = 0;
    while (start < sass.size()) {
        std::size_t end = sass.find('\n', start);
        if (end == std::string_view::npos) end = sass.size();
        std::string_view line = sass.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        body += highlight_asm_line(line, AsmDialect::sass) + "\n";
        start = end + 1;
    }
    body += "</pre>";
    r.html = wrap_report(body);
    return r;
}

std::string tool_missing_message(std::string_view tool, const std::vector<std::string>& searched,
                                 std::string_view package, std::string_view purpose, std::string_view alternative) {
    std::string out = std::string(tool) + " not found";
    if (!searched.empty()) {
        out += " in ";
        for (std::size_t i = 0; i < searched.size(); ++i) out += (i ? " or " : "") + searched[i];
    }
    out += "; install the CUDA Toolkit's " + std::string(package) + " package";
    if (!purpose.empty()) out += " " + std::string(purpose);
    if (!alternative.empty()) out += "; " + std::string(alternative);
    return out + ".";
}

Rich tool_missing(std::string_view tool, const std::vector<std::string>& searched, std::string_view package,
                  std::string_view purpose, std::string_view alternative) {
    Rich r;
    const std::string msg = tool_missing_message(tool, searched, package, purpose, alternative);
    r.plain = msg + "\n";
    r.html = wrap_report("<p class=\"xcuda-line xcuda-warn\">" + html_escape(msg) + "</p>");
    return r;
}

}  // namespace xcuda::report

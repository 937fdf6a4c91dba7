#include "svg.hpp"

#include <cstdio>

#include "xcuda/report/bar_chart.hpp"
#include "xcuda/report/html.hpp"

namespace xcuda::report::svg {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

std::string open(int width, int height, const std::string& title) {
    const std::string w = std::to_string(width), h = std::to_string(height);
    std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"xcuda-chart\" role=\"img\" width=\"" + w +
                      "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " + h + "\">";
    out += "<title>" + html_escape(title) + "</title>";
    out += "<rect x=\"0\" y=\"0\" width=\"" + w + "\" height=\"" + h + "\" style=\"" + kBackground + "\"/>";
    out += "<text x=\"" + std::to_string(kMargin) + "\" y=\"16\" style=\"" + kText + ";" + kFont +
           ";font-weight:600\">" +
           html_escape(truncate_label(title, static_cast<std::size_t>(width / kCharWidth) - 2)) + "</text>";
    return out;
}

}  // namespace xcuda::report::svg

#include "launch/cpp_literal.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

std::string trimmed(std::string_view text) {
    std::size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    std::string s(text.substr(b, e - b));
    // a parenthesised literal, "(1.0f)"
    while (s.size() >= 2 && s.front() == '(' && s.back() == ')')
        s = trimmed(std::string_view(s).substr(1, s.size() - 2));
    return s;
}

py::object integer(const std::string& digits, int base, bool negative) {
    if (digits.empty()) return py::object();
    for (char c : digits) {
        const int d = std::isdigit(static_cast<unsigned char>(c))
                          ? c - '0'
                          : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
        if (!std::isalnum(static_cast<unsigned char>(c)) || d >= base) return py::object();
    }
    py::object v = py::reinterpret_steal<py::object>(PyLong_FromString(digits.c_str(), nullptr, base));
    if (!v) {
        PyErr_Clear();
        return py::object();
    }
    return negative ? py::reinterpret_steal<py::object>(PyNumber_Negative(v.ptr())) : v;
}

}  // namespace

py::object python_value_of_cpp_literal(std::string_view text) {
    std::string s = trimmed(text);
    if (s == "true") return py::bool_(true);
    if (s == "false") return py::bool_(false);
    if (s == "nullptr" || s == "NULL") return py::none();
    bool negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s = trimmed(std::string_view(s).substr(1));
    }
    if (s.size() == 3 && s[0] == '\'' && s[2] == '\'') return py::int_(negative ? -int(s[1]) : int(s[1]));
    std::string clean;
    for (char c : s)
        if (c != '\'') clean += c;  // digit separators
    if (clean.empty() || !(std::isdigit(static_cast<unsigned char>(clean[0])) || clean[0] == '.')) return py::object();
    const bool hex = clean.size() > 2 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'X');
    const bool is_float = !hex && clean.find_first_of(".eE") != std::string::npos;
    if (is_float) {
        while (!clean.empty() &&
               (clean.back() == 'f' || clean.back() == 'F' || clean.back() == 'l' || clean.back() == 'L'))
            clean.pop_back();
        char* end = nullptr;
        const double v = std::strtod(clean.c_str(), &end);
        if (end != clean.c_str() + clean.size()) return py::object();
        return py::float_(negative ? -v : v);
    }
    while (!clean.empty() && (clean.back() == 'u' || clean.back() == 'U' || clean.back() == 'l' || clean.back() == 'L'))
        clean.pop_back();
    if (hex) return integer(clean.substr(2), 16, negative);
    if (clean.size() > 2 && clean[0] == '0' && (clean[1] == 'b' || clean[1] == 'B'))
        return integer(clean.substr(2), 2, negative);
    if (clean.size() > 1 && clean[0] == '0') return integer(clean.substr(1), 8, negative);
    return integer(clean, 10, negative);
}

}  // namespace xcuda::magics

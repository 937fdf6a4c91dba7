#include "ipython/help_cells.hpp"

#include <cctype>
#include <sstream>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// The cell magics that also answer -h as line magics.
constexpr const char* cell_magics[] = {"cuda", "cuda_header", "cuda_profile"};

bool blank(const std::string& s) {
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    return true;
}

py::object* transformer = nullptr;  // the function registered, so it can be found again

py::list transform(const py::list& lines) {
    std::vector<std::string> text;
    for (py::handle l : lines) text.push_back(l.cast<std::string>());
    if (auto line = help_cell_as_line_magic(text)) {
        py::list out;
        out.append(*line);
        return out;
    }
    return lines;
}

}  // namespace

std::optional<std::string> help_cell_as_line_magic(const std::vector<std::string>& lines) {
    if (lines.empty() || lines[0].rfind("%%", 0) != 0) return std::nullopt;
    for (std::size_t i = 1; i < lines.size(); ++i)
        if (!blank(lines[i])) return std::nullopt;
    std::istringstream words(lines[0].substr(2));
    std::string name, word;
    words >> name;
    bool ours = false;
    for (const char* m : cell_magics) ours = ours || name == m;
    if (!ours) return std::nullopt;
    while (words >> word && word != "--") {
        if (word == "-h" || word == "--help") {
            std::string line = lines[0].substr(1);  // "%%cuda -h" -> "%cuda -h"
            while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
            return line + "\n";
        }
    }
    return std::nullopt;
}

void register_help_cells(py::object ip) {
    if (!transformer) transformer = new py::object(py::cpp_function(transform, py::arg("lines")));
    py::list cleanup = ip.attr("input_transformers_cleanup");
    if (!cleanup.contains(*transformer)) cleanup.append(*transformer);
}

void unregister_help_cells(py::object ip) {
    if (!transformer) return;
    py::list cleanup = ip.attr("input_transformers_cleanup");
    if (cleanup.contains(*transformer)) cleanup.attr("remove")(*transformer);
}

}  // namespace xcuda::magics

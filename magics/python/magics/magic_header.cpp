#include "magic_header.hpp"
#include "session.hpp"
#include "magic_support.hpp"

#include <stdexcept>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& spec() {
    static const compile::CommandSpec s =
        help_only_spec("%%cuda_header", "%%cuda_header NAME",
                       "Stores the cell as header NAME; later %%cuda cells use it with #include \"NAME\" "
                       "(changing it recompiles the cells that include it).",
                       compile::Positionals::words, "NAME");
    return s;
}

}  // namespace

void cuda_header_cell_magic(const std::string& line, const std::string& cell) {
    compile::ParsedArgs args = parse_magic_line(line, spec());
    if (args.has("--help")) {
        py::print(compile::format_help(spec()));
        return;
    }
    if (args.positionals.size() != 1) usage_error("%%cuda_header takes one header name, e.g. %%cuda_header vec.h");
    try {
        session().headers.set(args.positionals[0], cell);
    } catch (const std::invalid_argument& e) {
        usage_error(e.what());
    }
}

void cuda_header_line_magic(const std::string& line) {
    compile::ParsedArgs args = parse_magic_line(line, spec());
    if (!args.has("--help")) {
        usage_error(
            "%%cuda_header stores the cell below it as a header: start the cell with `%%cuda_header NAME` "
            "on its own line (%cuda_header -h says more)");
    }
    py::print(compile::format_help(spec()));
}

std::string cuda_header_help() { return compile::format_help(spec()); }

}  // namespace xcuda::magics

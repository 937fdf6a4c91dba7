#include "ipython/magic_header.hpp"
#include "ipython/magic_support.hpp"
#include "session/session.hpp"

#include <stdexcept>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const compile::CommandSpec& header_spec() {
    static const compile::CommandSpec s =
        help_only_spec("%%cuda_header", "%%cuda_header NAME",
                       "Stores the cell as header NAME; later %%cuda cells use it with #include \"NAME\" "
                       "(changing it recompiles the cells that include it).",
                       compile::Positionals::words, "NAME");
    return s;
}

}  // namespace

void cuda_header_cell_magic(const std::string& line, const std::string& cell) {
    const auto parsed = parse_magic_line(line, header_spec());
    if (!parsed) return;
    const compile::ParsedArgs& args = *parsed;
    if (args.positionals.size() != 1) usage_error("%%cuda_header takes one header name, e.g. %%cuda_header vec.h");
    try {
        session().headers.set(args.positionals[0], cell);
    } catch (const std::invalid_argument& e) {
        usage_error(e.what());
    }
}

void cuda_header_line_magic(const std::string& line) {
    cell_magic_on_a_line(line, header_spec(),
                         "%%cuda_header stores the cell below it as a header: start the cell with `%%cuda_header "
                         "NAME` on its own line (%cuda_header -h says more)");
}

std::string cuda_header_help() { return compile::format_help(header_spec()); }

}  // namespace xcuda::magics

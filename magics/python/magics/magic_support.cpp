#include "magic_support.hpp"
#include "errors.hpp"

namespace py = pybind11;

namespace xcuda::magics {

py::object ipython_shell() { return py::module_::import("IPython").attr("get_ipython")(); }

void usage_error(const std::string& message) {
    raise(py::module_::import("IPython.core.error").attr("UsageError"), message);
}

compile::ParsedArgs parse_magic_line(const std::string& line, const compile::CommandSpec& spec) {
    try {
        return compile::parse_args(line, spec);
    } catch (const compile::ParseError& e) {
        usage_error(e.what());
    }
}

compile::OptionSpec help_option() {
    compile::OptionSpec o;
    o.short_name = "-h";
    o.long_name = "--help";
    o.help = "show this help";
    return o;
}

compile::CommandSpec help_only_spec(const char* magic, const char* usage, const char* description,
                                    compile::Positionals positionals, const char* positional_name) {
    compile::CommandSpec c;
    c.magic = magic;
    c.usage = usage;
    c.description = description;
    c.options = {help_option()};
    c.positionals = positionals;
    c.positional_name = positional_name;
    return c;
}

}  // namespace xcuda::magics

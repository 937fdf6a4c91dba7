#include "magic_support.hpp"
#include "running_cell.hpp"
#include "errors.hpp"

namespace py = pybind11;

namespace xcuda::magics {

py::object ipython_shell() { return py::module_::import("IPython").attr("get_ipython")(); }

py::object compile_user_code(const std::string& source, const char* fallback) {
    py::object builtins = py::module_::import("builtins");
    std::string name = fallback;
    // Only where IPython runs already: importing it for xcuda.cuda_profile() in a script would cost 0.3 s.
    if (py::module_::import("sys").attr("modules").contains("IPython")) {
        py::object ip = ipython_shell();
        py::object number = running_cell_number();
        if (!ip.is_none()) {
            name =
                ip.attr("compile").attr("cache")(source, number.is_none() ? py::int_(0) : number).cast<std::string>();
        }
    }
    return builtins.attr("compile")(source, name, "exec");
}

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

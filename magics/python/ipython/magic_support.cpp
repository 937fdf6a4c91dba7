#include "ipython/magic_support.hpp"
#include "session/ipython_env.hpp"

namespace py = pybind11;

namespace xcuda::magics {

namespace {

// Where every magic's -h/--help ends: its help printed, nothing else done.
bool printed_help(bool asked, const std::string& help) {
    if (asked) py::print(help);
    return asked;
}

template <class Parse>
auto read_or_usage_error(Parse parse) {
    try {
        return parse();
    } catch (const compile::ParseError& e) {
        usage_error(e.what());
    }
}

}  // namespace

std::optional<compile::ParsedArgs> parse_magic_line(const std::string& line, const compile::CommandSpec& spec) {
    compile::ParsedArgs args = read_or_usage_error([&] { return compile::parse_args(line, spec); });
    if (printed_help(args.has("--help"), compile::format_help(spec))) return std::nullopt;
    return args;
}

std::optional<compile::CellOptions> parse_cuda_line(const std::string& line) {
    compile::CellOptions options = read_or_usage_error([&] { return compile::parse_cell_options(line); });
    if (printed_help(options.help, compile::cuda_help_text())) return std::nullopt;
    return options;
}

void cell_magic_on_a_line(const std::string& line, const compile::CommandSpec& spec, const char* how_to_use) {
    if (!parse_magic_line(line, spec)) return;
    usage_error(how_to_use);
}

void cuda_magic_on_a_line(const std::string& line, const char* how_to_use) {
    if (!parse_cuda_line(line)) return;
    usage_error(how_to_use);
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

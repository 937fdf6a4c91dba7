#pragma once
// What every magic needs: the running IPython shell, UsageError for bad magic lines, and the
// shared option parser.
#include <xcuda/compile/option_parser.hpp>

#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

pybind11::object ipython_shell();

// Parses `line` with `spec`; a bad line raises IPython's UsageError with the parser's message.
compile::ParsedArgs parse_magic_line(const std::string& line, const compile::CommandSpec& spec);

[[noreturn]] void usage_error(const std::string& message);

// A "-h/--help" option, for the specs of the smaller magics.
compile::OptionSpec help_option();

// The spec of a magic whose only option is -h/--help.
compile::CommandSpec help_only_spec(const char* magic, const char* usage, const char* description,
                                    compile::Positionals positionals = compile::Positionals::none,
                                    const char* positional_name = "");

}  // namespace xcuda::magics

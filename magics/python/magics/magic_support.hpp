#pragma once
// What every magic needs: the running IPython shell, UsageError for bad magic lines, and the
// shared option parser.
#include <xcuda/compile/option_parser.hpp>

#include <pybind11/pybind11.h>

#include <string>

namespace xcuda::magics {

pybind11::object ipython_shell();

// The user's Python of a magic (%%cuda_profile's cell, %cuda_timeit's statement) compiled as
// IPython compiles a cell: its text is kept where tracebacks look, so an error in it shows the
// line ("Cell In[7], line 2"), not a bare "<cuda_profile>:2". Without IPython, under `fallback`.
pybind11::object compile_user_code(const std::string& source, const char* fallback);

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

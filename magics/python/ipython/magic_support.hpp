#pragma once
// What every magic needs: the shared option parser, reading a magic line into UsageError where it
// is bad (and, through ipython_env.hpp, the running IPython shell).
#include "session/ipython_env.hpp"

#include <xcuda/compile/cell_options.hpp>
#include <xcuda/compile/option_parser.hpp>

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

namespace xcuda::magics {

// Parses `line` with `spec`: its options, or nullopt once the magic's help is printed for
// -h/--help (every magic's help goes through here). A bad line raises IPython's UsageError with
// the parser's message.
std::optional<compile::ParsedArgs> parse_magic_line(const std::string& line, const compile::CommandSpec& spec);

// The same for %%cuda's line, read with the option table (cell_options.hpp).
std::optional<compile::CellOptions> parse_cuda_line(const std::string& line);

// The line form of a cell magic (`%cuda_profile` where `%%cuda_profile` starts a cell): its help
// for -h/--help; anything else is UsageError `how_to_use`.
void cell_magic_on_a_line(const std::string& line, const compile::CommandSpec& spec, const char* how_to_use);
void cuda_magic_on_a_line(const std::string& line, const char* how_to_use);

// A "-h/--help" option, for the specs of the smaller magics.
compile::OptionSpec help_option();

// The spec of a magic whose only option is -h/--help.
compile::CommandSpec help_only_spec(const char* magic, const char* usage, const char* description,
                                    compile::Positionals positionals = compile::Positionals::none,
                                    const char* positional_name = "");

}  // namespace xcuda::magics

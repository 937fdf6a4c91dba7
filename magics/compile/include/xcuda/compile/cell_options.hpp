// The options of a `%%cuda` cell and of `xcuda.compile()`: one table (cuda.core's ProgramOptions
// is the model) from which the magic line's parser, the keywords, their checks, the pickled
// state and the help text are all derived, so an option is written down once.
#pragma once

#include "xcuda/compile/option_parser.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace xcuda::compile {

// Where NVRTC's automatic precompiled headers (`-- -pch`) go.
enum class PchMode {
    off,          // no -pch
    private_dir,  // -pch alone: the session's private directory (CompileSession)
    named_dir,    // --pch-dir=DIR given: where the cell says
};

struct CellOptions {
    std::string name;                       // -n/--name: bind the module under this name
    std::string arch;                       // --arch sm_XX; "" = the default arch
    std::string std = "c++17";              // --std
    std::vector<std::string> include_dirs;  // -I DIR (repeatable)
    std::vector<std::string> defines;       // -D NAME[=VALUE] (repeatable)
    std::vector<std::string> instantiate;   // --instantiate EXPR (repeatable), e.g. "axpy<float>"
    bool ptx = false;                       // --ptx: show the PTX
    bool sass = false;                      // --sass: show the SASS (needs nvdisasm/cuobjdump)
    bool resources = false;                 // --resources: show registers/spills/memory per kernel
    bool fast_math = false;                 // --fast-math (-use_fast_math)
    bool lineinfo = false;                  // --lineinfo (-lineinfo)
    std::string fast_compile;               // --fast-compile[=max|mid|min] (--Ofast-compile=LEVEL); "" = off
    bool no_cache = false;                  // --no-cache: bypass memory and disk cache
    bool help = false;                      // -h/--help: print cuda_help_text(), compile nothing
    bool quiet = false;                     // -q/--quiet: no line saying what was compiled and bound
    std::string exercise;                   // --exercise NAME: grade the cell's kernel (xcuda.grade)
    std::vector<std::string> nvrtc_extra;   // everything after `--`, passed to NVRTC as is (set_nvrtc_extra)

    // What the words after `--` ask of the session itself, not only of NVRTC; read from them
    // once, as they are set, so that nothing later reads them back out of the strings.
    bool relocatable = false;    // -dc, --device-c, -rdc=true, --relocatable-device-code=true: device-linked
    PchMode pch = PchMode::off;  // -pch/--pch, --pch-dir
    bool minimal = false;        // -minimal/--minimal: the cell asks for it, so the session never adds it

    // Sets nvrtc_extra and reads relocatable, pch and minimal from it. The magic line, the
    // `options` keyword and a pickled state all set it so (the table's `--` row).
    void set_nvrtc_extra(std::vector<std::string> words);
};

// The member of CellOptions a row sets; its type is the option's: a flag, one text, a list.
using CellOptionField =
    std::variant<bool CellOptions::*, std::string CellOptions::*, std::vector<std::string> CellOptions::*>;

// A keyword's value once the Python layer has read it: a flag's bool, a text, a list's items.
// An empty text stands for the option's default (how a pickled state writes "not given").
using OptionValue = std::variant<bool, std::string, std::vector<std::string>>;

// One option. The magic-line spelling, metavar, help, check and example are `spec`'s; the
// default is the member's in CellOptions{}; the row named `--` is the passthrough (the words
// after a bare `--`).
struct CellOption {
    OptionSpec spec;
    std::string keyword;      // xcuda.compile(keyword=...) and the key in a pickled state; "" = magic only
    std::string python_type;  // what the keyword takes, for messages and the docstring: "a str like 'sm_90'"
    CellOptionField field;

    bool is_flag() const { return std::holds_alternative<bool CellOptions::*>(field); }
    bool is_list() const { return std::holds_alternative<std::vector<std::string> CellOptions::*>(field); }
    // How the magic line writes it: "--name", "-I", "--" for the passthrough.
    const std::string& spelling() const { return spec.key(); }
    // The value `options` holds for this option.
    OptionValue get(const CellOptions& options) const;
    // Sets this option of `options` to `value` after the checks the magic line makes; throws
    // ParseError with the magic's message (a list checks each item). `value` must be of the
    // option's type (a bool for a flag, ...); std::invalid_argument otherwise.
    void set(CellOptions& options, const OptionValue& value) const;
};

// Every option of %%cuda / xcuda.compile(), in the order of the help text.
const std::vector<CellOption>& cell_option_table();

// The row of keyword `keyword`, or nullptr.
const CellOption* find_keyword(std::string_view keyword);

// Why `keyword` is no keyword of xcuda.compile(), listing those there are.
std::string unknown_keyword_message(std::string_view keyword);

// What xcuda.compile()'s docstring says of its keywords: one line per keyword.
std::string keyword_help();

// The option table of %%cuda as the magic-line parser takes it (also the source of its help text).
const CommandSpec& cuda_command_spec();

// Parses the text after `%%cuda` on the magic line. Throws ParseError.
CellOptions parse_cell_options(std::string_view line);

// What `%%cuda -h` prints.
std::string cuda_help_text();

// The NVRTC options these cell options mean (-std, -D, -I, -use_fast_math, -lineinfo,
// --Ofast-compile, then the `--` extras), in a fixed order so equal options always give equal cache keys. They
// are the cell's part of NVRTC's arguments (rt::CompileOptions::options); rt::nvrtc_arguments puts
// the whole list together.
std::vector<std::string> nvrtc_options(const CellOptions& options);

// Why NVRTC `major`.`minor` cannot honour `options` (--fast-compile needs 12.9's
// --Ofast-compile), naming the version and the fix; nullopt when it can.
std::optional<std::string> unsupported_by_nvrtc(const CellOptions& options, int major, int minor);

}  // namespace xcuda::compile

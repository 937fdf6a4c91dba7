// The options of a `%%cuda` cell: what the magic line says, typed.
#pragma once

#include "xcuda/compile/option_parser.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::compile {

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
    std::vector<std::string> nvrtc_extra;   // everything after `--`, passed to NVRTC as is
};

// The option table of %%cuda (also the source of its help text).
const CommandSpec& cuda_command_spec();

// Parses the text after `%%cuda` on the magic line. Throws ParseError.
CellOptions parse_cell_options(std::string_view line);

// What `%%cuda -h` prints.
std::string cuda_help_text();

// The NVRTC options these cell options mean (-std, -D, -I, -use_fast_math, -lineinfo,
// --Ofast-compile, then the `--` extras), in a fixed order so equal options always give equal cache keys. The arch
// and the toolkit include dirs are added by the compile pipeline (rt::CompileOptions).
std::vector<std::string> nvrtc_options(const CellOptions& options);

// Why `level` is no --fast-compile level (max, mid, min), naming it and the fix; nullopt when it is.
std::optional<std::string> fast_compile_level_problem(const std::string& level);

// Why NVRTC `major`.`minor` cannot honour `options` (--fast-compile needs 12.9's
// --Ofast-compile), naming the version and the fix; nullopt when it can.
std::optional<std::string> unsupported_by_nvrtc(const CellOptions& options, int major, int minor);

}  // namespace xcuda::compile

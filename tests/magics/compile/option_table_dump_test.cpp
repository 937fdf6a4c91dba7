// The %%cuda option table as text: every row's fields, its check's answers on sample values, what
// sample magic lines parse to, the help text and the keyword help. The expected text is the table
// as it was written down; a change to any of it must be made here too, on purpose. On a mismatch the
// whole dump is written under the test's temp directory (written_down.hpp).
#include "xcuda/compile/cell_options.hpp"

#include "written_down.hpp"

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

using namespace xcuda::compile;

namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string value_text(const OptionValue& v) {
    if (auto b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (auto s = std::get_if<std::string>(&v)) return quoted(*s);
    std::string out = "[";
    for (const auto& item : std::get<std::vector<std::string>>(v)) out += (out.size() > 1 ? ", " : "") + quoted(item);
    return out + "]";
}

const char* kind(const CellOption& row) { return row.is_flag() ? "flag" : row.is_list() ? "list" : "text"; }

// Values each check is asked about: valid and invalid ones for every checked option.
const std::vector<std::string> samples = {"sm_90", "sm_100f",     "compute_90", "sm90", "c++17", "N=4",
                                          "4N",    "axpy<float>", "mid",        "fast", ""};

std::string table_dump() {
    std::string out;
    for (const auto& row : cell_option_table()) {
        const OptionSpec& s = row.spec;
        out += row.spelling() + ": short=" + quoted(s.short_name) + " long=" + quoted(s.long_name) +
               " metavar=" + quoted(s.metavar) + " repeatable=" + (s.repeatable ? "yes" : "no") +
               " example=" + quoted(s.example) + " implicit=" + quoted(s.implicit_value) + " kind=" + kind(row) +
               " keyword=" + quoted(row.keyword) + " python_type=" + quoted(row.python_type) +
               " default=" + value_text(row.get(CellOptions{})) + "\n";
        out += "  help: " + s.help + "\n";
        if (!s.check) continue;
        for (const auto& v : samples) {
            auto problem = s.check(v);
            out += "  check " + quoted(v) + ": " + (problem ? *problem : std::string("ok")) + "\n";
        }
    }
    const CommandSpec& spec = cuda_command_spec();
    out += "magic=" + spec.magic + " usage=" + spec.usage + " passthrough=" + (spec.passthrough ? "yes" : "no") +
           " passthrough_help=" + spec.passthrough_help + " positional_name=" + quoted(spec.positional_name) +
           " options=" + std::to_string(spec.options.size()) + "\n";
    return out;
}

// Each sample line's options, as the table reads them back.
std::string parsed_dump() {
    const std::vector<std::string> lines = {
        "",
        "-n mod --arch sm_90 --std c++20 -I /inc -I/more -D N=4 -DM --instantiate 'axpy<float>' --ptx --sass "
        "--resources --fast-math --lineinfo --fast-compile=mid --no-cache -q --exercise affine -h -- -G -dc",
        "--ptx --fast-compile -- -pch --pch-dir=/mine -minimal",
        "--name=m --arch=compute_90 --std=c++14 --help -- --relocatable-device-code=true",
    };
    std::string out;
    for (const auto& line : lines) {
        out += "line " + quoted(line) + "\n";
        CellOptions o = parse_cell_options(line);
        for (const auto& row : cell_option_table())
            out += "  " + row.spelling() + " = " + value_text(row.get(o)) + "\n";
        std::string nvrtc;
        for (const auto& n : nvrtc_options(o)) nvrtc += " " + n;
        out += "  nvrtc:" + nvrtc + "\n";
    }
    return out;
}

}  // namespace

TEST(OptionTableDump, EveryRowAndItsChecksAreAsWrittenDown) {
    expect_as_written_down(
        "option_table", table_dump(),
        R"golden(--name: short="-n" long="--name" metavar="NAME" repeatable=no example="mymodule" implicit="" kind=text keyword="name" python_type="a str" default=""
  help: also bind the compiled module as NAME (variables: NAME.get_global('v'))
--arch: short="" long="--arch" metavar="sm_XX" repeatable=no example="sm_90" implicit="" kind=text keyword="arch" python_type="a str like 'sm_90'" default=""
  help: target architecture (default: the current GPU's, else sm_90)
  check "sm_90": ok
  check "sm_100f": ok
  check "compute_90": ok
  check "sm90": --arch sm90 is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "c++17": --arch c++17 is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "N=4": --arch N=4 is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "4N": --arch 4N is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "axpy<float>": --arch axpy<float> is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "mid": --arch mid is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "fast": --arch fast is not an architecture; write it like sm_90 (or compute_90 for PTX only)
  check "": --arch  is not an architecture; write it like sm_90 (or compute_90 for PTX only)
--std: short="" long="--std" metavar="STD" repeatable=no example="c++17" implicit="" kind=text keyword="std" python_type="a str like 'c++17'" default="c++17"
  help: C++ standard: c++11, c++14, c++17 (default), c++20
  check "sm_90": --std sm_90 is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "sm_100f": --std sm_100f is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "compute_90": --std compute_90 is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "sm90": --std sm90 is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "c++17": ok
  check "N=4": --std N=4 is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "4N": --std 4N is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "axpy<float>": --std axpy<float> is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "mid": --std mid is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "fast": --std fast is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
  check "": --std  is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20
-I: short="-I" long="" metavar="DIR" repeatable=yes example="/path/to/include" implicit="" kind=list keyword="include_dirs" python_type="a str or a list of str" default=[]
  help: add DIR to the include search path
-D: short="-D" long="" metavar="NAME[=VALUE]" repeatable=yes example="N=256" implicit="" kind=list keyword="defines" python_type="'NAME[=VALUE]', a list of them or a dict {NAME: VALUE or None}" default=[]
  help: define a macro
  check "sm_90": ok
  check "sm_100f": ok
  check "compute_90": ok
  check "sm90": ok
  check "c++17": -D c++17 does not define a macro; write -D NAME or -D NAME=VALUE
  check "N=4": ok
  check "4N": -D 4N does not define a macro; write -D NAME or -D NAME=VALUE
  check "axpy<float>": -D axpy<float> does not define a macro; write -D NAME or -D NAME=VALUE
  check "mid": ok
  check "fast": ok
  check "": -D  does not define a macro; write -D NAME or -D NAME=VALUE
--instantiate: short="" long="--instantiate" metavar="EXPR" repeatable=yes example="'axpy<float>'" implicit="" kind=list keyword="instantiate" python_type="a str or a list of str like 'axpy<float>'" default=[]
  help: instantiate a template kernel or variable, e.g. 'axpy<float>'
  check "sm_90": --instantiate sm_90 is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "sm_100f": --instantiate sm_100f is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "compute_90": --instantiate compute_90 is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "sm90": --instantiate sm90 is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "c++17": --instantiate c++17 is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "N=4": --instantiate N=4 is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "4N": --instantiate 4N is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "axpy<float>": ok
  check "mid": --instantiate mid is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "fast": --instantiate fast is not a template instantiation; write it like 'axpy<float>' (quoted)
  check "": --instantiate  is not a template instantiation; write it like 'axpy<float>' (quoted)
--ptx: short="" long="--ptx" metavar="" repeatable=no example="" implicit="" kind=flag keyword="" python_type="" default=false
  help: show the generated PTX
--sass: short="" long="--sass" metavar="" repeatable=no example="" implicit="" kind=flag keyword="" python_type="" default=false
  help: show the SASS (needs cuobjdump or nvdisasm)
--resources: short="" long="--resources" metavar="" repeatable=no example="" implicit="" kind=flag keyword="" python_type="" default=false
  help: show registers, spills, shared/local/constant memory per kernel
--fast-math: short="" long="--fast-math" metavar="" repeatable=no example="" implicit="" kind=flag keyword="fast_math" python_type="True or False" default=false
  help: compile with -use_fast_math
--lineinfo: short="" long="--lineinfo" metavar="" repeatable=no example="" implicit="" kind=flag keyword="lineinfo" python_type="True or False" default=false
  help: keep line information for profilers (-lineinfo)
--fast-compile: short="" long="--fast-compile" metavar="LEVEL" repeatable=no example="max" implicit="max" kind=text keyword="fast_compile" python_type="True (max), 'mid' or 'min'" default=""
  help: compile faster, run slower (NVRTC 12.9+ --Ofast-compile): max (default), mid or min
  check "sm_90": --fast-compile=sm_90 is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "sm_100f": --fast-compile=sm_100f is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "compute_90": --fast-compile=compute_90 is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "sm90": --fast-compile=sm90 is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "c++17": --fast-compile=c++17 is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "N=4": --fast-compile=N=4 is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "4N": --fast-compile=4N is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "axpy<float>": --fast-compile=axpy<float> is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "mid": ok
  check "fast": --fast-compile=fast is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
  check "": --fast-compile= is not a level; write --fast-compile (max), --fast-compile=mid or --fast-compile=min
--no-cache: short="" long="--no-cache" metavar="" repeatable=no example="" implicit="" kind=flag keyword="no_cache" python_type="True or False" default=false
  help: compile again, bypassing the memory and disk cache
--quiet: short="-q" long="--quiet" metavar="" repeatable=no example="" implicit="" kind=flag keyword="" python_type="" default=false
  help: print no line saying what was compiled and bound
--exercise: short="" long="--exercise" metavar="NAME" repeatable=no example="affine" implicit="" kind=text keyword="" python_type="" default=""
  help: grade the cell's kernel as exercise NAME (xcuda.exercise defines it) and show the rubric
--help: short="-h" long="--help" metavar="" repeatable=no example="" implicit="" kind=flag keyword="" python_type="" default=false
  help: show this help and compile nothing
--: short="" long="--" metavar="OPTIONS..." repeatable=yes example="-G" implicit="" kind=list keyword="options" python_type="a str or a list of str" default=[]
  help: pass the remaining words to NVRTC unchanged
magic=%%cuda usage=%%cuda [options] [-- NVRTC options] passthrough=yes passthrough_help=pass the remaining words to NVRTC unchanged positional_name="" options=16
)golden");
}

TEST(OptionTableDump, SampleLinesParseAsWrittenDown) {
    expect_as_written_down("parsed_lines", parsed_dump(), R"golden(line ""
  --name = ""
  --arch = ""
  --std = "c++17"
  -I = []
  -D = []
  --instantiate = []
  --ptx = false
  --sass = false
  --resources = false
  --fast-math = false
  --lineinfo = false
  --fast-compile = ""
  --no-cache = false
  --quiet = false
  --exercise = ""
  --help = false
  -- = []
  nvrtc: -std=c++17
line "-n mod --arch sm_90 --std c++20 -I /inc -I/more -D N=4 -DM --instantiate 'axpy<float>' --ptx --sass --resources --fast-math --lineinfo --fast-compile=mid --no-cache -q --exercise affine -h -- -G -dc"
  --name = "mod"
  --arch = "sm_90"
  --std = "c++20"
  -I = ["/inc", "/more"]
  -D = ["N=4", "M"]
  --instantiate = ["axpy<float>"]
  --ptx = true
  --sass = true
  --resources = true
  --fast-math = true
  --lineinfo = true
  --fast-compile = "mid"
  --no-cache = true
  --quiet = true
  --exercise = "affine"
  --help = true
  -- = ["-G", "-dc"]
  nvrtc: -std=c++20 -DN=4 -DM -I/inc -I/more -use_fast_math -lineinfo --Ofast-compile=mid -G -dc
line "--ptx --fast-compile -- -pch --pch-dir=/mine -minimal"
  --name = ""
  --arch = ""
  --std = "c++17"
  -I = []
  -D = []
  --instantiate = []
  --ptx = true
  --sass = false
  --resources = false
  --fast-math = false
  --lineinfo = true
  --fast-compile = "max"
  --no-cache = false
  --quiet = false
  --exercise = ""
  --help = false
  -- = ["-pch", "--pch-dir=/mine", "-minimal"]
  nvrtc: -std=c++17 -lineinfo --Ofast-compile=max -pch --pch-dir=/mine -minimal
line "--name=m --arch=compute_90 --std=c++14 --help -- --relocatable-device-code=true"
  --name = "m"
  --arch = "compute_90"
  --std = "c++14"
  -I = []
  -D = []
  --instantiate = []
  --ptx = false
  --sass = false
  --resources = false
  --fast-math = false
  --lineinfo = false
  --fast-compile = ""
  --no-cache = false
  --quiet = false
  --exercise = ""
  --help = true
  -- = ["--relocatable-device-code=true"]
  nvrtc: -std=c++14 --relocatable-device-code=true
)golden");
}

TEST(OptionTableDump, HelpTextsAreAsWrittenDown) {
    expect_as_written_down("cuda_help", cuda_help_text(), R"golden(Usage: %%cuda [options] [-- NVRTC options]

Compiles the cell's CUDA C++ with NVRTC and binds every __global__ function it defines
under its source name (templates through --instantiate, reachable as kernel["float"]).
After --, NVRTC's own options: `-- -pch` reuses precompiled headers across cells (a cell
including <cuda/std/cmath> recompiles in ~0.1 s instead of ~1 s; kept in a private
directory under the cache), `-- -dc` makes relocatable device code, linked with earlier
-dc cells and CUDA's device runtime.

Options:
  -n, --name NAME         also bind the compiled module as NAME (variables: NAME.get_global('v'))
  --arch sm_XX            target architecture (default: the current GPU's, else sm_90)
  --std STD               C++ standard: c++11, c++14, c++17 (default), c++20
  -I DIR                  add DIR to the include search path (repeatable)
  -D NAME[=VALUE]         define a macro (repeatable)
  --instantiate EXPR      instantiate a template kernel or variable, e.g. 'axpy<float>' (repeatable)
  --ptx                   show the generated PTX
  --sass                  show the SASS (needs cuobjdump or nvdisasm)
  --resources             show registers, spills, shared/local/constant memory per kernel
  --fast-math             compile with -use_fast_math
  --lineinfo              keep line information for profilers (-lineinfo)
  --fast-compile[=LEVEL]  compile faster, run slower (NVRTC 12.9+ --Ofast-compile): max (default), mid or min
  --no-cache              compile again, bypassing the memory and disk cache
  -q, --quiet             print no line saying what was compiled and bound
  --exercise NAME         grade the cell's kernel as exercise NAME (xcuda.exercise defines it) and show the rubric
  -h, --help              show this help and compile nothing
  -- OPTIONS...           pass the remaining words to NVRTC unchanged
)golden");
    expect_as_written_down(
        "keyword_help", keyword_help() + unknown_keyword_message("bogus") + "\n",
        R"golden(  name (%%cuda --name): also bind the compiled module as NAME (variables: NAME.get_global('v')); pass a str
  arch (%%cuda --arch): target architecture (default: the current GPU's, else sm_90); pass a str like 'sm_90'
  std (%%cuda --std): C++ standard: c++11, c++14, c++17 (default), c++20; pass a str like 'c++17'
  include_dirs (%%cuda -I): add DIR to the include search path; pass a str or a list of str
  defines (%%cuda -D): define a macro; pass 'NAME[=VALUE]', a list of them or a dict {NAME: VALUE or None}
  instantiate (%%cuda --instantiate): instantiate a template kernel or variable, e.g. 'axpy<float>'; pass a str or a list of str like 'axpy<float>'
  fast_math (%%cuda --fast-math): compile with -use_fast_math; pass True or False
  lineinfo (%%cuda --lineinfo): keep line information for profilers (-lineinfo); pass True or False
  fast_compile (%%cuda --fast-compile): compile faster, run slower (NVRTC 12.9+ --Ofast-compile): max (default), mid or min; pass True (max), 'mid' or 'min'
  no_cache (%%cuda --no-cache): compile again, bypassing the memory and disk cache; pass True or False
  options (%%cuda --): pass the remaining words to NVRTC unchanged; pass a str or a list of str
compile() got an unexpected option bogus; options: name, arch, std, include_dirs, defines, instantiate, fast_math, lineinfo, fast_compile, no_cache, options
)golden");
}

#include "xcuda/compile/cell_options.hpp"

#include <cctype>
#include <stdexcept>
#include <utility>

namespace xcuda::compile {
namespace {

std::optional<std::string> check_arch(const std::string& v) {
    auto digits = [](const std::string& s, std::size_t from) {
        if (from >= s.size()) return false;
        for (std::size_t i = from; i < s.size(); ++i) {
            char c = s[i];
            // sm_90a / sm_100f: an arch-specific suffix letter after the digits
            if (!std::isdigit(static_cast<unsigned char>(c)) &&
                !(i + 1 == s.size() && i > from && (c == 'a' || c == 'f')))
                return false;
        }
        return true;
    };
    if ((v.rfind("sm_", 0) == 0 && digits(v, 3)) || (v.rfind("compute_", 0) == 0 && digits(v, 8))) return std::nullopt;
    return "--arch " + v + " is not an architecture; write it like sm_90 (or compute_90 for PTX only)";
}

std::optional<std::string> check_std(const std::string& v) {
    static const char* known[] = {"c++03", "c++11", "c++14", "c++17", "c++20"};
    for (const char* k : known)
        if (v == k) return std::nullopt;
    return "--std " + v + " is not a C++ standard NVRTC knows; use one of c++11, c++14, c++17, c++20";
}

std::optional<std::string> check_define(const std::string& v) {
    std::string name = v.substr(0, v.find('='));
    bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
    for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (ok) return std::nullopt;
    return "-D " + v + " does not define a macro; write -D NAME or -D NAME=VALUE";
}

std::optional<std::string> check_instantiation(const std::string& v) {
    if (!v.empty() && v.find('<') != std::string::npos && v.back() == '>') return std::nullopt;
    return "--instantiate " + v + " is not a template instantiation; write it like 'axpy<float>' (quoted)";
}

std::optional<std::string> check_fast_compile_level(const std::string& v) {
    if (v == "max" || v == "mid" || v == "min") return std::nullopt;
    return "--fast-compile=" + v +
           " is not a level; write --fast-compile (max), --fast-compile=mid or "
           "--fast-compile=min";
}

// One row of the table, written by name (C++17 has no designated initialisers): the spellings
// and the member it sets, then only what the option has. Unset parts keep OptionSpec's and
// CellOption's defaults: no metavar (a flag), not repeatable, no check, no keyword (magic only).
class Row {
public:
    Row(std::string short_name, std::string long_name, CellOptionField field) {
        row_.spec.short_name = std::move(short_name);
        row_.spec.long_name = std::move(long_name);
        row_.field = field;
    }
    Row& metavar(std::string v) {
        row_.spec.metavar = std::move(v);
        return *this;
    }
    Row& help(std::string v) {
        row_.spec.help = std::move(v);
        return *this;
    }
    Row& repeatable() {
        row_.spec.repeatable = true;
        return *this;
    }
    Row& check(std::optional<std::string> (*f)(const std::string&)) {
        row_.spec.check = f;
        return *this;
    }
    Row& example(std::string v) {
        row_.spec.example = std::move(v);
        return *this;
    }
    Row& implicit_value(std::string v) {
        row_.spec.implicit_value = std::move(v);
        return *this;
    }
    Row& keyword(std::string name, std::string python_type) {
        row_.keyword = std::move(name);
        row_.python_type = std::move(python_type);
        return *this;
    }
    operator CellOption() const { return row_; }

private:
    CellOption row_;
};

template <typename... F>
struct overloaded : F... {
    using F::operator()...;
};
template <typename... F>
overloaded(F...) -> overloaded<F...>;

// What the parsed magic line says of `row`, as a keyword would say it.
OptionValue parsed_value(const CellOption& row, const ParsedArgs& a) {
    if (row.spelling() == "--") return a.passthrough;
    if (row.is_flag()) return a.has(row.spelling());
    if (row.is_list()) return a.all(row.spelling());
    return a.value(row.spelling());
}

}  // namespace

const std::vector<CellOption>& cell_option_table() {
    static const std::vector<CellOption> table = {
        Row("-n", "--name", &CellOptions::name)
            .metavar("NAME")
            .help("also bind the compiled module as NAME (variables: NAME.get_global('v'))")
            .example("mymodule")
            .keyword("name", "a str"),
        Row("", "--arch", &CellOptions::arch)
            .metavar("sm_XX")
            .help("target architecture (default: the current GPU's, else sm_90)")
            .check(check_arch)
            .example("sm_90")
            .keyword("arch", "a str like 'sm_90'"),
        Row("", "--std", &CellOptions::std)
            .metavar("STD")
            .help("C++ standard: c++11, c++14, c++17 (default), c++20")
            .check(check_std)
            .example("c++17")
            .keyword("std", "a str like 'c++17'"),
        Row("-I", "", &CellOptions::include_dirs)
            .metavar("DIR")
            .help("add DIR to the include search path")
            .repeatable()
            .example("/path/to/include")
            .keyword("include_dirs", "a str or a list of str"),
        Row("-D", "", &CellOptions::defines)
            .metavar("NAME[=VALUE]")
            .help("define a macro")
            .repeatable()
            .check(check_define)
            .example("N=256")
            .keyword("defines", "'NAME[=VALUE]', a list of them or a dict {NAME: VALUE or None}"),
        Row("", "--instantiate", &CellOptions::instantiate)
            .metavar("EXPR")
            .help("instantiate a template kernel or variable, e.g. 'axpy<float>'")
            .repeatable()
            .check(check_instantiation)
            .example("'axpy<float>'")
            .keyword("instantiate", "a str or a list of str like 'axpy<float>'"),
        Row("", "--ptx", &CellOptions::ptx).help("show the generated PTX"),
        Row("", "--sass", &CellOptions::sass).help("show the SASS (needs cuobjdump or nvdisasm)"),
        Row("", "--resources", &CellOptions::resources)
            .help("show registers, spills, shared/local/constant memory per kernel"),
        Row("", "--fast-math", &CellOptions::fast_math)
            .help("compile with -use_fast_math")
            .keyword("fast_math", "True or False"),
        Row("", "--lineinfo", &CellOptions::lineinfo)
            .help("keep line information for profilers (-lineinfo)")
            .keyword("lineinfo", "True or False"),
        Row("", "--fast-compile", &CellOptions::fast_compile)
            .metavar("LEVEL")
            .help("compile faster, run slower (NVRTC 12.9+ --Ofast-compile): max (default), mid or min")
            .check(check_fast_compile_level)
            .example("max")
            .implicit_value("max")
            .keyword("fast_compile", "True (max), 'mid' or 'min'"),
        Row("", "--no-cache", &CellOptions::no_cache)
            .help("compile again, bypassing the memory and disk cache")
            .keyword("no_cache", "True or False"),
        Row("-q", "--quiet", &CellOptions::quiet).help("print no line saying what was compiled and bound"),
        Row("", "--exercise", &CellOptions::exercise)
            .metavar("NAME")
            .help("grade the cell's kernel as exercise NAME (xcuda.exercise defines it) and show the rubric")
            .example("affine"),
        Row("-h", "--help", &CellOptions::help).help("show this help and compile nothing"),
        // The words after a bare `--`.
        Row("", "--", &CellOptions::nvrtc_extra)
            .metavar("OPTIONS...")
            .help("pass the remaining words to NVRTC unchanged")
            .repeatable()
            .example("-G")
            .keyword("options", "a str or a list of str"),
    };
    return table;
}

OptionValue CellOption::get(const CellOptions& options) const {
    return std::visit([&](auto member) -> OptionValue { return options.*member; }, field);
}

void CellOption::set(CellOptions& options, const OptionValue& value) const {
    std::visit(overloaded{
                   [&](bool CellOptions::*member, bool v) { options.*member = v; },
                   [&](std::string CellOptions::*member, const std::string& v) {
                       if (v.empty()) {
                           options.*member = CellOptions{}.*member;
                           return;
                       }
                       if (spec.check) {
                           if (auto problem = spec.check(v)) throw ParseError(v, *problem);
                       }
                       options.*member = v;
                   },
                   [&](std::vector<std::string> CellOptions::*member, const std::vector<std::string>& v) {
                       if (spec.check) {
                           for (const auto& item : v) {
                               if (auto problem = spec.check(item)) throw ParseError(item, *problem);
                           }
                       }
                       if (member == &CellOptions::nvrtc_extra) {
                           options.set_nvrtc_extra(v);  // and what they ask of the session
                       } else {
                           options.*member = v;
                       }
                   },
                   [&](auto, const auto&) {
                       throw std::invalid_argument("a value of the wrong type for option " + spelling());
                   },
               },
               field, value);
}

void CellOptions::set_nvrtc_extra(std::vector<std::string> words) {
    relocatable = false;
    pch = PchMode::off;
    minimal = false;
    bool pch_asked = false;
    for (const auto& w : words) {
        if (w == "-dc" || w == "--device-c" || w == "-rdc=true" || w == "--relocatable-device-code=true")
            relocatable = true;
        if (w == "-pch" || w == "--pch") pch_asked = true;
        // --pch-dir=DIR, or --pch-dir DIR: the cell's own directory, whether or not -pch is there
        if (w.rfind("--pch-dir", 0) == 0 || w.rfind("-pch-dir", 0) == 0) pch = PchMode::named_dir;
        if (w == "-minimal" || w == "--minimal") minimal = true;
    }
    if (pch_asked && pch == PchMode::off) pch = PchMode::private_dir;
    nvrtc_extra = std::move(words);
}

const CellOption* find_keyword(std::string_view keyword) {
    for (const auto& row : cell_option_table()) {
        if (!row.keyword.empty() && row.keyword == keyword) return &row;
    }
    return nullptr;
}

std::string unknown_keyword_message(std::string_view keyword) {
    std::string known;
    for (const auto& row : cell_option_table()) {
        if (row.keyword.empty()) continue;
        known += (known.empty() ? "" : ", ") + row.keyword;
    }
    return "compile() got an unexpected option " + std::string(keyword) + "; options: " + known;
}

std::string keyword_help() {
    std::string s;
    for (const auto& row : cell_option_table()) {
        if (row.keyword.empty()) continue;
        s += "  " + row.keyword + " (%%cuda " + row.spelling() + "): " + row.spec.help + "; pass " + row.python_type +
             "\n";
    }
    return s;
}

const CommandSpec& cuda_command_spec() {
    static const CommandSpec spec = [] {
        CommandSpec s;
        s.magic = "%%cuda";
        s.usage = "%%cuda [options] [-- NVRTC options]";
        s.description =
            "Compiles the cell's CUDA C++ with NVRTC and binds every __global__ function it defines\n"
            "under its source name (templates through --instantiate, reachable as kernel[\"float\"]).\n"
            "After --, NVRTC's own options: `-- -pch` reuses precompiled headers across cells (a cell\n"
            "including <cuda/std/cmath> recompiles in ~0.1 s instead of ~1 s; kept in a private\n"
            "directory under the cache), `-- -dc` makes relocatable device code, linked with earlier\n"
            "-dc cells and CUDA's device runtime.";
        for (const auto& row : cell_option_table()) {
            if (row.spelling() == "--") {
                s.passthrough = true;
                s.passthrough_help = row.spec.help;
            } else {
                s.options.push_back(row.spec);
            }
        }
        return s;
    }();
    return spec;
}

CellOptions parse_cell_options(std::string_view line) {
    ParsedArgs a = parse_args(line, cuda_command_spec());
    CellOptions o;
    for (const auto& row : cell_option_table()) row.set(o, parsed_value(row, a));
    // --ptx interleaves the cell's lines with the PTX they produced: that needs line info.
    o.lineinfo = o.lineinfo || o.ptx;
    return o;
}

std::string cuda_help_text() { return format_help(cuda_command_spec()); }

std::vector<std::string> nvrtc_options(const CellOptions& options) {
    std::vector<std::string> v;
    v.push_back("-std=" + options.std);
    for (const auto& d : options.defines) v.push_back("-D" + d);
    for (const auto& i : options.include_dirs) v.push_back("-I" + i);
    if (options.fast_math) v.push_back("-use_fast_math");
    if (options.lineinfo) v.push_back("-lineinfo");
    if (!options.fast_compile.empty()) v.push_back("--Ofast-compile=" + options.fast_compile);
    v.insert(v.end(), options.nvrtc_extra.begin(), options.nvrtc_extra.end());
    return v;
}

std::optional<std::string> unsupported_by_nvrtc(const CellOptions& options, int major, int minor) {
    if (options.fast_compile.empty() || major > 12 || (major == 12 && minor >= 9)) return std::nullopt;
    return "--fast-compile needs NVRTC 12.9 or newer (its --Ofast-compile option); this kernel uses NVRTC " +
           std::to_string(major) + "." + std::to_string(minor) +
           ": install CUDA Toolkit 12.9+ (13 recommended) for the kernel, or remove --fast-compile";
}

}  // namespace xcuda::compile

#include "xcuda/compile/cell_options.hpp"

#include <cctype>

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
    if ((v.rfind("sm_", 0) == 0 && digits(v, 3)) || (v.rfind("compute_", 0) == 0 && digits(v, 8)))
        return std::nullopt;
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

}  // namespace

std::optional<std::string> fast_compile_level_problem(const std::string& v) {
    if (v == "max" || v == "mid" || v == "min") return std::nullopt;
    return "--fast-compile=" + v + " is not a level; write --fast-compile (max), --fast-compile=mid or "
           "--fast-compile=min";
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
        s.passthrough = true;
        s.options = {
            {"-n", "--name", "NAME", "also bind the compiled module as NAME (variables: NAME.get_global('v'))", false,
             {}, "mymodule"},
            {"", "--arch", "sm_XX", "target architecture (default: the current GPU's, else sm_90)", false,
             check_arch, "sm_90"},
            {"", "--std", "STD", "C++ standard: c++11, c++14, c++17 (default), c++20", false, check_std,
             "c++17"},
            {"-I", "", "DIR", "add DIR to the include search path", true, {}, "/path/to/include"},
            {"-D", "", "NAME[=VALUE]", "define a macro", true, check_define, "N=256"},
            {"", "--instantiate", "EXPR", "instantiate a template kernel or variable, e.g. 'axpy<float>'", true,
             check_instantiation, "'axpy<float>'"},
            {"", "--ptx", "", "show the generated PTX", false, {}, {}},
            {"", "--sass", "", "show the SASS (needs cuobjdump or nvdisasm)", false, {}, {}},
            {"", "--resources", "", "show registers, spills, shared/local/constant memory per kernel", false,
             {}, {}},
            {"", "--fast-math", "", "compile with -use_fast_math", false, {}, {}},
            {"", "--lineinfo", "", "keep line information for profilers (-lineinfo)", false, {}, {}},
            {"", "--fast-compile", "LEVEL",
             "compile faster, run slower (NVRTC 12.9+ --Ofast-compile): max (default), mid or min",
             false, fast_compile_level_problem, "max", "max"},
            {"", "--no-cache", "", "compile again, bypassing the memory and disk cache", false, {}, {}},
            {"-h", "--help", "", "show this help and compile nothing", false, {}, {}},
        };
        return s;
    }();
    return spec;
}

CellOptions parse_cell_options(std::string_view line) {
    ParsedArgs a = parse_args(line, cuda_command_spec());
    CellOptions o;
    o.name = a.value("--name");
    o.arch = a.value("--arch");
    o.std = a.value("--std", o.std);
    o.include_dirs = a.all("-I");
    o.defines = a.all("-D");
    o.instantiate = a.all("--instantiate");
    o.ptx = a.has("--ptx");
    o.sass = a.has("--sass");
    o.resources = a.has("--resources");
    o.fast_math = a.has("--fast-math");
    // --ptx interleaves the cell's lines with the PTX they produced: that needs line info.
    o.lineinfo = a.has("--lineinfo") || o.ptx;
    o.fast_compile = a.value("--fast-compile");
    o.no_cache = a.has("--no-cache");
    o.help = a.has("--help");
    o.nvrtc_extra = a.passthrough;
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

#include "compiler_memory.hpp"
#include "configured.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/handle.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

namespace xcuda::rt {
namespace {

bool is_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string parent(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::vector<std::string> split(const std::string& list, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        auto end = list.find(sep, start);
        if (end == std::string::npos) end = list.size();
        if (end > start) out.push_back(list.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

bool has_runtime_headers(const std::string& dir) { return !dir.empty() && is_file(dir + "/cuda_fp16.h"); }
bool has_cccl(const std::string& dir) { return !dir.empty() && is_file(dir + "/cuda/std/version"); }

// A directory the headers may be in, and what to call it in %cuda_info.
struct HeaderCandidate {
    std::string dir, origin;
};

// Where a toolkit keeps the headers, when nothing but its NVRTC or its root is known:
// <root>/lib64/libnvrtc.so -> <root>/include (also right for <root>/targets/<triple>/lib), and the
// roots named by CUDA_HOME, CUDA_PATH, the build and /usr/local/cuda.
std::vector<HeaderCandidate> fallback_header_dirs(const std::string& nvrtc_path) {
    std::vector<HeaderCandidate> candidates;
    if (!nvrtc_path.empty()) {
        candidates.push_back({parent(nvrtc_path) + "/../include", "beside NVRTC"});
        if (char* real = ::realpath(nvrtc_path.c_str(), nullptr)) {
            candidates.push_back({parent(real) + "/../include", "beside NVRTC"});
            std::free(real);
        }
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
        if (const char* root = std::getenv(var); root != nullptr && *root != '\0') {
            candidates.push_back({std::string(root) + "/include", var});
        }
    }
    for (const auto& dir : split(XCUDA_CONFIGURED_CUDA_INCLUDE_DIRS, ';')) {
        candidates.push_back({dir, "the CUDA Toolkit xcuda was built with"});
    }
    candidates.push_back({"/usr/local/cuda/include", "/usr/local/cuda"});
    return candidates;
}

HeadersInUse find_headers() {
    const detail::NvrtcApi& api = detail::nvrtc();
    HeadersInUse found;
    // NVRTC's own place first: a wheel's or a toolkit's NVRTC with the headers of the same CUDA.
    const ToolkitPlace& own = api.place;
    if (has_runtime_headers(own.include_dir)) found = {own.include_dir, own.origin, {}, {}};
    if (has_cccl(own.cccl_dir)) {
        found.cccl_dir = own.cccl_dir;
        found.cccl_origin = own.origin;
    }
    // Then the other places of the same CUDA major (nvidia-cuda-nvrtc in one site-packages,
    // nvidia-cuda-cccl in another), then where a toolkit keeps them.
    for (const auto& place : toolkit_places()) {
        if (own.cuda_major != 0 && place.cuda_major != own.cuda_major) continue;
        if (found.include_dir.empty() && has_runtime_headers(place.include_dir)) {
            found.include_dir = place.include_dir;
            found.include_origin = place.origin;
        }
        if (found.cccl_dir.empty() && has_cccl(place.cccl_dir)) {
            found.cccl_dir = place.cccl_dir;
            found.cccl_origin = place.origin;
        }
    }
    const std::vector<HeaderCandidate> candidates = fallback_header_dirs(api.path);
    for (const auto& c : candidates) {
        if (!found.include_dir.empty()) break;
        if (has_runtime_headers(c.dir)) found = {c.dir, c.origin, found.cccl_dir, found.cccl_origin};
    }
    // CCCL (<cuda/std/...>): CUDA 13 keeps it in include/cccl, CUDA 12 in include itself. A pip
    // wheel's NVRTC (nvidia/cu13, as PyTorch's venvs have) may come without it: then the first
    // candidate that has it (a system toolkit) serves, after the NVRTC's own headers.
    if (found.cccl_dir.empty() && !found.include_dir.empty()) {
        std::vector<HeaderCandidate> cccl_candidates{{found.include_dir, found.include_origin}};
        cccl_candidates.insert(cccl_candidates.end(), candidates.begin(), candidates.end());
        for (const auto& c : cccl_candidates) {
            if (has_cccl(c.dir + "/cccl")) {
                found.cccl_dir = c.dir + "/cccl";
                found.cccl_origin = c.origin;
                break;
            }
            if (has_cccl(c.dir)) {
                found.cccl_dir = c.dir;
                found.cccl_origin = c.origin;
                break;
            }
        }
    }
    return found;
}

struct ProgramDestroy {
    void operator()(nvrtcProgram prog) const noexcept { detail::nvrtc().nvrtcDestroyProgram(&prog); }
};
using Program = detail::Handle<nvrtcProgram, ProgramDestroy>;

Program create_program(std::string_view source, const CompileOptions& o) {
    std::vector<const char*> names, sources;
    for (const auto& h : o.headers) {
        names.push_back(h.name.c_str());
        sources.push_back(h.source.c_str());
    }
    const std::string src(source);
    Program prog;
    check(detail::nvrtc().nvrtcCreateProgram(prog.put(), src.c_str(), o.program_name.c_str(),
                                             static_cast<int>(o.headers.size()), sources.data(), names.data()),
          "nvrtcCreateProgram");
    return prog;
}

std::string program_log(nvrtcProgram prog) {
    std::size_t size = 0;
    check(detail::nvrtc().nvrtcGetProgramLogSize(prog, &size), "nvrtcGetProgramLogSize");
    std::string log(size, '\0');
    if (size > 0) check(detail::nvrtc().nvrtcGetProgramLog(prog, log.data()), "nvrtcGetProgramLog");
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
}

}  // namespace

std::pair<int, int> nvrtc_version() {
    int major = 0, minor = 0;
    check(detail::nvrtc().nvrtcVersion(&major, &minor), "nvrtcVersion");
    return {major, minor};
}

std::vector<std::string> supported_archs() {
    int n = 0;
    check(detail::nvrtc().nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
    std::vector<int> archs(static_cast<std::size_t>(n));
    check(detail::nvrtc().nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
    std::vector<std::string> out;
    for (int a : archs) out.push_back("sm_" + std::to_string(a));
    return out;
}

std::string default_arch() {
    if (!driver_available()) return fallback_arch;
    return Device::current().arch();
}

HeadersInUse headers_in_use() {
    static const HeadersInUse found = find_headers();
    return found;
}

std::vector<std::string> toolkit_include_dirs() {
    const HeadersInUse& found = headers_in_use();
    std::vector<std::string> dirs;
    if (!found.include_dir.empty()) dirs.push_back(found.include_dir);
    if (!found.cccl_dir.empty() && found.cccl_dir != found.include_dir) dirs.push_back(found.cccl_dir);
    return dirs;
}

namespace {

// sm_XX: PTX and CUBIN (ptxas runs); compute_XX: PTX only.
bool is_real_arch(const std::string& arch) { return arch.rfind("sm_", 0) == 0; }

bool has_no_cache(const std::vector<std::string>& options) {
    return std::find(options.begin(), options.end(), "--no-cache") != options.end() ||
           std::find(options.begin(), options.end(), "-no-cache") != options.end();
}

// One NVRTC run with r.options; fills r's log, PTX, CUBIN, resources and lowered names.
void compile_once(std::string_view source, const CompileOptions& o, bool real_arch, CompileResult& r) {
    const detail::NvrtcApi& api = detail::nvrtc();
    const Program prog = create_program(source, o);
    for (const auto& expr : o.name_expressions) {
        check(api.nvrtcAddNameExpression(prog.get(), expr.c_str()), "nvrtcAddNameExpression");
    }
    std::vector<const char*> argv;
    for (const auto& opt : r.options) argv.push_back(opt.c_str());
    const nvrtcResult rc = api.nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());
    r.log = program_log(prog.get());
    if (rc == NVRTC_ERROR_COMPILATION || rc == NVRTC_ERROR_INVALID_OPTION) {
        throw CompileError(o.program_name, r.options, r.log.empty() ? api.nvrtcGetErrorString(rc) : r.log);
    }
    check(rc, "nvrtcCompileProgram");

    std::size_t size = 0;
    check(api.nvrtcGetPTXSize(prog.get(), &size), "nvrtcGetPTXSize");
    r.ptx.assign(size, '\0');
    check(api.nvrtcGetPTX(prog.get(), r.ptx.data()), "nvrtcGetPTX");
    while (!r.ptx.empty() && r.ptx.back() == '\0') r.ptx.pop_back();
    if (real_arch) {
        check(api.nvrtcGetCUBINSize(prog.get(), &size), "nvrtcGetCUBINSize");
        r.cubin.assign(size, '\0');
        check(api.nvrtcGetCUBIN(prog.get(), r.cubin.data()), "nvrtcGetCUBIN");
        r.resources = parse_ptxas_info(r.log);
    }
    for (const auto& expr : o.name_expressions) {
        const char* lowered = nullptr;
        check(api.nvrtcGetLoweredName(prog.get(), expr.c_str(), &lowered), "nvrtcGetLoweredName");
        r.lowered_names[expr] = lowered;
    }
}

}  // namespace

std::vector<std::string> nvrtc_arguments(const CompileOptions& o, const std::string& arch,
                                         const std::vector<std::string>& toolkit_dirs, bool bypass_compute_cache) {
    std::vector<std::string> args{"-arch=" + arch};
    if (o.toolkit_includes) {
        for (const auto& dir : toolkit_dirs) args.push_back("-I" + dir);
    }
    args.insert(args.end(), o.options.begin(), o.options.end());
    if (!o.pch_dir.empty()) {
        args.push_back("--pch-dir=" + o.pch_dir);
        args.push_back("--pch-messages=false");  // "creating/using precompiled header" on every compile
    }
    if (o.minimal) args.push_back("-minimal");
    if (o.resource_usage && is_real_arch(arch)) args.push_back("-Xptxas=-v");
    if (bypass_compute_cache) args.push_back("--no-cache");
    return args;
}

CompileResult compile(std::string_view source, const CompileOptions& o) {
    detail::keep_compiler_memory();
    CompileResult r;
    r.program_name = o.program_name;
    r.arch = o.arch.empty() ? default_arch() : o.arch;
    const bool real_arch = is_real_arch(r.arch);
    const std::vector<std::string> toolkit_dirs =
        o.toolkit_includes ? toolkit_include_dirs() : std::vector<std::string>{};

    r.options = nvrtc_arguments(o, r.arch, toolkit_dirs);
    compile_once(source, o, real_arch, r);
    if (o.resource_usage && real_arch && r.resources.empty() && !has_no_cache(r.options)) {
        // With a driver present NVRTC answers a compile whose PTX the driver's compute cache
        // has seen without running ptxas, so the log has no resource lines (seen on the H200
        // for the device's own arch). Only then pay for ptxas again: a --no-cache on every
        // compile made cold compiles 2.6x cuda.core's on the H200 (bench/, 2026-12-02).
        r.options = nvrtc_arguments(o, r.arch, toolkit_dirs, true);
        compile_once(source, o, real_arch, r);
    }
    return r;
}

}  // namespace xcuda::rt

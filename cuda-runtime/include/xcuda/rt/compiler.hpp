// CUDA C++ to PTX and CUBIN in-process with NVRTC.
#pragma once

#include <xcuda/rt/ptxas_info.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::rt {

// A header the source can #include by `name`, held in memory.
struct Header {
    std::string name;
    std::string source;
};

struct CompileOptions {
    std::string program_name = "program.cu";  // appears in the log: "cell_7.cu(3): error: ..."
    // "sm_90" (PTX + CUBIN) or "compute_90" (PTX only). Empty: the current device's arch
    // (device 0 when no context is current), or fallback_arch when there is no device.
    std::string arch;
    std::vector<std::string> options;  // passed to NVRTC as given ("-std=c++17", "-G", ...)
    std::vector<Header> headers;
    std::vector<std::string> name_expressions;  // "axpy<float>", "&f<int>": see CompileResult::lowered_names
    bool toolkit_includes = true;               // -I the CUDA Toolkit's include dirs (and CCCL's)
    bool resource_usage = true;                 // add -Xptxas=-v and parse it into CompileResult::resources
    // Where NVRTC writes its automatic precompiled headers (-pch): --pch-dir=DIR, and its
    // "creating/using precompiled header" messages off; "" = where `options` say.
    std::string pch_dir;
    // -minimal (NVRTC 12.4+): a smaller language that compiles faster (no texture/surface
    // functions, device runtime or runtime API types). A caller that sets it compiles again
    // without when NVRTC rejects the source, so errors are always the whole language's.
    bool minimal = false;
};

struct CompileResult {
    std::string program_name;
    std::string arch;                  // the arch actually used
    std::vector<std::string> options;  // every option NVRTC received
    std::string log;                   // without the trailing NUL
    std::string ptx;
    std::string cubin;                                 // ELF bytes; empty for a compute_XX arch
    std::map<std::string, std::string> lowered_names;  // name expression -> mangled name
    std::map<std::string, KernelResources> resources;  // mangled kernel name -> usage (sm_XX only)
};

// Used when arch is empty and no device is reachable.
inline constexpr const char* fallback_arch = "sm_90";

// Throws CompileError (log, program name, options) when NVRTC rejects the source; other
// NVRTC failures become CudaError naming the call.
CompileResult compile(std::string_view source, const CompileOptions& options);

// Every argument NVRTC runs with for `o`, the one place the list is put together: -arch=`arch`
// (o.arch resolved, as CompileResult::arch), -I each of `toolkit_dirs` (with o.toolkit_includes),
// o.options as given, --pch-dir=DIR --pch-messages=false (o.pch_dir), -minimal (o.minimal),
// -Xptxas=-v (o.resource_usage, sm_XX only), in that order. `bypass_compute_cache` gives the
// retry compile() makes when the log lacks ptxas's resource lines: the same list, then --no-cache.
std::vector<std::string> nvrtc_arguments(const CompileOptions& o, const std::string& arch,
                                         const std::vector<std::string>& toolkit_dirs,
                                         bool bypass_compute_cache = false);

// {major, minor} of the NVRTC library loaded.
std::pair<int, int> nvrtc_version();
// Architectures this NVRTC can target, as "sm_XX".
std::vector<std::string> supported_archs();
// The arch compile() uses for an empty CompileOptions::arch.
std::string default_arch();
// The include dirs NVRTC's programs get: the runtime's headers (cuda_fp16.h) and CCCL's, from
// the loaded NVRTC's own place first (toolkit.hpp: headers_in_use). Empty if none found.
std::vector<std::string> toolkit_include_dirs();

}  // namespace xcuda::rt

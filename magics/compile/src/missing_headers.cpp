#include "missing_headers.hpp"

#include <xcuda/rt/toolkit.hpp>

#include <set>
#include <string_view>

namespace xcuda::compile::detail {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// NVRTC 13.0: `could not open source file "cuda/std/cmath" (no directories in search list)`;
// 13.5: `cannot open source file "cuda/std/cmath"`.
std::string unopened_header(const std::string& message) {
    for (const std::string_view marker : {"could not open source file \"", "cannot open source file \""}) {
        const auto at = message.find(marker);
        if (at == std::string::npos) continue;
        const auto start = at + marker.size();
        const auto end = message.find('"', start);
        return end == std::string::npos ? std::string() : message.substr(start, end - start);
    }
    return {};
}

}  // namespace

std::string piece_for_header(const std::string& name) {
    for (const char* dir : {"cuda/", "cub/", "thrust/", "nv/"}) {
        if (starts_with(name, dir)) return "cccl";
    }
    for (const char* prefix : {"cuda_", "cuda.h", "cooperative_groups", "crt/", "sm_", "mma.h", "vector_", "device_",
                               "math_", "builtin_types.h", "driver_types.h", "host_defines.h", "texture_", "surface_",
                               "channel_descriptor.h", "library_types.h", "cuComplex.h"}) {
        if (starts_with(name, prefix)) return "headers";
    }
    return {};
}

std::string missing_header_hint(const std::vector<Diagnostic>& ds, bool has_cccl, bool has_runtime_headers,
                                int cuda_major) {
    std::set<std::string> pieces;
    std::string first;
    for (const auto& d : ds) {
        if (d.severity != Severity::error) continue;
        const std::string header = unopened_header(d.message);
        const std::string piece = piece_for_header(header);
        if ((piece == "cccl" && !has_cccl) || (piece == "headers" && !has_runtime_headers)) {
            if (pieces.insert(piece).second && first.empty()) first = header;
        }
    }
    if (pieces.empty()) return {};
    std::string packages;
    for (const auto& piece : pieces) {
        packages += (packages.empty() ? "" : " ") + rt::pip_package_for(piece, cuda_major);
    }
    const std::string what = pieces.count("cccl") != 0 ? "CCCL's headers (<cuda/std/...>, cub, thrust)"
                                                       : "the CUDA runtime's headers (cuda_fp16.h, ...)";
    return "<" + first + "> is one of " + what + ", which the kernel's environment lacks: pip install " + packages +
           " (in a notebook: %pip install " + packages + "), then restart the kernel; %cuda_info shows what was found";
}

}  // namespace xcuda::compile::detail

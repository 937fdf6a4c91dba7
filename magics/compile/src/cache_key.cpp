#include "cache_key.hpp"

#include "xcuda/compile/builtin_headers.hpp"
#include "xcuda/compile/cache_entry.hpp"
#include "xcuda/compile/sha256.hpp"

namespace xcuda::compile::detail {
namespace {

// Stands for the built-in headers' texts in the cache key: hashed once, not on every re-run.
const std::string& builtin_headers_digest() {
    static const std::string digest = [] {
        Sha256 h;
        h.field("xcuda-builtin-headers");
        for (const auto& [name, text] : builtin_headers()) h.field(name).field(text);
        return to_hex(h.finish());
    }();
    return digest;
}

}  // namespace

std::string cache_key(std::string_view source, const std::vector<std::string>& cell_options,
                      const std::vector<std::string>& instantiate,
                      const std::vector<std::pair<std::string, std::string>>& used, const HeaderRegistry& headers,
                      const std::string& arch, const NvrtcFacts& nvrtc) {
    Sha256 h;
    h.field("xcuda-compile").field(std::to_string(cache_format_version)).field(nvrtc.version).field(arch);
    // What the payload's lowered names cover: since "kernels+variables", the cell's
    // __constant__/__device__ variables too (an older entry lacks theirs).
    h.field("kernels+variables");
    h.field(std::to_string(cell_options.size()));
    for (const auto& o : cell_options) h.field(o);
    h.field(std::to_string(nvrtc.toolkit_dirs.size()));
    for (const auto& d : nvrtc.toolkit_dirs) h.field(d);
    h.field(std::to_string(instantiate.size()));
    for (const auto& e : instantiate) h.field(e);
    h.field(std::to_string(used.size()));
    for (const auto& [name, text] : used) h.field(name).field(text);
    h.field(builtin_headers_digest());
    for (const auto& [name, text] : builtin_headers()) {
        if (auto own = headers.get(name)) h.field(name).field(*own);  // registered in a built-in's place
    }
    h.field(source);
    return to_hex(h.finish());
}

}  // namespace xcuda::compile::detail

#include "nvrtc_call.hpp"

#include "cpp_tokens.hpp"
#include "join.hpp"

#include "xcuda/compile/builtin_headers.hpp"
#include "xcuda/compile/option_parser.hpp"

#include <algorithm>
#include <cctype>

namespace xcuda::compile::detail {

std::string machine_arch(const std::string& arch) {
    return arch.rfind("compute_", 0) == 0 ? "sm_" + arch.substr(8) : arch;
}

void check_supported_arch(const std::string& arch, const NvrtcFacts& nvrtc) {
    const std::vector<std::string>& supported = nvrtc.supported_archs;
    std::string real = machine_arch(arch);
    if (!real.empty() && (real.back() == 'a' || real.back() == 'f')) real.pop_back();
    if (!supported.empty() && std::find(supported.begin(), supported.end(), real) == supported.end())
        throw ParseError(arch, "--arch " + arch + " is not supported by NVRTC " + nvrtc.version + "; use one of " +
                                   join_with(supported, " "));
}

bool may_compile_minimal(std::string_view source, const CellOptions& options, bool uses_headers) {
    if (uses_headers || options.minimal) return false;
    for (const auto& d : detail::preprocessor_directives(source)) {
        if (d.name == "include") return false;
    }
    for (const char* omitted : {"<<<", "tex", "surf"}) {
        if (source.find(omitted) != std::string_view::npos) return false;
    }
    // cudaMalloc, cudaStream_t, cudaTextureObject_t, ...
    for (std::size_t p = source.find("cuda"); p != std::string_view::npos; p = source.find("cuda", p + 1)) {
        if (p + 4 < source.size() && std::isupper(static_cast<unsigned char>(source[p + 4]))) return false;
    }
    return true;
}

std::vector<std::pair<std::string, std::string>> nvrtc_headers(
    const std::vector<std::pair<std::string, std::string>>& used, const HeaderRegistry& registry) {
    std::vector<std::pair<std::string, std::string>> all = used;
    for (const auto& [name, text] : builtin_headers()) {
        auto own = registry.get(name);
        bool reached = std::any_of(used.begin(), used.end(), [&](const auto& u) { return u.first == name; });
        if (!reached) all.emplace_back(name, own ? *own : text);
    }
    return all;
}

}  // namespace xcuda::compile::detail

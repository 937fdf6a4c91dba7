// Headers defined by `%%cuda_header NAME` cells, handed to NVRTC in memory.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xcuda::compile {

class HeaderRegistry {
public:
    // Defines or replaces header `name` (as later cells write it: #include "name").
    // Throws std::invalid_argument for an empty name or one with whitespace, quotes or <>.
    void set(const std::string& name, std::string text);
    std::optional<std::string> get(const std::string& name) const;
    bool erase(const std::string& name);
    std::vector<std::string> list() const;  // names, sorted
    bool empty() const { return headers_.empty(); }
    // Changes with every set() and erase(), and no two registries share one: an equal value
    // means this registry with the same headers (what a compile memo may assume unchanged).
    std::uint64_t generation() const { return generation_; }

    // The registered headers `source` includes, directly or through other registered headers
    // (`#include "x"` or `<x>`, whatever #if surrounds it), sorted by name. Only these go to
    // NVRTC and into the cache key, so changing an unrelated header keeps a cell's cache hits.
    std::vector<std::pair<std::string, std::string>> used_by(std::string_view source) const;

private:
    std::map<std::string, std::string> headers_;
    std::uint64_t generation_ = next_generation();

    static std::uint64_t next_generation();
};

// The names in every `#include "x"` / `#include <x>` line of `text` (none from comments, string
// literals or `#if 0` blocks). Pure.
std::vector<std::string> included_names(std::string_view text);

}  // namespace xcuda::compile

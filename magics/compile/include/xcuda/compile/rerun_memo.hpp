// The re-run memo of a CompileSession: a call's own text (cell, NVRTC options, instantiations,
// arch) finds the cache key its compile derived, so re-running an unchanged cell parses, follows
// and hashes nothing. What it finds stays valid while the header registry keeps the generation it
// had then; whether the module is still there is the memory cache's to say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace xcuda::compile {

class RerunMemo {
public:
    // The memo keeps each call's text once more: past `limit_bytes` of it, it starts afresh.
    static constexpr std::size_t default_limit_bytes = std::size_t(16) << 20;
    explicit RerunMemo(std::size_t limit_bytes = default_limit_bytes) : limit_bytes_(limit_bytes) {}

    // What a call was given that its result depends on, as given: the cell's text, its NVRTC
    // options, instantiations and arch; length-prefixed fields, so no two different calls write
    // the same string. Headers are not in it: their registry's generation is checked beside it.
    static std::string call_key(std::string_view source, const std::vector<std::string>& nvrtc_options,
                                const std::vector<std::string>& instantiate, const std::string& arch);

    // The cache key remembered for `call` (a call_key) when the registry is still at
    // `headers_generation`; nullptr otherwise.
    const std::string* find(const std::string& call, std::uint64_t headers_generation) const;
    // Remembers that `call` derived `cache_key` with the registry at `headers_generation`.
    void remember(std::string call, const std::string& cache_key, std::uint64_t headers_generation);

    std::size_t size() const { return entries_.size(); }
    std::size_t bytes() const { return bytes_; }  // of the calls' texts kept

private:
    struct Entry {
        std::string cache_key;
        std::uint64_t headers_generation = 0;
    };
    std::unordered_map<std::string, Entry> entries_;
    std::size_t bytes_ = 0;
    std::size_t limit_bytes_;
};

}  // namespace xcuda::compile

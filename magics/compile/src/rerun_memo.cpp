#include "xcuda/compile/rerun_memo.hpp"

namespace xcuda::compile {

std::string RerunMemo::call_key(std::string_view source, const std::vector<std::string>& nvrtc_options,
                                const std::vector<std::string>& instantiate, const std::string& arch) {
    std::string k;
    k.reserve(source.size() + arch.size() + 64);
    auto field = [&k](std::string_view s) {
        const auto n = static_cast<std::uint32_t>(s.size());
        k.append(reinterpret_cast<const char*>(&n), sizeof n).append(s);
    };
    field(arch);
    for (const auto* list : {&nvrtc_options, &instantiate}) {
        field(std::to_string(list->size()));
        for (const auto& o : *list) field(o);
    }
    field(source);
    return k;
}

const std::string* RerunMemo::find(const std::string& call, std::uint64_t headers_generation) const {
    auto it = entries_.find(call);
    if (it == entries_.end() || it->second.headers_generation != headers_generation) return nullptr;
    return &it->second.cache_key;
}

void RerunMemo::remember(std::string call, const std::string& cache_key, std::uint64_t headers_generation) {
    if (bytes_ + call.size() > limit_bytes_) {
        entries_.clear();
        bytes_ = 0;
    }
    auto [it, added] = entries_.try_emplace(std::move(call));
    if (added) bytes_ += it->first.size();
    it->second = {cache_key, headers_generation};
}

}  // namespace xcuda::compile

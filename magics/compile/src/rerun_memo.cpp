#include "rerun_memo.hpp"

#include "xcuda/compile/compile_cell.hpp"

#include <cstdint>

namespace xcuda::compile {
namespace {

// What the re-run memo may hold: it keeps each cell's text once more, so a session that
// compiles many large distinct cells starts it afresh past this.
constexpr std::size_t rerun_memo_limit_bytes = std::size_t(16) << 20;

}  // namespace

std::string detail::rerun_key(std::string_view source, const std::vector<std::string>& opts,
                              const std::vector<std::string>& instantiate, const std::string& arch) {
    std::string k;
    k.reserve(source.size() + arch.size() + 64);
    auto field = [&k](std::string_view s) {
        const auto n = static_cast<std::uint32_t>(s.size());
        k.append(reinterpret_cast<const char*>(&n), sizeof n).append(s);
    };
    field(arch);
    for (const auto* list : {&opts, &instantiate}) {
        field(std::to_string(list->size()));
        for (const auto& o : *list) field(o);
    }
    field(source);
    return k;
}

std::shared_ptr<const CompiledModule> CompileSession::memoised(const std::string& key, const std::string& cell_label) {
    auto memo = cache_->memo(key);
    if (!memo) return nullptr;
    auto m = std::static_pointer_cast<const CompiledModule>(memo);
    if (m->cell_label != cell_label && !m->warnings.empty()) {
        auto relabelled = std::make_shared<CompiledModule>(*m);
        relabel(relabelled->warnings, m->cell_label, cell_label);
        relabelled->cell_label = cell_label;
        m = relabelled;
    }
    return m;
}

void CompileSession::remember_rerun(std::string call, const std::string& key, std::uint64_t headers_generation) {
    if (rerun_bytes_ + call.size() > rerun_memo_limit_bytes) {
        reruns_.clear();
        rerun_bytes_ = 0;
    }
    auto [it, added] = reruns_.try_emplace(std::move(call));
    if (added) rerun_bytes_ += it->first.size();
    it->second = {key, headers_generation};
}

}  // namespace xcuda::compile

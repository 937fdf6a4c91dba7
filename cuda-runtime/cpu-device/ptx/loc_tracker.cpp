#include "ptx/loc_tracker.hpp"

#include <algorithm>
#include <utility>

namespace xcuda::cpu::ptx {

namespace {
// Deeper than any real inlining; it bounds a chain that cycles through the same sites (a
// recursive function inlined into itself reuses its call site's position).
constexpr std::size_t max_inline_depth = 64;
}  // namespace

void LocTracker::reset() {
    current_ = Loc{};
    chains_.clear();
}

void LocTracker::set(const Loc::Site& position, const std::optional<Loc::Site>& inlined_at) {
    Loc loc;
    loc.file = position.file;
    loc.line = position.line;
    loc.column = position.column;
    if (inlined_at) {
        loc.inlined_at.push_back(*inlined_at);
        const auto outer = chains_.find(key(*inlined_at));
        if (outer != chains_.end()) {
            const std::size_t take = std::min(outer->second.size(), max_inline_depth - 1);
            loc.inlined_at.insert(loc.inlined_at.end(), outer->second.begin(), outer->second.begin() + take);
        }
    }
    chains_[key(position)] = loc.inlined_at;
    current_ = std::move(loc);
}

}  // namespace xcuda::cpu::ptx

#include "check/argument_extents.hpp"

#include <algorithm>
#include <map>

namespace xcuda::cpu {

std::shared_ptr<const AllocationTable> narrowed_to_arguments(const AllocationTable& table,
                                                             const std::vector<ArgumentExtent>& extents) {
    // The extents inside each allocation, by its index in table.live.
    std::map<std::size_t, std::vector<ArgumentExtent>> inside;
    for (const ArgumentExtent& e : extents) {
        const Allocation* a = table.containing(e.base);
        if (a == nullptr || a->kind != Allocation::Kind::device) continue;
        const std::uint64_t bytes = std::min(e.bytes, a->size - (e.base - a->base));
        if (e.base == a->base && bytes == a->size) {
            inside[static_cast<std::size_t>(a - table.live.data())].push_back({a->base, a->size});
        } else {
            inside[static_cast<std::size_t>(a - table.live.data())].push_back({e.base, bytes});
        }
    }
    bool changed = false;
    for (auto& [index, spans] : inside) {
        std::sort(spans.begin(), spans.end(),
                  [](const ArgumentExtent& a, const ArgumentExtent& b) { return a.base < b.base; });
        std::vector<ArgumentExtent> merged;
        for (const ArgumentExtent& s : spans) {
            if (!merged.empty() && s.base <= merged.back().base + merged.back().bytes) {
                const std::uint64_t end = std::max(merged.back().base + merged.back().bytes, s.base + s.bytes);
                merged.back().bytes = end - merged.back().base;
            } else {
                merged.push_back(s);
            }
        }
        spans = std::move(merged);
        const Allocation& a = table.live[index];
        if (spans.size() != 1 || spans[0].base != a.base || spans[0].bytes != a.size) changed = true;
    }
    if (!changed) return nullptr;
    auto out = std::make_shared<AllocationTable>();
    out->freed = table.freed;
    out->live.reserve(table.live.size() + extents.size());
    for (std::size_t i = 0; i < table.live.size(); ++i) {
        auto it = inside.find(i);
        if (it == inside.end()) {
            out->live.push_back(table.live[i]);
            continue;
        }
        for (const ArgumentExtent& s : it->second) {
            Allocation part = table.live[i];  // its shadow, kind and serial: the same memory
            part.base = s.base;
            part.size = s.bytes;
            out->live.push_back(std::move(part));
        }
    }
    return out;
}

}  // namespace xcuda::cpu

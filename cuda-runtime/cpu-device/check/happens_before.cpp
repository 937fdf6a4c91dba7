#include "check/happens_before.hpp"

#include <algorithm>
#include <unordered_set>

namespace xcuda::cpu {

std::uint32_t SyncTable::release(std::uint64_t key) {
    Stripe& s = stripe(key);
    std::lock_guard<std::mutex> lock(s.mutex);
    any_.store(true, std::memory_order_relaxed);
    return s.counts[key]++;
}

std::uint32_t SyncTable::releases(std::uint64_t key) {
    // Until the first release, acquiring sees nothing: histograms of plain atomics lock nothing.
    if (!any_.load(std::memory_order_relaxed)) return 0;
    Stripe& s = stripe(key);
    std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = s.counts.find(key);
    return it == s.counts.end() ? 0 : it->second;
}

void SyncTable::clear() {
    if (!any_.load(std::memory_order_relaxed)) return;
    for (Stripe& s : stripes_) {
        std::lock_guard<std::mutex> lock(s.mutex);
        s.counts.clear();
    }
    any_.store(false, std::memory_order_relaxed);
}

void UnitClock::begin(std::uint64_t unit_number, std::size_t ctas, std::uint32_t warps_in_cta) {
    unit = unit_number;
    tick = 1;
    warps_per_cta = warps_in_cta;
    seg.assign(ctas, 0);
    warps.assign(ctas * warps_in_cta, WarpClock{});
    if (!local_releases.empty()) local_releases.clear();  // (clear() walks every bucket)
}

EventIndex::EventIndex(const std::vector<UnitEvents>& units) {
    for (const UnitEvents& u : units) {
        for (const SyncEvent* e = u.begin; e != u.end; ++e) {
            by_cta_[cta_key(u.unit, e->cta)].push_back({u.unit, e});
            if (!e->release) acquires_[e->key].push_back({u.unit, e});
        }
    }
    for (auto& [key, list] : acquires_) {
        std::stable_sort(list.begin(), list.end(),
                         [](const Ref& x, const Ref& y) { return x.event->index < y.event->index; });
    }
}

bool EventIndex::before(const Point& a, const Point& b) const {
    // Breadth over releases reached: (object, the earliest of its releases reached). An acquire
    // that saw more releases than that index is ordered after a; so is what its CTA releases
    // after it. A search this long only happens on kernels with very many synchronisations: it
    // then answers "ordered", which can hide a race but never reports one that is not there.
    constexpr std::size_t budget = std::size_t{1} << 20;
    std::size_t steps = 0;
    std::unordered_map<std::uint64_t, std::uint32_t> reached;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> work;
    auto releases_after = [&](std::uint64_t unit, std::uint32_t cta, std::uint32_t after_tick, auto&& ordered) {
        const auto it = by_cta_.find(cta_key(unit, cta));
        if (it == by_cta_.end()) return;
        const std::vector<Ref>& events = it->second;
        // Every release that covers a point happened after it (a barrier moves the tick on too).
        auto e = std::upper_bound(events.begin(), events.end(), after_tick,
                                  [](std::uint32_t t, const Ref& r) { return t < r.event->at; });
        for (; e != events.end(); ++e) {
            ++steps;
            const SyncEvent& r = *e->event;
            if (!r.release || !ordered(r)) continue;
            const auto [at, fresh] = reached.try_emplace(r.key, r.index);
            if (fresh || r.index < at->second) {
                at->second = r.index;
                work.emplace_back(r.key, r.index);
            }
        }
    };
    releases_after(a.unit, a.cta, a.tick, [&](const SyncEvent& r) { return covered(a, r); });
    std::unordered_set<const SyncEvent*> visited;
    while (!work.empty()) {
        if (steps > budget) return true;
        const auto [key, index] = work.back();
        work.pop_back();
        if (reached[key] < index) continue;  // an earlier release of the object was reached since
        const auto acquires = acquires_.find(key);
        if (acquires == acquires_.end()) continue;
        const std::vector<Ref>& list = acquires->second;
        auto q = std::upper_bound(list.begin(), list.end(), index,
                                  [](std::uint32_t i, const Ref& r) { return i < r.event->index; });
        for (; q != list.end(); ++q) {
            ++steps;
            const SyncEvent& acquire = *q->event;
            if (q->unit == b.unit && acquire.cta == b.cta && sees(acquire, b)) return true;
            if (!visited.insert(&acquire).second) continue;
            releases_after(q->unit, acquire.cta, acquire.tick,
                           [&](const SyncEvent& r) { return passes_on(acquire, r); });
        }
    }
    return false;
}

}  // namespace xcuda::cpu

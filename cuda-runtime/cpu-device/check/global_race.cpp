#include "check/global_race.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>

namespace xcuda::cpu {

// --- recording --------------------------------------------------------------------------------

void GlobalRaceLog::begin_launch(GlobalRaces& launch, std::size_t limit) {
    launch_ = &launch;
    limit_ = limit;
    limited_ = overflowed_ = false;
    units_.clear();
    accesses_.clear();
    events_.clear();
    footprints_.clear();
    ctaids_.clear();
    pending_valid_ = false;
}

void GlobalRaceLog::begin_unit(std::uint64_t number, std::size_t ctas, std::uint32_t warps_per_cta) {
    Unit u;
    u.number = number;
    u.accesses_begin = u.accesses_end = accesses_.size();
    u.events_begin = u.events_end = events_.size();
    u.footprints_begin = u.footprints_end = footprints_.size();
    u.ctas_begin = ctaids_.size();
    units_.push_back(u);
    clock_.begin(number, ctas, warps_per_cta);
    pending_valid_ = false;
    footprint_base_ = ~std::uint64_t{0};
    atomics_seen_.clear();
}

std::uint8_t GlobalRaceLog::footprint_of(std::uint64_t base, std::uint64_t end) {
    const std::size_t first = units_.back().footprints_begin;
    for (std::size_t i = first; i < footprints_.size(); ++i) {
        const Footprint& f = footprints_[i];
        if (f.base == base || (f.base <= base && end <= f.end && i + 1 == first + max_footprints)) {
            return static_cast<std::uint8_t>(i - first);
        }
    }
    Footprint f;
    f.base = base;
    f.end = end;
    if (footprints_.size() - first + 1 == max_footprints) {  // the last one takes every allocation after it
        f.base = 0;
        f.end = ~std::uint64_t{0};
    }
    footprints_.push_back(f);
    return static_cast<std::uint8_t>(footprints_.size() - 1 - first);
}

GlobalAccess GlobalRaceLog::entry(const Where& at, GlobalAccessKind kind) {
    GlobalAccess a;
    a.pc = at.pc;
    a.tick = clock_.tick;
    a.seg = clock_.seg[at.cta];
    a.order = order(at.cta, at.warp_index, at.warp_syncs);
    a.cta = at.cta;
    a.warp = static_cast<std::uint8_t>(at.warp_index);
    a.kind = kind;
    if (at.base != footprint_base_) {
        footprint_index_ = footprint_of(at.base, at.end);
        footprint_base_ = at.base;
    }
    a.footprint = footprint_index_;
    return a;
}

void GlobalRaceLog::add(const GlobalAccess& a) {
    Footprint& f = footprints_[units_.back().footprints_begin + a.footprint];
    if (accesses_.size() >= limit_ &&
        ((a.kind == GlobalAccessKind::read && !f.written()) || accesses_.size() >= 2 * limit_)) {
        limited_ = true;
        return;
    }
    const std::uint64_t hi = a.hi();
    switch (a.kind) {
        case GlobalAccessKind::read:
            f.read_lo = std::min(f.read_lo, a.lo);
            f.read_hi = std::max(f.read_hi, hi);
            break;
        case GlobalAccessKind::write:
            f.write_lo = std::min(f.write_lo, a.lo);
            f.write_hi = std::max(f.write_hi, hi);
            break;
        case GlobalAccessKind::atomic:
            f.atomic_lo = std::min(f.atomic_lo, a.lo);
            f.atomic_hi = std::max(f.atomic_hi, hi);
            break;
    }
    accesses_.push_back(a);
}

void GlobalRaceLog::flush() {
    if (!pending_valid_) return;
    pending_valid_ = false;
    add(pending_);
}

void GlobalRaceLog::start(const Where& at, std::uint64_t address, unsigned size, unsigned lane, GlobalAccessKind kind) {
    flush();
    pending_ = entry(at, kind);
    pending_.lo = address;
    pending_.bytes = size;
    pending_.elem = static_cast<std::uint8_t>(size);
    pending_.lanes = 1u << lane;
    pending_valid_ = true;
    pending_warp_ = at.warp;
    pending_last_lane_ = lane;
    pending_base_ = at.base;
}

void GlobalRaceLog::note_warp(const Where& at, const std::uint64_t* addresses, std::uint32_t lanes, unsigned size,
                              GlobalAccessKind kind) {
    if (lanes == 0) return;
    flush();  // the log keeps each unit's accesses in the order they ran
    const GlobalAccess base = entry(at, kind);
    if (lanes == ~std::uint32_t{0}) {
        // The common cases first: runs of consecutive elements and no lane repeating the one
        // before it (32 coalesced floats: one run; a 16-wide tile's two rows: two).
        std::uint32_t next = 1, repeats = 0;  // bit l: lane l continues lane l - 1's run / repeats its address
        for (unsigned l = 1; l < 32; ++l) {
            next |= std::uint32_t{addresses[l] == addresses[l - 1] + size} << l;
            repeats |= std::uint32_t{addresses[l] == addresses[l - 1]} << l;
        }
        if (repeats == 0) {
            for (unsigned first = 0; first < 32;) {
                // The lanes after `first` that start a run of their own.
                const std::uint32_t rest = first + 1 < 32 ? ~next >> (first + 1) : 0;
                const unsigned count = rest != 0 ? 1 + static_cast<unsigned>(__builtin_ctz(rest)) : 32 - first;
                GlobalAccess run = base;
                run.lo = addresses[first];
                run.bytes = count * size;
                run.elem = static_cast<std::uint8_t>(size);
                run.lanes = (count == 32 ? ~std::uint32_t{0} : ((std::uint32_t{1} << count) - 1)) << first;
                add(run);
                first += count;
            }
            return;
        }
    }
    GlobalAccess run = base;
    bool open = false;
    std::uint64_t last = 0;
    for (unsigned l = 0; l < 32; ++l) {
        if (!((lanes >> l) & 1u)) continue;
        const std::uint64_t a = addresses[l];
        if (open && run.elem != 0 && a == last + size) {
            run.bytes += size;
            run.lanes |= 1u << l;
        } else if (open && kind == GlobalAccessKind::read && a == last && a == run.lo &&
                   (run.elem == 0 || run.bytes == size)) {
            run.elem = 0;
            run.lanes |= 1u << l;
        } else {
            if (open) add(run);
            run = base;
            run.lo = a;
            run.bytes = size;
            run.elem = static_cast<std::uint8_t>(size);
            run.lanes = 1u << l;
            open = true;
        }
        last = a;
    }
    if (open) add(run);
}

void GlobalRaceLog::note_consecutive_warp(const Where& at, std::uint64_t lo, unsigned size, GlobalAccessKind kind) {
    flush();  // the log keeps each unit's accesses in the order they ran
    GlobalAccess run = entry(at, kind);
    run.lo = lo;
    run.bytes = 32 * size;
    run.elem = static_cast<std::uint8_t>(size);
    run.lanes = ~std::uint32_t{0};
    add(run);
}

void GlobalRaceLog::note_atomic(const Where& at, std::uint64_t address, unsigned size, unsigned lane) {
    const std::uint32_t who = at.cta * clock_.warps_per_cta + at.warp_index;
    for (const auto& [a, w] : atomics_seen_) {
        if (a == address && w == who) return;
    }
    if (atomics_seen_.size() == max_atomics) return;
    atomics_seen_.emplace_back(address, who);
    flush();
    GlobalAccess e = entry(at, GlobalAccessKind::atomic);
    e.lo = address;
    e.bytes = size;
    e.elem = static_cast<std::uint8_t>(size);
    e.lanes = 1u << lane;
    add(e);
}

void GlobalRaceLog::record(const SyncEvent& e) {
    // An event left out could leave two ordered accesses unordered: past the limit, nothing is judged.
    if (events_.size() >= max_events) {
        overflowed_ = true;
        return;
    }
    events_.push_back(e);
}

void GlobalRaceLog::fence(std::uint32_t cta, std::uint32_t warp) {
    flush();
    WarpClock& w = clock_.warp(cta, warp);
    w.fenced = true;
    ++w.events;
}

void GlobalRaceLog::acquire(std::uint32_t cta, std::uint32_t warp, std::uint64_t key) {
    std::uint32_t seen = 0;
    if (global_key(key)) {
        seen = launch_->table.releases(key);
    } else {
        const auto it = clock_.local_releases.find(key);
        seen = it == clock_.local_releases.end() ? 0 : it->second;
    }
    if (seen == 0) return;
    WarpClock& w = clock_.warp(cta, warp);
    if (w.acquired_key == key && w.acquired_count == seen) return;  // nothing new to see
    flush();
    w.acquired_key = key;
    w.acquired_count = seen;
    ++w.events;
    record_sync(key, seen, cta, static_cast<std::uint8_t>(warp), false);
}

void GlobalRaceLog::release(std::uint32_t cta, std::uint32_t warp, std::uint64_t key, bool explicit_release) {
    WarpClock& w = clock_.warp(cta, warp);
    if (!explicit_release && !w.fenced) return;  // a strong write with no fence before it orders nothing
    flush();
    const std::uint32_t seg = clock_.seg[cta];
    // Nothing new to pass on: no access and no barrier since its last release of the object.
    if (w.released_key == key && w.released_after == accesses_.size() && w.released_seg == seg) return;
    const std::uint32_t index = global_key(key) ? launch_->table.release(key) : clock_.local_releases[key]++;
    record_sync(key, index, cta, static_cast<std::uint8_t>(warp), true);
    ++w.events;
    w.released_key = key;
    w.released_seg = seg;
    w.released_after = accesses_.size();
}

void GlobalRaceLog::barrier_completed(std::uint32_t cta) {
    flush();
    ++clock_.tick;
    ++clock_.seg[cta];
}

void GlobalRaceLog::cluster_barrier_completed() {
    flush();
    const std::uint64_t key = unit_local_key | (std::uint64_t{1} << 62);
    const auto ctas = static_cast<std::uint32_t>(clock_.seg.size());
    std::uint32_t& releases = clock_.local_releases[key];
    for (std::uint32_t c = 0; c < ctas; ++c) record_sync(key, releases++, c, any_warp, true);
    for (std::uint32_t c = 0; c < ctas; ++c) record_sync(key, releases, c, any_warp, false);
}

void GlobalRaceLog::record_sync(std::uint64_t key, std::uint32_t index, std::uint32_t cta, std::uint8_t warp,
                                bool release) {
    SyncEvent e;
    e.key = key;
    e.index = index;
    e.tick = e.at = ++clock_.tick;
    e.seg = clock_.seg[cta];
    e.cta = cta;
    e.warp = warp;
    e.release = release;
    record(e);
}

// --- comparing --------------------------------------------------------------------------------

namespace {

// An access in some worker's log.
struct Ref {
    const GlobalRaceLog* log;
    std::size_t unit;   // index in log->units()
    std::size_t index;  // in log->accesses()
    const GlobalAccess& access() const { return log->accesses()[index]; }
    std::uint64_t unit_number() const { return log->units()[unit].number; }
};

bool conflicting(GlobalAccessKind a, GlobalAccessKind b) {
    if (a == GlobalAccessKind::read) return b != GlobalAccessKind::read;
    if (a == GlobalAccessKind::atomic) return b != GlobalAccessKind::atomic;
    return true;
}

// The lanes of `a` that accessed the byte at `address`.
std::uint32_t lanes_at(const GlobalAccess& a, std::uint64_t address) {
    if (a.elem == 0) return a.lanes;
    unsigned k = static_cast<unsigned>((address - a.lo) / a.elem);
    std::uint32_t m = a.lanes;
    while (k-- > 0) m &= m - 1;
    return m & (~m + 1);
}

unsigned lowest(std::uint32_t m) { return static_cast<unsigned>(__builtin_ctz(m)); }

// Where two accesses of one warp touch the same byte from different lanes (threads): false when
// every byte they share is one thread's.
bool different_lanes(const GlobalAccess& a, const GlobalAccess& b, std::uint64_t& address, unsigned& lane_a,
                     unsigned& lane_b) {
    std::uint64_t x = std::max(a.lo, b.lo);
    const std::uint64_t end = std::min(a.hi(), b.hi());
    while (x < end) {
        const std::uint32_t la = lanes_at(a, x), lb = lanes_at(b, x);
        const std::uint32_t both = la | lb;
        if ((both & (both - 1)) != 0) {
            address = x;
            lane_a = lowest(la);
            lane_b = lowest(lb);
            if (lane_a == lane_b) {  // a read by several lanes: name one that is not the writer
                if ((la & ~(1u << lane_b)) != 0) {
                    lane_a = lowest(la & ~(1u << lane_b));
                } else {
                    lane_b = lowest(lb & ~(1u << lane_a));
                }
            }
            return true;
        }
        const std::uint64_t next_a = a.elem != 0 ? a.lo + ((x - a.lo) / a.elem + 1) * a.elem : end;
        const std::uint64_t next_b = b.elem != 0 ? b.lo + ((x - b.lo) / b.elem + 1) * b.elem : end;
        x = std::min(next_a, next_b);
    }
    return false;
}

Point point_of(const Ref& r) {
    const GlobalAccess& a = r.access();
    return {r.unit_number(), a.cta, a.tick, a.seg, a.warp};
}

// The same CTA orders them without events: a barrier between them, or a __syncwarp() (or one of
// its own synchronising instructions) between two accesses of one warp.
bool ordered_in_cta(const GlobalAccess& a, const GlobalAccess& b) {
    if (a.seg != b.seg) return true;
    return a.warp == b.warp && a.order != b.order;
}

// Two accesses' first shared byte of different threads, when their kinds conflict.
struct Conflict {
    std::uint64_t address = 0;
    unsigned lane_a = 0, lane_b = 0;
};
std::optional<Conflict> conflict_of(const Ref& x, const Ref& y) {
    const GlobalAccess& a = x.access();
    const GlobalAccess& b = y.access();
    if (!conflicting(a.kind, b.kind)) return std::nullopt;
    Conflict c;
    const bool same_warp = x.log == y.log && x.unit == y.unit && a.cta == b.cta && a.warp == b.warp;
    if (same_warp) {
        if (!different_lanes(a, b, c.address, c.lane_a, c.lane_b)) return std::nullopt;
    } else {
        c.address = std::max(a.lo, b.lo);
        c.lane_a = lowest(lanes_at(a, c.address));
        c.lane_b = lowest(lanes_at(b, c.address));
    }
    return c;
}

// Calls `pair(x, y)` for each two overlapping accesses of `refs` (sorted by address) that could
// conflict (one of them writes or is atomic), until it returns true.
template <class Pair>
bool sweep(const std::vector<Ref>& refs, Pair&& pair) {
    std::vector<std::size_t> active[3];  // by kind (read, write, atomic): positions in refs
    auto expire = [&](std::vector<std::size_t>& list, std::uint64_t lo) {
        list.erase(std::remove_if(list.begin(), list.end(), [&](std::size_t i) { return refs[i].access().hi() <= lo; }),
                   list.end());
    };
    for (std::size_t i = 0; i < refs.size(); ++i) {
        const GlobalAccess& a = refs[i].access();
        for (unsigned k = 0; k < 3; ++k) {
            expire(active[k], a.lo);
            if (!conflicting(a.kind, static_cast<GlobalAccessKind>(k))) continue;
            for (std::size_t j : active[k]) {
                if (pair(refs[j], refs[i])) return true;
            }
        }
        active[static_cast<unsigned>(a.kind)].push_back(i);
    }
    return false;
}

void sort_by_address(std::vector<Ref>& refs) {
    std::sort(refs.begin(), refs.end(), [](const Ref& x, const Ref& y) {
        const std::uint64_t a = x.access().lo, b = y.access().lo;
        if (a != b) return a < b;
        if (x.unit_number() != y.unit_number()) return x.unit_number() < y.unit_number();
        return x.index < y.index;
    });
}

std::vector<EventIndex::UnitEvents> unit_events(const GlobalRaceLog& log, std::size_t unit) {
    const GlobalRaceLog::Unit& u = log.units()[unit];
    const SyncEvent* e = log.events().data();
    return {{u.number, e + u.events_begin, e + u.events_end}};
}

GlobalRaceFound found(const Ref& x, const Ref& y, const Conflict& c) {
    GlobalRaceFound f;
    f.found = true;
    f.first = x.access();
    f.second = y.access();
    f.address = c.address;
    f.first_lane = c.lane_a;
    f.second_lane = c.lane_b;
    f.first_block = x.log->ctaids()[x.log->units()[x.unit].ctas_begin + f.first.cta];
    f.second_block = y.log->ctaids()[y.log->units()[y.unit].ctas_begin + f.second.cta];
    return f;
}

}  // namespace

void GlobalRaceLog::end_unit() {
    flush();
    Unit& u = units_.back();
    u.accesses_end = accesses_.size();
    u.events_end = events_.size();
    u.footprints_end = footprints_.size();
    // Only allocations it wrote (or made atomics on next to plain accesses) can hold a race.
    std::uint32_t racy = 0;  // footprints to compare, as a bit set of the first 32 (the rest: all)
    bool beyond = false;
    for (std::size_t i = u.footprints_begin; i < u.footprints_end; ++i) {
        const Footprint& f = footprints_[i];
        if (f.written() || (f.atomics() && f.read())) {
            if (i - u.footprints_begin < 32) {
                racy |= 1u << (i - u.footprints_begin);
            } else {
                beyond = true;
            }
        }
    }
    if (racy == 0 && !beyond) return;
    const std::size_t unit = units_.size() - 1;
    static thread_local std::vector<Ref> refs;  // kept from unit to unit
    refs.clear();
    for (std::size_t i = u.accesses_begin; i < u.accesses_end; ++i) {
        const unsigned fp = accesses_[i].footprint;
        if (fp >= 32 ? beyond : ((racy >> fp) & 1u) != 0) refs.push_back({this, unit, i});
    }
    if (refs.size() < 2) return;
    sort_by_address(refs);
    std::unique_ptr<EventIndex> index;
    bool atomic_kept = false;
    sweep(refs, [&](const Ref& x, const Ref& y) {
        const bool atomic = x.access().kind == GlobalAccessKind::atomic || y.access().kind == GlobalAccessKind::atomic;
        if (atomic && atomic_kept) return false;
        const auto c = conflict_of(x, y);
        if (!c || (x.access().cta == y.access().cta && ordered_in_cta(x.access(), y.access()))) return false;
        if (!index) index = std::make_unique<EventIndex>(unit_events(*this, unit));
        const Point a = point_of(x), b = point_of(y);
        if (index->before(a, b) || index->before(b, a)) return false;
        // This unit's events do not order them; another unit's may (a flag passed through
        // another block): the launch's end decides, over every unit's events. The first pair of
        // plain accesses is kept, and the first with an atomic until one is found.
        std::lock_guard<std::mutex> lock(launch_->mutex);
        launch_->unresolved.push_back({this, unit, x.index, y.index});
        atomic_kept = atomic_kept || atomic;
        return !atomic;
    });
}

GlobalRaceFound find_global_race(GlobalRaces& launch) {
    for (const GlobalRaceLog* log : launch.logs) {
        launch.limited = launch.limited || log->limited();
        launch.overflowed = launch.overflowed || log->overflowed();
    }
    if (launch.overflowed) return {};
    std::vector<EventIndex::UnitEvents> all_events;
    struct UnitRef {
        const GlobalRaceLog* log;
        std::size_t unit;
    };
    std::vector<UnitRef> units;
    for (const GlobalRaceLog* log : launch.logs) {
        for (std::size_t u = 0; u < log->units().size(); ++u) {
            const GlobalRaceLog::Unit& unit = log->units()[u];
            units.push_back({log, u});
            const SyncEvent* e = log->events().data();
            all_events.push_back({unit.number, e + unit.events_begin, e + unit.events_end});
        }
    }
    std::unique_ptr<EventIndex> index;
    auto ordered = [&](const Ref& x, const Ref& y) {
        if (!index) index = std::make_unique<EventIndex>(all_events);
        const Point a = point_of(x), b = point_of(y);
        return index->before(a, b) || index->before(b, a);
    };
    // The first race between plain accesses is reported, else the first with an atomic: the data
    // a kernel forgot to order says more than the counter it resets.
    GlobalRaceFound plain, with_atomic;
    auto is_atomic = [](const Ref& x, const Ref& y) {
        return x.access().kind == GlobalAccessKind::atomic || y.access().kind == GlobalAccessKind::atomic;
    };

    // Races between threads of one unit that its own events did not rule out.
    std::sort(launch.unresolved.begin(), launch.unresolved.end(),
              [](const GlobalRaces::Pair& p, const GlobalRaces::Pair& q) {
                  const std::uint64_t a = p.log->units()[p.unit].number, b = q.log->units()[q.unit].number;
                  return a != b ? a < b : p.b < q.b;
              });
    for (const GlobalRaces::Pair& p : launch.unresolved) {
        const Ref x{p.log, p.unit, p.a}, y{p.log, p.unit, p.b};
        GlobalRaceFound& slot = is_atomic(x, y) ? with_atomic : plain;
        if (!slot.found && !ordered(x, y)) slot = found(x, y, *conflict_of(x, y));
        if (plain.found) return plain;
    }

    // Between units: their footprints first. Spans a unit wrote (or made atomics in), then the
    // spans others read that overlap any of those.
    struct Span {
        std::uint64_t lo, hi;
        std::size_t unit;  // in units
        GlobalAccessKind kind;
    };
    std::vector<Span> spans;
    for (std::size_t u = 0; u < units.size(); ++u) {
        const GlobalRaceLog::Unit& unit = units[u].log->units()[units[u].unit];
        for (std::size_t i = unit.footprints_begin; i < unit.footprints_end; ++i) {
            const Footprint& f = units[u].log->footprints()[i];
            if (f.written()) spans.push_back({f.write_lo, f.write_hi, u, GlobalAccessKind::write});
            if (f.atomics()) spans.push_back({f.atomic_lo, f.atomic_hi, u, GlobalAccessKind::atomic});
        }
    }
    if (spans.empty()) return with_atomic;
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
    std::vector<std::pair<std::uint64_t, std::uint64_t>> written;  // their union
    for (const Span& s : spans) {
        if (!written.empty() && s.lo <= written.back().second) {
            written.back().second = std::max(written.back().second, s.hi);
        } else {
            written.emplace_back(s.lo, s.hi);
        }
    }
    auto overlaps_written = [&](std::uint64_t lo, std::uint64_t hi) {
        auto it = std::upper_bound(
            written.begin(), written.end(), lo,
            [](std::uint64_t v, const std::pair<std::uint64_t, std::uint64_t>& w) { return v < w.second; });
        return it != written.end() && it->first < hi;
    };
    for (std::size_t u = 0; u < units.size(); ++u) {
        const GlobalRaceLog::Unit& unit = units[u].log->units()[units[u].unit];
        for (std::size_t i = unit.footprints_begin; i < unit.footprints_end; ++i) {
            const Footprint& f = units[u].log->footprints()[i];
            if (f.read() && overlaps_written(f.read_lo, f.read_hi)) {
                spans.push_back({f.read_lo, f.read_hi, u, GlobalAccessKind::read});
            }
        }
    }
    // The contested ranges: where spans of two units overlap, one of them writing (or one making
    // atomics and the other reading). A sweep over the spans' ends: a range is contested when two
    // units are present and one writes, or atomics and reads are both present (every atomic
    // and read of one unit alone is no race between units).
    struct End {
        std::uint64_t at;
        std::size_t span;
        bool opens;
    };
    std::vector<End> ends;
    ends.reserve(2 * spans.size());
    for (std::size_t i = 0; i < spans.size(); ++i) {
        ends.push_back({spans[i].lo, i, true});
        ends.push_back({spans[i].hi, i, false});
    }
    std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) {
        return a.at != b.at ? a.at < b.at : a.opens < b.opens;  // a span closing before one opening there
    });
    std::vector<std::pair<std::uint64_t, std::uint64_t>> contested;
    std::unordered_map<std::size_t, unsigned> present;  // unit -> its open spans
    unsigned open[3] = {0, 0, 0};                       // by kind
    std::uint64_t from = 0;
    for (const End& e : ends) {
        const bool was = present.size() >= 2 && (open[1] > 0 || (open[0] > 0 && open[2] > 0));
        if (was && e.at > from) {
            if (!contested.empty() && contested.back().second >= from) {
                contested.back().second = e.at;
            } else {
                contested.emplace_back(from, e.at);
            }
        }
        const Span& sp = spans[e.span];
        if (e.opens) {
            ++open[static_cast<unsigned>(sp.kind)];
            ++present[sp.unit];
        } else {
            --open[static_cast<unsigned>(sp.kind)];
            if (--present[sp.unit] == 0) present.erase(sp.unit);
        }
        from = e.at;
    }
    if (contested.empty()) return with_atomic;
    auto contests = [&](std::uint64_t lo, std::uint64_t hi) {
        auto it = std::upper_bound(
            contested.begin(), contested.end(), lo,
            [](std::uint64_t v, const std::pair<std::uint64_t, std::uint64_t>& m) { return v < m.second; });
        return it != contested.end() && it->first < hi;
    };
    // The accesses there, of the units whose footprints reach them.
    std::vector<Ref> refs;
    for (std::size_t u = 0; u < units.size(); ++u) {
        const GlobalRaceLog& log = *units[u].log;
        const GlobalRaceLog::Unit& unit = log.units()[units[u].unit];
        std::vector<bool> reaches(unit.footprints_end - unit.footprints_begin, false);
        bool any = false;
        for (std::size_t i = unit.footprints_begin; i < unit.footprints_end; ++i) {
            const Footprint& f = log.footprints()[i];
            const bool r = (f.read() && contests(f.read_lo, f.read_hi)) ||
                           (f.written() && contests(f.write_lo, f.write_hi)) ||
                           (f.atomics() && contests(f.atomic_lo, f.atomic_hi));
            reaches[i - unit.footprints_begin] = r;
            any = any || r;
        }
        if (!any) continue;
        for (std::size_t i = unit.accesses_begin; i < unit.accesses_end; ++i) {
            const GlobalAccess& a = log.accesses()[i];
            if (reaches[a.footprint] && contests(a.lo, a.hi())) refs.push_back({&log, units[u].unit, i});
        }
    }
    sort_by_address(refs);
    sweep(refs, [&](const Ref& x, const Ref& y) {
        if (x.log == y.log && x.unit == y.unit) return false;  // compared when the unit ended
        const bool atomic = is_atomic(x, y);
        if (atomic && with_atomic.found) return false;
        const auto c = conflict_of(x, y);
        if (!c || ordered(x, y)) return false;
        (atomic ? with_atomic : plain) = found(x, y, *c);
        return !atomic;
    });
    return plain.found ? plain : with_atomic;
}

}  // namespace xcuda::cpu

// Happens-before for the global-memory race check (check/global_race.hpp): which of two accesses
// CUDA's memory model orders, from what a launch's threads did, not from the order this device
// happened to run them in.
//
// A *unit* (one CTA, a cluster, a cooperative grid: launch.cpp) runs on one worker, and keeps a
// clock: `tick` moves on at every synchronising instruction of the unit, `seg` counts the
// barriers each CTA completed. Every access and event records both, its CTA and its warp. Within
// a CTA, accesses in different barrier segments are ordered; within a warp, a __syncwarp() or a
// synchronising instruction of the warp between two accesses orders them (warps are the unit of
// these clocks: a warp's lanes are treated as one thread by releases and acquires, which can hide
// a race between lanes of one warp, never invent one).
//
// Everything else is ordered only by a release that an acquire sees (the PTX memory model's
// synchronizes-with), chained through any number of units:
// - a release is `st.release`/`atom.release`/`atom.acq_rel`, or a strong write (`volatile`,
//   `relaxed`, an atomic) by a warp that executed a fence (`__threadfence()`, `fence.*`,
//   `membar.*`) before it: it covers what its warp did before it, itself included, and what its
//   CTA did before its last barrier. (The model covers only what came before the fence; the
//   accesses between a fence and its flag are rare, and covering them can hide a race, never
//   report one. Covering the strong write itself lets the block that reads it last, as in the
//   threadfence reduction, reset the counter its atomics made.) Without a fence a strong write
//   releases nothing: data written before a flag that no __threadfence() precedes is unordered;
// - an acquire is any strong read (`ld.acquire`, `volatile` and `relaxed` loads, every atomic):
//   it sees every release of the same object that happened before it (the device runs each
//   object's releases in one order: a count says which came first). A fence after the read is not
//   required, as the threadfence-reduction sample's last block reads the others' sums after an
//   atomicInc alone; what it sees reaches its CTA's other warps at the next barrier;
// - shared-memory atomics, strong shared accesses and mbarrier operations synchronise the same
//   way, as objects local to their unit; a cluster barrier releases and acquires for its CTAs.
// Seeing every earlier release of an object, not only the one whose value it read, can order
// accesses that CUDA leaves unordered (a race goes unseen), never the reverse.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace xcuda::cpu {

inline constexpr std::uint8_t any_warp = 0xFF;  // an event of every warp of its CTA (a cluster barrier)

// Objects a unit synchronises on that no other unit can reach (shared memory, its cluster
// barrier) have keys with this bit; global objects are their address.
inline constexpr std::uint64_t unit_local_key = std::uint64_t{1} << 63;

// Where something happened in its unit.
struct Point {
    std::uint64_t unit = 0;  // launch-wide unit number
    std::uint32_t cta = 0;   // CTA index within the unit
    std::uint32_t tick = 0;
    std::uint32_t seg = 0;
    std::uint8_t warp = 0;  // within the CTA
};

// A release or an acquire.
struct SyncEvent {
    std::uint64_t key = 0;
    std::uint32_t index = 0;  // release: the releases of `key` before it; acquire: the releases it saw
    std::uint32_t tick = 0;   // release: what it covers is before this tick; acquire: itself
    std::uint32_t seg = 0;
    std::uint32_t cta = 0;
    std::uint32_t at = 0;   // the tick it happened at
    std::uint8_t warp = 0;  // any_warp: every warp of the CTA
    bool release = false;
};

// p (same CTA) is at or before release r's coverage point.
inline bool covered(const Point& p, const SyncEvent& r) {
    return r.warp == any_warp || r.warp == p.warp ? p.tick < r.tick : p.seg < r.seg;
}
// p (same CTA) is after acquire q.
inline bool sees(const SyncEvent& q, const Point& p) {
    return q.warp == any_warp || q.warp == p.warp ? q.tick <= p.tick : q.seg < p.seg;
}
// Acquire q (same CTA) is before release r's coverage point: what q saw, r passes on.
inline bool passes_on(const SyncEvent& q, const SyncEvent& r) {
    return q.warp == any_warp || r.warp == any_warp || q.warp == r.warp ? q.tick < r.tick : q.seg < r.seg;
}

// The global objects of one launch and how many releases each has had. Units run on several
// workers, so one stripe is locked for a release or an acquire (strong accesses and atomics: the
// plain loads and stores never come here); while nothing was released, an acquire locks nothing.
class SyncTable {
public:
    std::uint32_t release(std::uint64_t key);   // the releases of `key` before this one
    std::uint32_t releases(std::uint64_t key);  // so far
    void clear();

private:
    struct Stripe {
        std::mutex mutex;
        std::unordered_map<std::uint64_t, std::uint32_t> counts;
    };
    Stripe& stripe(std::uint64_t key) { return stripes_[(key >> 3) % stripes_.size()]; }
    std::array<Stripe, 32> stripes_;
    std::atomic<bool> any_{false};
};

// A warp's part of its unit's clock.
struct WarpClock {
    std::uint32_t events = 0;        // its synchronising instructions so far (orders its lanes' accesses)
    bool fenced = false;             // it executed a fence: its strong writes release
    std::uint64_t acquired_key = 0;  // its last acquire, to record a repeat once
    std::uint32_t acquired_count = 0;
    std::uint64_t released_key = ~std::uint64_t{0};  // its last release: a repeat with nothing new is not recorded
    std::uint32_t released_seg = 0;
    std::size_t released_after = 0;  // accesses the unit had recorded then
};

// The clock of the unit a worker runs, and the unit's local objects.
struct UnitClock {
    std::uint64_t unit = 0;
    std::uint32_t tick = 1;
    std::uint32_t warps_per_cta = 0;
    std::vector<std::uint32_t> seg;  // per CTA
    std::vector<WarpClock> warps;    // per warp: cta * warps_per_cta + index
    std::unordered_map<std::uint64_t, std::uint32_t> local_releases;

    void begin(std::uint64_t unit_number, std::size_t ctas, std::uint32_t warps_in_cta);
    WarpClock& warp(std::uint32_t cta, std::uint32_t index) { return warps[cta * warps_per_cta + index]; }
};

// Does a happen before b, over the events of a set of units (all of a launch's, or one unit's
// while the others still run: then an answer of false may be a chain it cannot see yet).
class EventIndex {
public:
    struct UnitEvents {
        std::uint64_t unit = 0;
        const SyncEvent* begin = nullptr;
        const SyncEvent* end = nullptr;
    };
    explicit EventIndex(const std::vector<UnitEvents>& units);
    bool before(const Point& a, const Point& b) const;

private:
    struct Ref {
        std::uint64_t unit;
        const SyncEvent* event;
    };
    // Per (unit, CTA): its events in order; per key: its acquires by the count they saw.
    std::unordered_map<std::uint64_t, std::vector<Ref>> by_cta_;
    std::unordered_map<std::uint64_t, std::vector<Ref>> acquires_;
    static std::uint64_t cta_key(std::uint64_t unit, std::uint32_t cta) { return unit << 24 ^ cta; }
};

}  // namespace xcuda::cpu

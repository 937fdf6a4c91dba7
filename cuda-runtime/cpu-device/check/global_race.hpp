// The race check of global memory: two accesses to the same bytes by different threads of one
// launch, at least one a write, neither atomic, that CUDA's memory model does not order
// (check/happens_before.hpp says what orders them: a barrier of their block, a __syncwarp() of
// their warp, a release an acquire sees, which is what a grid sync and a flag with
// __threadfence() are). Blocks run in parallel on the workers, so nothing is shared while they
// run: each worker appends its units' accesses to its own log, a warp instruction's lanes as
// runs of consecutive elements (one entry for 32 coalesced floats), with the allocations each
// unit read and wrote (its footprints). When a unit ends, its worker compares the unit's own
// accesses (threads of one block); when the launch ends, the last worker compares the units
// whose footprints on an allocation overlap, one of them writing. Launches on a stream are
// ordered, so nothing is kept from one launch to the next.
//
// A write of the value already there changes nothing another thread can see: it is not
// recorded, so it races with nothing (threads storing the same flag, or zeroing zeros). This is
// racecheck's lowest hazard level, which it reports as information and this check not at all.
// Atomics race with plain accesses to the same bytes, not with each other; each unit records
// the first atomics it makes on each of a few addresses, not every one.
#pragma once

#include "check/happens_before.hpp"

#include <xcuda/cpu/finding.hpp>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace xcuda::cpu {

enum class GlobalAccessKind : std::uint8_t { read, write, atomic };

// One warp instruction's accesses to consecutive elements (a run: the k-th lane of `lanes`
// accessed [lo + k * elem, lo + (k + 1) * elem)), or a read of the same bytes by several lanes.
struct GlobalAccess {
    std::uint64_t lo = 0;
    std::uint32_t bytes = 0;
    std::uint32_t lanes = 0;
    std::uint32_t pc = 0;
    std::uint32_t tick = 0;
    std::uint32_t seg = 0;
    std::uint32_t order = 0;  // its warp's __syncwarp()s and synchronising instructions before it
    std::uint32_t cta = 0;    // within its unit
    std::uint8_t warp = 0;    // within its CTA
    std::uint8_t elem = 0;    // 0: every lane of `lanes` accessed all of [lo, lo + bytes)
    GlobalAccessKind kind = GlobalAccessKind::read;
    std::uint8_t footprint = 0;  // its unit's footprint (allocation) index
    std::uint64_t hi() const noexcept { return lo + bytes; }
};

// What a unit read and wrote of one allocation.
struct Footprint {
    std::uint64_t base = 0, end = 0;  // the allocation
    std::uint64_t read_lo = ~std::uint64_t{0}, read_hi = 0;
    std::uint64_t write_lo = ~std::uint64_t{0}, write_hi = 0;
    std::uint64_t atomic_lo = ~std::uint64_t{0}, atomic_hi = 0;
    bool read() const noexcept { return read_lo < read_hi; }
    bool written() const noexcept { return write_lo < write_hi; }
    bool atomics() const noexcept { return atomic_lo < atomic_hi; }
};

struct GlobalRaces;

// A worker's record of the units it ran in one launch.
class GlobalRaceLog {
public:
    struct Unit {
        std::uint64_t number = 0;
        std::size_t accesses_begin = 0, accesses_end = 0;
        std::size_t events_begin = 0, events_end = 0;
        std::size_t footprints_begin = 0, footprints_end = 0;
        std::size_t ctas_begin = 0;  // into ctaids
    };
    static constexpr std::size_t max_footprints = 255;  // per unit; the last one takes every allocation after it
    static constexpr std::size_t max_atomics = 64;      // (address, warp) pairs per unit whose atomics are recorded

    // A new launch: nothing recorded; at most about `limit` accesses will be (40 bytes each). Past
    // it, reads of allocations the running unit has not written are left out, then past twice
    // it every access: the check sees less (races through them go unseen), memory stays bounded.
    void begin_launch(GlobalRaces& launch, std::size_t limit);
    static constexpr std::size_t max_events = std::size_t{1} << 22;  // past this, the launch goes unjudged
    bool limited() const { return limited_; }
    bool overflowed() const { return overflowed_; }
    // Unit `number` of `ctas` CTAs of `warps_per_cta` warps each; add_cta names each, in order.
    void begin_unit(std::uint64_t number, std::size_t ctas, std::uint32_t warps_per_cta);
    void add_cta(const Dim3& ctaid) { ctaids_.push_back(ctaid); }
    // The unit ended: its own accesses compared (a race needing other units to rule out is kept
    // for the launch's end).
    void end_unit();

    // Recording (exec/global_race_notes.hpp calls these). `allocation` is [base, end) of the
    // access's allocation; a lane's access extends the run the same instruction of the same warp
    // began when it continues it.
    struct Where {
        std::uint32_t pc, cta, warp_index, warp_syncs;
        const void* warp;  // identity of the warp executing
        std::uint64_t base, end;
    };
    void note(const Where& at, std::uint64_t address, unsigned size, unsigned lane, GlobalAccessKind kind) {
        if (pending_valid_ && at.pc == pending_.pc && at.warp == pending_warp_ && kind == pending_.kind &&
            lane > pending_last_lane_ && at.base == pending_base_) {
            if (size == pending_.elem && address == pending_.lo + pending_.bytes) {
                pending_.bytes += size;
                pending_.lanes |= 1u << lane;
                pending_last_lane_ = lane;
                return;
            }
            if (kind == GlobalAccessKind::read && address == pending_.lo && size == pending_.bytes &&
                (pending_.elem == 0 || pending_.lanes == (1u << pending_last_lane_))) {
                pending_.elem = 0;  // the same bytes for several lanes
                pending_.lanes |= 1u << lane;
                pending_last_lane_ = lane;
                return;
            }
        }
        start(at, address, size, lane, kind);
    }
    // A whole warp's 4-byte accesses at addresses[l] (every lane of `lanes`), at once.
    void note_warp(const Where& at, const std::uint64_t* addresses, std::uint32_t lanes, unsigned size,
                   GlobalAccessKind kind);
    // A whole warp's accesses of `size` bytes each, lane l at lo + l * size: note_warp of those
    // addresses (one run), without them.
    void note_consecutive_warp(const Where& at, std::uint64_t lo, unsigned size, GlobalAccessKind kind);
    // An atomic of `lane` (recorded the first few times per address and unit).
    void note_atomic(const Where& at, std::uint64_t address, unsigned size, unsigned lane);

    // Synchronisation of the running unit (check/happens_before.hpp).
    void fence(std::uint32_t cta, std::uint32_t warp);
    void acquire(std::uint32_t cta, std::uint32_t warp, std::uint64_t key);
    // A strong write: a release when `explicit_release` (.release/.acq_rel) or after a fence of its warp.
    void release(std::uint32_t cta, std::uint32_t warp, std::uint64_t key, bool explicit_release);
    void barrier_completed(std::uint32_t cta);
    // A cluster barrier: every CTA of the unit releases to and acquires from the others.
    void cluster_barrier_completed();
    // A warp's order counter for lanes of one warp (its __syncwarp()s plus its own events).
    std::uint32_t order(std::uint32_t cta, std::uint32_t warp, std::uint32_t warp_syncs) {
        return warp_syncs + clock_.warp(cta, warp).events;
    }

    // For the launch's analysis.
    const std::vector<Unit>& units() const { return units_; }
    const std::vector<GlobalAccess>& accesses() const { return accesses_; }
    const std::vector<SyncEvent>& events() const { return events_; }
    const std::vector<Footprint>& footprints() const { return footprints_; }
    const std::vector<Dim3>& ctaids() const { return ctaids_; }

private:
    void start(const Where& at, std::uint64_t address, unsigned size, unsigned lane, GlobalAccessKind kind);
    void flush();
    std::uint8_t footprint_of(std::uint64_t base, std::uint64_t end);
    void add(const GlobalAccess& a);
    GlobalAccess entry(const Where& at, GlobalAccessKind kind);
    void record(const SyncEvent& e);
    // record() of a release or acquire of `key` by `warp` of `cta`, at the next tick.
    void record_sync(std::uint64_t key, std::uint32_t index, std::uint32_t cta, std::uint8_t warp, bool release);
    bool global_key(std::uint64_t key) const { return (key & unit_local_key) == 0; }

    GlobalRaces* launch_ = nullptr;
    std::size_t limit_ = 0;
    bool limited_ = false, overflowed_ = false;
    std::vector<Unit> units_;
    std::vector<GlobalAccess> accesses_;
    std::vector<SyncEvent> events_;
    std::vector<Footprint> footprints_;
    std::vector<Dim3> ctaids_;
    UnitClock clock_;
    // The run being built, and the footprint last used.
    GlobalAccess pending_;
    bool pending_valid_ = false;
    const void* pending_warp_ = nullptr;
    unsigned pending_last_lane_ = 0;
    std::uint64_t pending_base_ = 0;
    std::uint64_t footprint_base_ = 0;
    std::uint8_t footprint_index_ = 0;
    // Atomics recorded by this unit: (address, warp) pairs seen, up to a few.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> atomics_seen_;
};

// One launch's race check: the global objects' releases and the workers' logs.
struct GlobalRaces {
    SyncTable table;
    std::mutex mutex;
    std::vector<GlobalRaceLog*> logs;  // one per worker that ran
    // Intra-unit conflicts the unit's own events could not rule out (with their logs): the first of
    // each unit, checked again over every unit's events when the launch ends.
    struct Pair {
        const GlobalRaceLog* log;
        std::size_t unit, a, b;  // unit index in log, access indices in log
    };
    std::vector<Pair> unresolved;
    // Set by find_global_race: a log left accesses out (limited), or dropped events, so that the
    // launch was not judged (overflowed).
    bool limited = false, overflowed = false;
};

// What the launch's end found: the two accesses of the first race, in the units' terms.
struct GlobalRaceFound {
    GlobalAccess first, second;  // `second` is reported as the access, `first` as the other one
    std::uint64_t address = 0;   // the first byte they share where their threads differ
    Dim3 first_block, second_block;
    unsigned first_lane = 0, second_lane = 0;
    bool found = false;
};
// Compares the units of all the logs (every worker finished): the first race, if any.
GlobalRaceFound find_global_race(GlobalRaces& launch);

}  // namespace xcuda::cpu

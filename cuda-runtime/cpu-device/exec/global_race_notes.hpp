// Where the global-memory race check (check/global_race.hpp) hears of accesses and
// synchronisation: one call at each place an instruction touches global memory, fences or
// synchronises, doing nothing while the checks are off (x.races is nullptr then).
#pragma once

#include "check/global_race.hpp"
#include "exec/run/exec_context.hpp"

#include <cstdint>

namespace xcuda::cpu {

// The access at `address`, just checked: its allocation is the cached one, else the one checked
// access by access (the device heap, unwritten bytes).
inline GlobalRaceLog::Where race_site(const Exec& x, std::uint64_t address) {
    if (address - x.ok_begin < x.ok_end - x.ok_begin)
        return {x.pc, x.warp->cta, x.warp->index, x.warp->warp_syncs, x.warp, x.ok_begin, x.ok_end};
    return {x.pc, x.warp->cta, x.warp->index, x.warp->warp_syncs, x.warp, x.unchecked_begin, x.unchecked_end};
}

// Whether `address`, just resolved by a generic access, is global memory (the allocation its
// check found; shared and local windows lie outside device memory).
inline bool resolved_to_global(const Exec& x, std::uint64_t address) {
    return address - x.ok_begin < x.ok_end - x.ok_begin ||
           address - x.unchecked_begin < x.unchecked_end - x.unchecked_begin;
}

// A plain (weak) access by `lane`, after its checks passed. A write of the bytes already there
// changes nothing and is not recorded: callers pass `changes` false for it.
inline void note_global_read(Exec& x, std::uint64_t address, unsigned size, unsigned lane) {
    if (x.races != nullptr) x.races->note(race_site(x, address), address, size, lane, GlobalAccessKind::read);
}
inline void note_global_write(Exec& x, std::uint64_t address, unsigned size, unsigned lane, bool changes) {
    if (x.races != nullptr && changes)
        x.races->note(race_site(x, address), address, size, lane, GlobalAccessKind::write);
}
// A warp instruction's lanes at once: addresses[l] for each lane of `lanes`.
inline void note_global_warp(Exec& x, const std::uint64_t* addresses, std::uint32_t lanes, unsigned size,
                             GlobalAccessKind kind) {
    if (x.races != nullptr && lanes != 0)
        x.races->note_warp(race_site(x, addresses[__builtin_ctz(lanes)]), addresses, lanes, size, kind);
}

// note_global_warp of a whole warp's consecutive elements, lane l at lo + l * size.
inline void note_global_consecutive_warp(Exec& x, std::uint64_t lo, unsigned size, GlobalAccessKind kind) {
    if (x.races != nullptr) x.races->note_consecutive_warp(race_site(x, lo), lo, size, kind);
}

// A strong read (volatile, relaxed or acquire load) of global memory: an acquire.
inline void note_global_acquire(Exec& x, std::uint64_t address) {
    if (x.races != nullptr) x.races->acquire(x.warp->cta, x.warp->index, address);
}
// A strong write: a release when `release` (.release semantics) or after a fence of its warp.
inline void note_global_strong_write(Exec& x, std::uint64_t address, bool release) {
    if (x.races != nullptr) x.races->release(x.warp->cta, x.warp->index, address, release);
}
// An atomic on global memory by `lane`: it releases as a strong write does, acquires, and is
// recorded to race with plain accesses of the same bytes. Blocks run on parallel workers, so the
// release is counted before the atomic changes memory and the acquire after it: an atomic that
// sees another's result then sees its release (the last block of a threadfence reduction sees
// every other block's atomicInc).
inline void note_global_atomic_release(Exec& x, std::uint64_t address, unsigned size, unsigned lane, bool release) {
    x.races->note_atomic(race_site(x, address), address, size, lane);
    x.races->release(x.warp->cta, x.warp->index, address, release);
}
inline void note_global_atomic_acquire(Exec& x, std::uint64_t address) {
    x.races->acquire(x.warp->cta, x.warp->index, address);
}
inline void note_fence(Exec& x) {
    if (x.races != nullptr) x.races->fence(x.warp->cta, x.warp->index);
}
// A synchronising access of shared memory (word `word` of CTA `cta` of the unit): an object no
// other unit reaches. Its releases are explicit: atomics and release stores.
inline void note_shared_sync(Exec& x, std::uint32_t cta, std::uint32_t word, bool acquire, bool release) {
    if (x.races == nullptr) return;
    const std::uint64_t key = unit_local_key | std::uint64_t{cta} << 32 | word;
    if (acquire) x.races->acquire(x.warp->cta, x.warp->index, key);
    if (release) x.races->release(x.warp->cta, x.warp->index, key, true);
}
// Device malloc and free: a free releases the heap, a malloc acquires it, so a block freed and
// handed out again within a launch is not two threads' race.
inline constexpr std::uint64_t device_heap_key = std::uint64_t{1} << 62;
inline void note_heap_free(Exec& x) {
    if (x.races != nullptr) x.races->release(x.warp->cta, x.warp->index, device_heap_key, true);
}
inline void note_heap_malloc(Exec& x) {
    if (x.races != nullptr) x.races->acquire(x.warp->cta, x.warp->index, device_heap_key);
}

// A launch from the device copies its parameter buffer, whose slot the next launch may be handed
// (another block's, at once): the launch releases the slot, taking it acquires it, so the two
// threads' writes of the same slot are ordered as the device runtime orders them.
inline constexpr std::uint64_t parameter_buffer_key = std::uint64_t{1} << 61;
inline void note_parameter_buffer_taken(Exec& x, std::uint32_t slot) {
    if (x.races != nullptr) x.races->acquire(x.warp->cta, x.warp->index, parameter_buffer_key | slot);
}
inline void note_parameter_buffer_launched(Exec& x, std::uint32_t slot) {
    if (x.races != nullptr) x.races->release(x.warp->cta, x.warp->index, parameter_buffer_key | slot, true);
}

// The launch's end (every unit done, nothing failed): the first race between units, or one
// within a unit that only every unit's events could rule out, becomes the launch's finding.
void check_global_races(Exec& x, GlobalRaces& races);

}  // namespace xcuda::cpu

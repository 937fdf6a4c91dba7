// Turning a lane's address in a state space into a host pointer, checked. Every access of an
// emulated kernel comes through here: an address that fails its check is never dereferenced;
// the finding is recorded and the caller stops the instruction.
#pragma once

#include "check/shared_race.hpp"
#include "exec/run/exec_context.hpp"

#include <cstddef>
#include <cstdint>

namespace xcuda::cpu {

// Makes the live allocation holding all of [lo, end) the one the fast paths know (a warp's
// accesses alternate between arrays: x[i], then y[i]); false, changing nothing and finding
// nothing, when no one allocation holds it all (the per-lane path then says what is wrong).
bool cover_range(Exec& x, std::uint64_t lo, std::uint64_t end);

// Slow paths (memory_access.cpp): the allocation lookup, and the findings.
std::byte* global_address_slow(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                               MemorySpace space);

// A global (or const, or generic-resolved-to-global) access: the host pointer, or nullptr after a
// finding. The fast path is the allocation the last access hit.
inline std::byte* global_address(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                                 MemorySpace space = MemorySpace::global) {
    if (address >= x.ok_begin && address <= x.ok_end - size && (!x.checks || (address & (size - 1)) == 0)) {
        return reinterpret_cast<std::byte*>(address);
    }
    return global_address_slow(x, address, size, lane, access, space);
}

// How an access synchronises (race_clock.hpp). Weak accesses are race-checked; strong ones
// (volatile, relaxed, acquire, release; atomics always acquire and release) are not, and order
// other accesses instead.
enum class Strength : std::uint8_t { weak, acquire, release };

// A shared::cluster address: (rank + 1) << cluster_rank_shift | offset names CTA `rank`'s window
// (mapa makes them); an offset without rank bits is the executing CTA's own window.
inline constexpr std::uint64_t cluster_rank_shift = 24;
inline constexpr std::uint64_t window_offset_mask = (std::uint64_t{1} << cluster_rank_shift) - 1;

// A shared-window access (an offset; with clusters, a shared::cluster address names another CTA's
// window). Weak reads are race-checked here; writes by shared_store, which needs the value.
std::byte* shared_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access,
                          Strength strength = Strength::weak);
// Writes `size` bytes of `value` to the shared window at `offset`, checked; false after a finding.
bool shared_store(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, const std::byte* value,
                  Strength strength = Strength::weak);

// Reports a race that `lane`'s access of the shared window at `offset` met (SharedShadow's
// read or write said so): the finding shared_address and shared_store make.
void report_shared_race(Exec& x, const RaceConflict& conflict, Access access, std::uint64_t offset, unsigned size,
                        unsigned lane);

// A local-window access (an offset in the lane's own local memory).
std::byte* local_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access);

// A generic address: the CTA's shared window, the lane's local window, else global memory.
// Writes go through generic_store (shared writes need the value for the race check).
std::byte* generic_address(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                           Strength strength = Strength::weak);
bool generic_store(Exec& x, std::uint64_t address, unsigned size, unsigned lane, const std::byte* value,
                   Strength strength = Strength::weak);

// The kernel's parameter buffer (uniform), by offset.
std::byte* kernel_param_address(Exec& x, std::uint64_t offset, unsigned size, unsigned lane, Access access);

// The allocation holding a global address and which kernel parameter points into it, for reports
// made after the access (the global-memory race check's).
Region global_region(const Exec& x, std::uint64_t address);

// Which space a generic address falls in for this lane (for isspacep and cvta.to).
MemorySpace generic_space(const Exec& x, std::uint64_t address, unsigned lane);

// The generic address of shared offset 0 of the current CTA, and of lane's local offset 0.
std::uint64_t shared_window_base(const Exec& x);
std::uint64_t local_window_base(const Exec& x, unsigned lane);

}  // namespace xcuda::cpu

// The memory checks beyond an access's bounds in the state spaces (memory_access.cpp calls them
// where an access falls outside the cached allocation): the device heap's blocks, bytes nothing
// wrote (global and shared), red zones between shared variables, atomics that read unwritten
// memory, and the pointer an access outside every allocation came from. Kept apart from the
// access paths so those stay short.
#pragma once

#include "exec/run/exec_context.hpp"
#include "exec/memory_access.hpp"

#include <xcuda/cpu/finding.hpp>

#include <cstddef>
#include <cstdint>

namespace xcuda::cpu {

// Helpers memory_access.cpp defines, for the findings both files make.
Finding memory_finding(FindingKind kind, Access access, MemorySpace space, unsigned size, std::uint64_t address);
// The allocation `a` as a report names it: a module variable, or memory with the kernel parameter
// that points into it, and where `address` lies in it.
Region region_of(const Exec& x, const Allocation& a, std::uint64_t address);
// The shared variable of the kernel's window that `offset` lies in or nearest to.
Region shared_region(const Exec& x, std::uint64_t offset);
// The CTA whose window a shared offset names (another of the cluster's for a mapped one), or nullptr.
inline Cta* cta_of_window(Exec& x, std::uint64_t offset) {
    const std::uint64_t rank = offset >> cluster_rank_shift;
    if (rank == 0) return x.cta;
    // A cluster's CTAs run together on this worker, in rank order within their cluster.
    const std::size_t first = x.cta - x.ctas->data() - x.cta->cluster_rank;
    const std::size_t index = first + (rank - 1);
    if (rank - 1 >= x.launch->spec->cluster.count() || index >= x.ctas->size()) return nullptr;
    return &(*x.ctas)[index];
}

// A shared access inside the window (bounds and alignment checked) of bytes not all written: a red
// zone is out of bounds; writes and atomics mark their bytes; a read of unwritten bytes is held
// (check/shared_state.hpp). False after a finding.
bool shared_state_checks(Exec& x, Cta& cta, std::uint64_t offset, std::uint64_t within, unsigned size, unsigned lane,
                         Access access);

// A global access inside the device heap's region: its blocks decide. nullptr after a finding.
std::byte* heap_access(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access, MemorySpace space);
// A global access of allocation `a`, some of whose bytes nothing wrote yet: reads are checked,
// writes mark their bytes. nullptr after a finding.
std::byte* unwritten_access(Exec& x, const Allocation& a, std::uint64_t address, unsigned size, unsigned lane,
                            Access access, MemorySpace space);
// The finding of a global access in no allocation (nor a freed one).
void outside_every_allocation(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access,
                              MemorySpace space);

// Before an atomic that reads the value it changes: false, after a finding, when nothing wrote
// those bytes yet (the atomic's own access then counts as a write).
bool atomic_operand_written(Exec& x, std::uint64_t address, unsigned size, unsigned lane, MemorySpace space);

// A read of shared memory nothing wrote, held by the CTA's check state, is reported now: the CTA
// completed a barrier or ended without another thread writing those bytes.
void report_held_read(Exec& x, Cta& cta);

}  // namespace xcuda::cpu

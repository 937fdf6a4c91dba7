// The race check's clock: one counter per worker (its CTAs, a cluster's or a cooperative grid's,
// share it), which every shared access records and which moves on at each synchronisation. A
// thread is ordered after the accesses below its horizon: its CTA's last barrier (bar.sync, a
// cluster barrier, the CTA's start), or the release it last acquired on a word of shared memory
// (atomics, acquire/release and volatile accesses, mbarrier arrivals and waits). Acquiring a word
// orders the acquirer after every access before the release, not only the releaser's: races that
// only such an unrelated ordering would hide can go unseen, but a correctly synchronised kernel
// is never reported. The horizon is kept per warp, as a warp's lanes acquire together. 64 bits:
// the clock never wraps around, so a shadow never needs clearing.
#pragma once

#include "exec/run/exec_context.hpp"

#include <cstdint>

namespace xcuda::cpu {

// The current warp's horizon.
inline std::uint64_t race_horizon(const Exec& x) noexcept {
    return x.cta->barrier_epoch > x.warp->acquired_epoch ? x.cta->barrier_epoch : x.warp->acquired_epoch;
}

// A strong access of `word` of `cta`'s window by the current warp: acquire, release or both
// (atomics), when the race check is on.
void synchronise_on(Exec& x, Cta& cta, std::uint32_t word, bool acquire, bool release);

}  // namespace xcuda::cpu

// The recorder behind a traced launch (include/xcuda/cpu/access_trace.hpp). A traced launch runs
// on one worker, so one recorder sees every step and access in order. Its calls sit on the slow
// paths only: a traced launch keeps the fast paths' windows empty (launch.cpp), and the shared
// loads' warp-wide path is not taken (ops_memory.cpp).
#pragma once

#include "exec/run/exec_context.hpp"

#include <xcuda/cpu/access_trace.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace xcuda::cpu {

class AccessRecorder {
public:
    // A global access about to be made (checked or not yet): a read's value is the memory now, a
    // write's is read back at the next record or at the end, when the store has been made.
    void global(Exec& x, std::uint64_t address, unsigned size, unsigned lane, Access access);
    // A shared access that passed its checks, at host pointer `p`: `value` is what a write stores
    // (nullptr for reads and atomics, whose value is read at `p`).
    void shared(Exec& x, std::uint64_t window_offset, const std::byte* p, unsigned size, unsigned lane, Access access,
                const std::byte* value);
    // The lanes of the current warp that execute the instruction at `pc`.
    void step(const Exec& x, std::uint32_t pc, std::uint32_t lanes);

    // The launch's trace: pcs turned into sites, global addresses into kernel parameters and
    // offsets, shared offsets into variables.
    std::shared_ptr<AccessTrace> build(const LaunchState& L);

private:
    struct Raw {
        AccessTrace::Memory m;
        std::uint32_t pc = 0;
        std::uint64_t address = 0;  // global: the address; shared: the offset in the CTA's window
    };
    void settle();
    bool full(std::size_t size, std::size_t limit);
    Raw* add(const Exec& x, unsigned lane, Access access, MemorySpace space, unsigned size, std::uint64_t address);

    std::vector<AccessTrace::Step> steps_;  // .site holds the pc until build()
    std::vector<Raw> accesses_;
    Raw* pending_ = nullptr;  // the last write or atomic, whose value is read back at the next record
    const std::byte* pending_at_ = nullptr;
    bool truncated_ = false;
};

}  // namespace xcuda::cpu

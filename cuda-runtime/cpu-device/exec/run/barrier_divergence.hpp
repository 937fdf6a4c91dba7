// Divergent barriers as compute-sanitizer's synccheck judges them (bench/probes/checks: what it
// reported on an H100 for each probe s1-s9):
// - "Divergent thread(s) in warp": lanes of a warp arrive at an aligned barrier (__syncthreads)
//   while other lanes of the warp are still running and will come back to where the barrier
//   leads (they skipped it: `if (threadIdx.x < 16) __syncthreads();`), or wait at another
//   barrier. Lanes that exit instead are not waited for (`if (i >= n) return;` before a barrier
//   is fine): on a GPU they would have left the warp at an EXIT, on the CPU device their path
//   from where they were meets nothing the barrier's lanes run after it but an exit.
// - "Divergent thread(s) in block": the block's threads, whole warps, wait at different barrier
//   instructions when the barrier completes (an if/else with a barrier on each side; warps that
//   skipped one barrier waiting at the next). Reported at the later barrier in the code, naming
//   both. Whole warps that exited are not waited for (their loops ran a different number of times).
// Both are findings only with the checks on; a barrier that can never complete is always one.
#pragma once

#include "exec/run/exec_context.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace xcuda::cpu {

// Which pcs of a function lead back into what a barrier runs after it: cached per worker, cleared
// when a launch starts (its program may be another).
class BarrierPaths {
public:
    void clear() { cache_.clear(); }
    // Whether lanes at `from` (same function and frame as the barrier at `barrier`) will run an
    // instruction other than an exit that the barrier's lanes run after it.
    bool rejoin(const Program& p, std::uint32_t barrier, std::uint32_t from);

private:
    std::unordered_map<std::uint64_t, bool> cache_;
};

// Group `arrived` of warp `w` just arrived at an aligned barrier: the lanes it expects with it
// (its own and the warp's live lanes that will rejoin it), and where the first expected lanes
// that are not here were (`absent_pc`).
std::uint32_t expected_at_barrier(Exec& x, BarrierPaths& paths, const Warp& w, const Group& arrived,
                                  std::uint32_t& absent_pc);

// Every thread barrier `waiting` waits for has arrived (groups of warps of `cta`, each a warp and
// the index of its group): a finding when they diverged, and true then.
bool divergent_at_barrier(Exec& x, Cta& cta, const std::vector<std::pair<Warp*, std::size_t>>& waiting,
                          bool whole_block);

// Where thread `thread` (linear, in CTA `cta` of the running unit) waits at a barrier: for a race
// report, when the other thread skipped that barrier. No file when it is not waiting at one.
SourceLocation barrier_waited_at(const Exec& x, std::uint32_t cta, std::uint32_t thread);

// "threads 16-31" / "thread 35": linear thread indices of a block, in ranges.
std::string threads_text(const std::vector<std::uint32_t>& threads);
std::string lanes_text(const Warp& w, std::uint32_t lanes);

}  // namespace xcuda::cpu

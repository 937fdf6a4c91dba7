// A warp of 32 lanes and its divergence state.
//
// Divergent lanes are kept as groups (pc, frame, mask). The group with the lowest pc runs first;
// when it reaches the pc of another group in the same frame, the two merge. Structured code thus
// reconverges where its branches join, as on a GPU. A call gives the calling group a new frame
// (registers and params of the callee); groups in different frames never merge.
#pragma once

#include "exec/decode/program.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace xcuda::cpu {

struct Frame {
    std::uint32_t function = 0;
    std::byte* regs = nullptr;     // FunctionInfo::frame_bytes, 64-byte aligned
    std::uint32_t local_base = 0;  // this frame's .local variables start here in each lane's local window
    std::int32_t caller = -1;      // frame index of the caller (-1: the kernel's frame)
    std::uint32_t return_pc = 0;   // in the caller
    std::uint32_t call_site = 0;   // Program::calls index, for copying results back
    std::uint32_t lanes = 0;       // lanes still in this frame (the frame is free at 0)
    bool in_use = false;
};

enum class GroupState : std::uint8_t {
    ready,
    at_barrier,     // arrived at a CTA barrier (pc is the barrier), waits for its completion
    at_warp_sync,   // bar.warp.sync: waits for the rest of its membermask
    at_collective,  // a shfl/vote/match/redux whose membermask names lanes elsewhere
    at_cluster_barrier,
};

struct Group {
    std::uint32_t pc = 0;
    std::uint32_t mask = 0;
    std::uint16_t frame = 0;
    GroupState state = GroupState::ready;
    std::uint32_t wait_mask = 0;  // at_warp_sync / at_collective: the lanes it needs; at_barrier: the lanes it expects
    std::uint32_t absent_pc = 0;  // at_barrier: where the lanes it expects but lacked were when it arrived
};

struct Warp {
    std::uint32_t index = 0;           // warp index within its CTA
    std::uint32_t cta = 0;             // CTA index within the group of CTAs this worker runs
    std::uint32_t first_thread = 0;    // linear thread index of lane 0 in the CTA
    std::uint32_t exists = 0;          // lanes that are threads of the CTA (the last warp may be partial)
    std::uint32_t live = 0;            // lanes not yet exited
    std::vector<Group> groups;         // groups[0] runs next; empty when the warp has exited
    std::vector<Frame> frames;         // frames[0]: the kernel's; a frame with no lanes left is free for reuse
    std::uint32_t warp_syncs = 0;      // completed __syncwarp()s, ordering accesses of its lanes for the race check
    std::uint64_t acquired_epoch = 0;  // the last release its lanes acquired (race_clock.hpp)
    std::uint32_t local_stride = 0;    // bytes of local memory per lane
    std::byte* local = nullptr;        // lane l's local window is local + l * local_stride
    bool polled = false;               // read memory with .volatile/.acquire since its last backward branch
    bool done() const noexcept { return live == 0; }
};

}  // namespace xcuda::cpu

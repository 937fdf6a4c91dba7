// Theoretical occupancy, computed here from per-kernel usage and per-architecture limits so
// it works with no GPU (after `%%cuda --resources`) and explains *which* limit caps it.
//
// The formulas are those of NVIDIA's occupancy calculator (cuda_occupancy.h), for
// compute capability 7.0 and newer, with the default shared-memory carveout (the driver
// may pick the largest carveout) and no partitioned global caching:
//
//   warps/block       W  = ceil(block / warp_size)
//   by threads        Bw = floor(max_threads_per_sm / warp_size / W)
//   by blocks         Bb = max_blocks_per_sm
//   by registers      regs/warp R = roundup(regs_per_thread * warp_size, reg_alloc_unit);
//                     0 if R * roundup(W, sub_partitions) > regs_per_block (hardware check)
//                     or regs_per_thread > max_regs_per_thread;
//                     else Br = floor(floor(regs_per_sm / sub_partitions / R) * sub_partitions / W)
//   by shared memory  S  = roundup(static + dynamic + reserved_per_block, shared_alloc_unit);
//                     0 if S > shared_per_block_optin + reserved_per_block;
//                     else Bs = floor(shared_per_sm / S)   (unbounded when S == 0)
//   active blocks     B  = min(Bw, Bb, Br, Bs);  occupancy = B * W / (max_threads_per_sm / warp_size)
//
// A block over max_threads_per_block, or one that cannot fit at all, gives B = 0 and a
// sentence in `Occupancy::problem` naming the resource and the fix.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::report {

// The limits that differ between architectures: a row of the built-in table.
struct SmLimits {
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    std::size_t shared_per_sm = 0;              // largest carveout, bytes
    std::size_t shared_per_block_optin = 0;     // usable by one block after opting in, bytes
    std::size_t shared_alloc_unit = 128;        // bytes
    std::size_t shared_reserved_per_block = 0;  // the driver's per-block reservation (sm_80+: 1 KiB)
};

// Those and the limits common to every architecture the table knows.
struct DeviceLimits : SmLimits {
    std::string arch;  // "sm_90"
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int regs_per_sm = 65536;
    int regs_per_block = 65536;
    int max_regs_per_thread = 255;
    int reg_alloc_unit = 256;  // registers, allocated per warp
    int sub_partitions = 4;    // register file is split across these
};

// Built-in table (CUDA Programming Guide compute-capability tables and cuda_occupancy.h)
// for sm_70, 72, 75, 80, 86, 87, 89, 90, 100, 103, 120, 121. Accepts
// "sm_90", "sm_90a", "compute_90", "90" or "9.0". nullopt for anything else.
std::optional<DeviceLimits> limits_for_arch(std::string_view arch);
// The same, by compute capability.
std::optional<DeviceLimits> limits_for_cc(int major, int minor);
// The archs the table knows, e.g. for "unknown arch sm_61; known: sm_70, ...".
std::vector<std::string> known_archs();

enum class Limiter { registers, shared_memory, block_size, blocks_per_sm };

// "registers", "shared memory", "block size (threads per SM)", "blocks per SM".
std::string_view limiter_name(Limiter limiter);

struct Occupancy {
    int block_size = 0;
    int warps_per_block = 0;
    int active_blocks = 0;  // per SM
    int active_warps = 0;   // per SM
    int max_warps = 0;      // per SM
    double fraction = 0.0;  // active_warps / max_warps
    // Blocks per SM each resource alone would allow (INT_MAX when it does not bind).
    int blocks_by_threads = 0;
    int blocks_by_block_limit = 0;
    int blocks_by_registers = 0;
    int blocks_by_shared = 0;
    int registers_per_block = 0;       // allocated
    std::size_t shared_per_block = 0;  // allocated, reservation included
    // Every resource whose limit equals active_blocks, in the order of the enum; empty
    // only when the block cannot launch at all.
    std::vector<Limiter> limiters;
    std::string problem;  // non-empty iff active_blocks == 0: why, and the fix
};

Occupancy occupancy(const DeviceLimits& limits, int regs_per_thread, std::size_t static_shared, int block_size,
                    std::size_t dynamic_shared = 0);

// Block size (a multiple of warp_size, up to max_threads_per_block) with the highest
// occupancy; among equals the largest, as cudaOccMaxPotentialBlockSize chooses.
// dynamic_shared is per block and the same for every candidate size.
Occupancy best_block_size(const DeviceLimits& limits, int regs_per_thread, std::size_t static_shared,
                          std::size_t dynamic_shared = 0);

// One or two sentences for a user: the occupancy, what caps it, and what to change
// ("Occupancy 50% at 256 threads/block, capped by registers (72/thread). 64 registers or
// fewer (e.g. __launch_bounds__ or -maxrregcount) would reach 62%...").
std::string occupancy_advice(const DeviceLimits& limits, int regs_per_thread, const Occupancy& at_block,
                             const Occupancy& best);

}  // namespace xcuda::report

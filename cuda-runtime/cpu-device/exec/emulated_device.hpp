// The device the CPU device pretends to be: an H100 SXM-class sm_90. Its limits are the ones a
// kernel written for a real H100 meets (launch validation, occupancy, attributes), not the
// host's: a notebook's launch configuration that fails here fails on the GPU too.
#pragma once

#include <cstddef>

namespace xcuda::cpu::emulated {

inline constexpr int driver_version = 13000;  // cuDriverGetVersion: CUDA 13.0

inline constexpr int sm_count = 132;
inline constexpr int warp_size = 32;
inline constexpr int max_threads_per_block = 1024;
inline constexpr unsigned max_block_dims[3] = {1024, 1024, 64};
inline constexpr unsigned max_grid_dims[3] = {2147483647, 65535, 65535};
inline constexpr int max_threads_per_sm = 2048;
inline constexpr int max_blocks_per_sm = 32;
inline constexpr int registers_per_sm = 65536;
inline constexpr int registers_per_block = 65536;
inline constexpr int max_registers_per_thread = 255;
inline constexpr int shared_per_block = 48 * 1024;
inline constexpr int shared_per_block_optin = 227 * 1024;
inline constexpr int shared_per_sm = 228 * 1024;
inline constexpr int reserved_shared_per_block = 1024;
inline constexpr int constant_bytes = 64 * 1024;
inline constexpr int clock_khz = 1980000;
inline constexpr int memory_clock_khz = 2619000;  // HBM3 of the H100 SXM5 80GB
inline constexpr int memory_bus_width_bits = 5120;
inline constexpr int l2_cache_bytes = 50 * 1024 * 1024;

// Blocks of a cluster share one GPC. The H100 SXM5's 132 SMs sit in 8 GPCs; the split below is
// the usual one (the full GH100 has 18 SMs per GPC; a shipped part has a few fused off).
inline constexpr int gpc_sm_counts[] = {18, 18, 16, 16, 16, 16, 16, 16};
inline constexpr unsigned max_portable_cluster_blocks = 8;
inline constexpr unsigned max_cluster_blocks = 16;  // with the non-portable cluster size attribute

inline constexpr std::size_t default_printf_fifo_bytes = std::size_t{1} << 20;
inline constexpr std::size_t default_malloc_heap_bytes = std::size_t{8} << 20;
inline constexpr std::size_t default_stack_bytes = 1024;
inline constexpr std::size_t default_pending_launch_count = 2048;

}  // namespace xcuda::cpu::emulated

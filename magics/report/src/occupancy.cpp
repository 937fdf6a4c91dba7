#include "xcuda/report/occupancy.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>

namespace xcuda::report {
namespace {

constexpr std::size_t KiB = 1024;

struct ArchRow {
    int major, minor;
    SmLimits sm;
};

// Registers (64 Ki per SM and per block, 255 per thread, 256 per warp allocation unit,
// 4 sub-partitions), 32-thread warps and 1024 threads per block are common to all rows.
constexpr ArchRow kArchs[] = {
    {7, 0, {2048, 32, 96 * KiB, 96 * KiB, 256, 0}},          {7, 2, {2048, 32, 96 * KiB, 96 * KiB, 256, 0}},
    {7, 5, {1024, 16, 64 * KiB, 64 * KiB, 256, 0}},          {8, 0, {2048, 32, 164 * KiB, 163 * KiB, 128, 1 * KiB}},
    {8, 6, {1536, 16, 100 * KiB, 99 * KiB, 128, 1 * KiB}},   {8, 7, {1536, 16, 164 * KiB, 163 * KiB, 128, 1 * KiB}},
    {8, 9, {1536, 24, 100 * KiB, 99 * KiB, 128, 1 * KiB}},   {9, 0, {2048, 32, 228 * KiB, 227 * KiB, 128, 1 * KiB}},
    {10, 0, {2048, 32, 228 * KiB, 227 * KiB, 128, 1 * KiB}}, {10, 3, {2048, 32, 228 * KiB, 227 * KiB, 128, 1 * KiB}},
    {12, 0, {1536, 24, 100 * KiB, 99 * KiB, 128, 1 * KiB}},  {12, 1, {1536, 24, 100 * KiB, 99 * KiB, 128, 1 * KiB}},
};

int divide_round_up(int x, int y) { return (x + y - 1) / y; }
int round_up(int x, int y) { return divide_round_up(x, y) * y; }
std::size_t round_up(std::size_t x, std::size_t y) { return (x + y - 1) / y * y; }

std::string percent(double fraction) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f%%", std::round(fraction * 100.0));
    return buf;
}

std::string kib(std::size_t bytes) {
    char buf[32];
    if (bytes % KiB == 0)
        std::snprintf(buf, sizeof buf, "%zu KiB", bytes / KiB);
    else
        std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / KiB);
    return buf;
}

}  // namespace

std::optional<DeviceLimits> limits_for_cc(int major, int minor) {
    for (const auto& row : kArchs) {
        if (row.major != major || row.minor != minor) continue;
        DeviceLimits l;
        l.arch = "sm_" + std::to_string(major * 10 + minor);
        static_cast<SmLimits&>(l) = row.sm;
        return l;
    }
    return std::nullopt;
}

std::optional<DeviceLimits> limits_for_arch(std::string_view arch) {
    for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
        if (arch.substr(0, prefix.size()) == prefix) {
            arch.remove_prefix(prefix.size());
            break;
        }
    }
    // Feature suffixes (sm_90a, sm_100f) do not change the limits.
    while (!arch.empty() && std::isalpha(static_cast<unsigned char>(arch.back()))) arch.remove_suffix(1);
    if (arch.empty()) return std::nullopt;
    auto dot = arch.find('.');
    std::string digits;
    if (dot != std::string_view::npos) {
        if (dot == 0 || dot + 2 != arch.size()) return std::nullopt;
        digits = std::string(arch.substr(0, dot)) + std::string(arch.substr(dot + 1));
    } else {
        digits = std::string(arch);
    }
    if (digits.size() < 2 || digits.size() > 3 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
    int n = std::stoi(digits);
    return limits_for_cc(n / 10, n % 10);
}

std::vector<std::string> known_archs() {
    std::vector<std::string> out;
    for (const auto& row : kArchs) out.push_back("sm_" + std::to_string(row.major * 10 + row.minor));
    return out;
}

std::string_view limiter_name(Limiter limiter) {
    switch (limiter) {
        case Limiter::registers: return "registers";
        case Limiter::shared_memory: return "shared memory";
        case Limiter::block_size: return "block size (threads per SM)";
        case Limiter::blocks_per_sm: return "blocks per SM";
    }
    return "unknown limiter";
}

Occupancy occupancy(const DeviceLimits& l, int regs_per_thread, std::size_t static_shared, int block_size,
                    std::size_t dynamic_shared) {
    Occupancy o;
    o.block_size = block_size;
    o.max_warps = l.max_threads_per_sm / l.warp_size;
    if (block_size < 1 || block_size > l.max_threads_per_block) {
        o.problem = "block size " + std::to_string(block_size) + " is outside 1.." +
                    std::to_string(l.max_threads_per_block) + " threads; pick a multiple of " +
                    std::to_string(l.warp_size) + " up to " + std::to_string(l.max_threads_per_block);
        return o;
    }
    const int W = divide_round_up(block_size, l.warp_size);
    o.warps_per_block = W;

    o.blocks_by_threads = o.max_warps / W;
    o.blocks_by_block_limit = l.max_blocks_per_sm;

    // Registers: allocated per warp, rounded to the allocation unit, and each of the SM's
    // sub-partitions holds a whole number of warps.
    const int regs_per_warp = round_up(std::max(regs_per_thread, 0) * l.warp_size, l.reg_alloc_unit);
    o.registers_per_block = regs_per_warp * W;
    const int regs_assumed = regs_per_warp * round_up(W, l.sub_partitions);
    if (regs_per_thread > l.max_regs_per_thread) {
        o.blocks_by_registers = 0;
        o.problem = std::to_string(regs_per_thread) + " registers per thread exceed the limit of " +
                    std::to_string(l.max_regs_per_thread) + "; cap them with -maxrregcount or __launch_bounds__";
    } else if (regs_assumed > l.regs_per_block || o.registers_per_block > l.regs_per_block) {
        o.blocks_by_registers = 0;
        int fits = 0;
        for (int b = block_size - l.warp_size; b >= l.warp_size; b -= l.warp_size)
            if (regs_per_warp * round_up(divide_round_up(b, l.warp_size), l.sub_partitions) <= l.regs_per_block) {
                fits = b;
                break;
            }
        o.problem = "a block of " + std::to_string(block_size) + " threads at " + std::to_string(regs_per_thread) +
                    " registers/thread needs " + std::to_string(regs_assumed) + " registers, over the " +
                    std::to_string(l.regs_per_block) + " per block; use at most " + std::to_string(fits) +
                    " threads per block or fewer registers (__launch_bounds__(" + std::to_string(block_size) + "))";
    } else if (regs_per_warp == 0) {
        o.blocks_by_registers = INT_MAX;
    } else {
        const int warps_per_partition = l.regs_per_sm / l.sub_partitions / regs_per_warp;
        o.blocks_by_registers = warps_per_partition * l.sub_partitions / W;
    }

    // Shared memory: the driver's per-block reservation counts, allocation is rounded.
    const std::size_t smem =
        round_up(static_shared + dynamic_shared + l.shared_reserved_per_block, l.shared_alloc_unit);
    o.shared_per_block = smem;
    if (smem > l.shared_per_block_optin + l.shared_reserved_per_block) {
        o.blocks_by_shared = 0;
        if (o.problem.empty())
            o.problem = "a block needs " + kib(static_shared + dynamic_shared) + " of shared memory, over the " +
                        kib(l.shared_per_block_optin) + " one block may use on " + l.arch +
                        "; use less shared memory per block";
    } else if (smem == 0) {
        o.blocks_by_shared = INT_MAX;
    } else {
        o.blocks_by_shared = static_cast<int>(l.shared_per_sm / smem);
    }

    o.active_blocks =
        std::min({o.blocks_by_threads, o.blocks_by_block_limit, o.blocks_by_registers, o.blocks_by_shared});
    o.active_warps = o.active_blocks * W;
    o.fraction = o.max_warps > 0 ? static_cast<double>(o.active_warps) / o.max_warps : 0.0;
    if (o.active_blocks > 0) {
        if (o.blocks_by_registers == o.active_blocks) o.limiters.push_back(Limiter::registers);
        if (o.blocks_by_shared == o.active_blocks) o.limiters.push_back(Limiter::shared_memory);
        if (o.blocks_by_threads == o.active_blocks) o.limiters.push_back(Limiter::block_size);
        if (o.blocks_by_block_limit == o.active_blocks) o.limiters.push_back(Limiter::blocks_per_sm);
    } else if (o.problem.empty()) {
        o.problem = "no block of " + std::to_string(block_size) + " threads fits on an SM";
    }
    return o;
}

Occupancy best_block_size(const DeviceLimits& l, int regs_per_thread, std::size_t static_shared,
                          std::size_t dynamic_shared) {
    Occupancy best = occupancy(l, regs_per_thread, static_shared, l.warp_size, dynamic_shared);
    for (int b = 2 * l.warp_size; b <= l.max_threads_per_block; b += l.warp_size) {
        Occupancy o = occupancy(l, regs_per_thread, static_shared, b, dynamic_shared);
        if (o.active_warps >= best.active_warps && o.active_blocks > 0) best = o;
    }
    return best;
}

std::string occupancy_advice(const DeviceLimits& l, int regs_per_thread, const Occupancy& at, const Occupancy& best) {
    std::string out;
    if (at.active_blocks == 0) {
        out = "Cannot launch " + std::to_string(at.block_size) + " threads/block: " + at.problem + ".";
        if (best.active_blocks > 0)
            out += " " + std::to_string(best.block_size) + " threads/block gives " + percent(best.fraction) +
                   " occupancy.";
        return out;
    }
    out = "Occupancy " + percent(at.fraction) + " at " + std::to_string(at.block_size) + " threads/block (" +
          std::to_string(at.active_blocks) + (at.active_blocks == 1 ? " block" : " blocks") + " of " +
          std::to_string(at.warps_per_block) + (at.warps_per_block == 1 ? " warp" : " warps") + " per SM, " +
          std::to_string(at.active_warps) + "/" + std::to_string(at.max_warps) + " warps)";
    if (at.active_warps >= at.max_warps) return out + ", the most an SM holds.";
    out += ", limited by ";
    for (std::size_t i = 0; i < at.limiters.size(); ++i) {
        if (i > 0) out += i + 1 == at.limiters.size() ? " and " : ", ";
        out += limiter_name(at.limiters[i]);
    }
    out += ".";

    const bool by_regs = std::find(at.limiters.begin(), at.limiters.end(), Limiter::registers) != at.limiters.end();
    if (by_regs) {
        // The largest register count that lets one more block in at this block size.
        for (int r = regs_per_thread - 1; r >= 1; --r) {
            Occupancy o = occupancy(l, r, 0, at.block_size, 0);
            if (o.blocks_by_registers > at.active_blocks) {
                out += " At most " + std::to_string(r) + " registers/thread (now " + std::to_string(regs_per_thread) +
                       "; -maxrregcount or __launch_bounds__) would raise the register limit to " +
                       std::to_string(o.blocks_by_registers) + " blocks per SM.";
                break;
            }
        }
    }
    if (best.active_warps > at.active_warps)
        out += " " + std::to_string(best.block_size) + " threads/block would reach " + percent(best.fraction) + ".";
    else
        out += " No other block size does better with these resources.";
    return out;
}

}  // namespace xcuda::report

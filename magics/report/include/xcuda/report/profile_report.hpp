// `%%cuda_profile`: every launch of a Python cell, as a table and a per-kernel bar chart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

// "4096" for a 1-D size, "(64, 32, 1)" otherwise.
std::string dim3_text(const Dim3& d);

struct ProfiledLaunch {
    std::string kernel;
    int device = 0;  // a GPU's index; negative: the CPU device (shown as "cpu")
    Dim3 grid;
    Dim3 block;
    int registers = 0;                         // per thread
    std::uint64_t shared_bytes = 0;            // static + dynamic, per block
    std::optional<double> occupancy;           // theoretical, 0..1; absent when unknown
    double gpu_ms = 0.0;                       // CUDA event time of this launch
    std::optional<std::uint64_t> bytes_moved;  // from array arguments; gives GB/s
};

struct KernelTotal {
    std::string kernel;
    int launches = 0;
    double total_ms = 0.0;
};

// Launches of the same kernel name summed, sorted by total time (largest first; ties by
// name, so the order is deterministic).
std::vector<KernelTotal> totals_by_kernel(const std::vector<ProfiledLaunch>& launches);

// Table of launches in order (#, kernel, device, grid, block, regs, shared, occupancy,
// GPU time, GB/s) + a per-kernel summary; svg = bar chart of total time per kernel. When every
// launch ran on the CPU device, its times are called "Device time (emulated)".
// No launches: a one-line report saying the cell launched no kernels, and no svg.
Rich profile_report(const std::vector<ProfiledLaunch>& launches);

}  // namespace xcuda::report

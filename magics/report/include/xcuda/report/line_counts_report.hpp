// The CPU device's teaching profile: exact counts of what each line of a %%cuda cell made the
// emulated GPU do (warp instructions, divergent branches, global memory requests and the
// 32-byte sectors they touched, shared-memory bank conflicts), next to the cell's code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct LineCounts {
    int line = 0;                           // 1-based line of the cell
    std::uint64_t instructions = 0;         // warp-level executions
    std::uint64_t thread_instructions = 0;  // lane-level executions
    std::uint64_t divergent = 0;            // branches where a warp's lanes went both ways
    std::uint64_t requests = 0;             // global memory: warp-level loads and stores
    std::uint64_t sectors = 0;              // the 32-byte sectors those requests touched
    std::uint64_t bank_conflicts = 0;       // shared memory: wavefronts beyond the first
};

struct KernelLineCounts {
    std::string kernel;
    std::uint64_t launches = 0;
    std::vector<std::string> cell_lines;  // the cell's source, one string per line
    std::vector<LineCounts> lines;        // lines with counts, any order (repeats are added up)
    LineCounts elsewhere;                 // counts on no line of the cell (headers without a call site there)
};

// Per kernel: a summary (instructions, threads' share of active lanes, divergent branches,
// sectors per request, bank conflicts), then the cell's lines with their counts (a heat
// background by instructions in HTML), then a note saying what the columns mean. A cell of more
// than 200 lines shows only the lines within 3 of a counted one.
Rich line_counts_report(const std::vector<KernelLineCounts>& kernels);

}  // namespace xcuda::report

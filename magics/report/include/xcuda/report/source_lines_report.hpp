// "Where the time goes": PC samples (CUPTI) of a kernel attributed to the lines of the
// %%cuda cell, each line with its share of the samples and its top stall reasons.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xcuda/report/rich.hpp"

namespace xcuda::report {

struct StallCount {
    std::string reason;  // CUPTI's name, with or without "smsp__pcsamp_warps_issue_stalled_"
    std::uint64_t samples = 0;
};

struct SampledLine {
    int line = 0;  // 1-based line of the cell
    std::uint64_t samples = 0;
    std::vector<StallCount> stalls;
};

struct SourceSamples {
    std::string kernel;
    std::vector<std::string> cell_lines;     // the cell's source, one string per line
    std::vector<SampledLine> lines;          // lines that got samples, in any order
    std::uint64_t total_samples = 0;         // including samples that matched no line of the cell
    std::uint64_t unattributed_samples = 0;  // PCs with no line information or in headers
};

// "smsp__pcsamp_warps_issue_stalled_long_scoreboard" -> "long_scoreboard";
// "..._long_scoreboard_not_issued" -> "long_scoreboard (not issued)"; other names unchanged.
std::string stall_reason_name(std::string_view cupti_name);

// Per kernel: a summary line ("12,345 samples; hottest line 7 (41.0%): long_scoreboard"),
// the cell's lines with samples, share of all samples (a heat bar and background in HTML)
// and top three stall reasons, and the share no line of the cell accounts for. Entries for
// the same line are summed; lines outside the cell count as unattributed. A cell of more
// than 200 lines shows only the lines within 3 of a sampled line, with "..." for the gaps.
Rich source_lines_report(const std::vector<SourceSamples>& kernels);

}  // namespace xcuda::report

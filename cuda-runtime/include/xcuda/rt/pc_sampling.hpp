// Where a kernel's warps spend their time: CUPTI PC sampling of the kernels launched while
// `work` runs (serialized: one kernel at a time), and the source line of a sampled PC from a
// CUBIN built with -lineinfo.
#pragma once

#include <xcuda/rt/context.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xcuda::rt {

struct StallSamples {
    std::string reason;  // CUPTI's name, e.g. "smsp__pcsamp_warps_issue_stalled_long_scoreboard"
    std::uint64_t samples = 0;
};

struct SampledPc {
    std::string function;  // mangled name, as in the CUBIN
    std::uint64_t cubin_crc = 0;
    std::uint64_t pc_offset = 0;
    std::vector<StallSamples> stalls;  // reasons with samples > 0
    std::uint64_t samples() const;
};

struct PcSamples {
    std::vector<SampledPc> pcs;
    std::uint64_t total_samples = 0;
    std::uint64_t dropped_samples = 0;  // lost to a full hardware buffer
};

// Samples the warps of every kernel `work` launches in `context`. `period` is the sampling
// interval as CUPTI takes it: 2^(period + 5) cycles, 5..31; smaller samples more often.
// Throws ProfilerUnavailable when sampling cannot run; what `work` throws propagates after
// sampling is turned off.
PcSamples sample_pcs(const PrimaryContext& context, const std::function<void()>& work, unsigned period = 8);

// CUPTI's CRC of a CUBIN, as SampledPc::cubin_crc reports it for PCs in that CUBIN.
std::uint64_t cubin_crc(std::string_view cubin);

struct SourceLine {
    std::string file;
    unsigned line = 0;
};

// The source line of `pc_offset` in `function` of `cubin`; nullopt when the CUBIN has no line
// information for it (built without -lineinfo).
std::optional<SourceLine> source_line(std::string_view cubin, const std::string& function, std::uint64_t pc_offset);

}  // namespace xcuda::rt

// Built instead of the CUPTI profilers when the CUDA Toolkit predates CUPTI's range profiler
// (CUDA 12.6): every entry point says so, and how to get them.
#include "built_without.hpp"

#include <xcuda/rt/counters.hpp>
#include <xcuda/rt/pc_sampling.hpp>
#include <xcuda/rt/toolkit.hpp>

namespace xcuda::rt {
namespace {

[[noreturn]] void unavailable() {
    detail::built_without(
        "whose CUPTI has no range profiler: rebuild it with CUDA 12.6 or later for hardware counters and PC sampling");
}

}  // namespace

std::string cupti_in_use() { unavailable(); }
std::string chip_name(int) { unavailable(); }
std::vector<std::string> supported_chips() { unavailable(); }
std::vector<std::string> base_metrics(const std::string&) { unavailable(); }
MetricDescription describe_metric(const std::string&, const std::string&) { unavailable(); }
CounterCollection collect_counters(const PrimaryContext&, const std::vector<std::string>&, std::size_t,
                                   const std::function<void()>&) {
    unavailable();
}
std::uint64_t SampledPc::samples() const { return 0; }
PcSamples sample_pcs(const PrimaryContext&, const std::function<void()>&, unsigned) { unavailable(); }
std::uint64_t cubin_crc(std::string_view) { unavailable(); }
std::optional<SourceLine> source_line(std::string_view, const std::string&, std::uint64_t) { unavailable(); }

}  // namespace xcuda::rt

// Built instead of activity_trace.cpp where the CUDA Toolkit's CUPTI lays out its activity records
// otherwise than CUDA 13's (CUpti_ActivityKernel10 and the rest, which the decoder reads): the
// timeline says so, and everything else runs.
#include "built_without.hpp"

#include <xcuda/rt/activity_trace.hpp>

namespace xcuda::rt {
namespace {

[[noreturn]] void unavailable() {
    detail::built_without(
        "whose CUPTI activity records the timeline does not read: rebuild it with CUDA 13 for "
        "%%cuda_timeline");
}

}  // namespace

const char* kind_name(TraceRecord::Kind) { return "?"; }
struct ActivityTrace::State {};
ActivityTrace::ActivityTrace() { unavailable(); }
ActivityTrace::~ActivityTrace() = default;
TraceResult ActivityTrace::stop() { unavailable(); }
std::int64_t ActivityTrace::now_ns() { unavailable(); }

}  // namespace xcuda::rt

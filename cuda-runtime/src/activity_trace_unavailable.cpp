// Built instead of activity_trace.cpp where the CUDA Toolkit's CUPTI lays out its activity records
// otherwise than CUDA 13's (CUpti_ActivityKernel10 and the rest, which the decoder reads): the
// timeline says so, and everything else runs.
#include <xcuda/rt/activity_trace.hpp>

#include <cuda.h>

#include <string>

namespace xcuda::rt {
namespace {

[[noreturn]] void unavailable() {
    throw ProfilerUnavailable(ProfilerUnavailable::Why::no_cupti,
                              "this xcuda was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                                  std::to_string(CUDA_VERSION % 1000 / 10) +
                                  ", whose CUPTI activity records the timeline does not read: rebuild it with "
                                  "CUDA 13 for %%cuda_timeline");
}

}  // namespace

const char* kind_name(TraceRecord::Kind) { return "?"; }
struct ActivityTrace::State {};
ActivityTrace::ActivityTrace() { unavailable(); }
ActivityTrace::~ActivityTrace() = default;
TraceResult ActivityTrace::stop() { unavailable(); }
std::int64_t ActivityTrace::now_ns() { unavailable(); }

}  // namespace xcuda::rt

// What a profiler built without the CUPTI it needs says when asked for (profiler_unavailable.cpp,
// activity_trace_unavailable.cpp): the toolkit this xcuda was built with, and the fix.
#pragma once

#include <xcuda/rt/profiler_errors.hpp>

#include <cuda.h>

#include <string>

namespace xcuda::rt::detail {

// Throws ProfilerUnavailable (Why::no_cupti): "this xcuda was built with CUDA 12.4, " + `why_and_fix`.
[[noreturn]] inline void built_without(const std::string& why_and_fix) {
    throw ProfilerUnavailable(ProfilerUnavailable::Why::no_cupti,
                              "this xcuda was built with CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                                  std::to_string(CUDA_VERSION % 1000 / 10) + ", " + why_and_fix);
}

}  // namespace xcuda::rt::detail

// The CUPTI entry points the profilers use, resolved from a dlopen'ed libcupti on first use,
// like NVRTC (nvrtc_api.hpp): a kernel that never profiles never maps CUPTI, and a machine
// without it still runs everything else. The range profiler (hardware counters, with the
// profiler host API that turns them into metrics) and PC sampling live in the same library.
#pragma once

#include <xcuda/rt/profiler_errors.hpp>

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <cstddef>
#include <string>
#include <type_traits>

// The table keeps its hand-made layout: clang-format indents each continuation line deeper.
// clang-format off
#define XCUDA_CUPTI_FUNCTIONS(X)                                                                            \
    X(cuptiGetResultString) X(cuptiProfilerInitialize) X(cuptiProfilerDeInitialize)                         \
    X(cuptiDeviceGetChipName) X(cuptiProfilerGetCounterAvailability) X(cuptiProfilerDeviceSupported)       \
    X(cuptiProfilerHostInitialize) X(cuptiProfilerHostDeinitialize) X(cuptiProfilerHostGetSupportedChips)  \
    X(cuptiProfilerHostGetBaseMetrics) X(cuptiProfilerHostGetMetricProperties)                             \
    X(cuptiProfilerHostConfigAddMetrics) X(cuptiProfilerHostGetConfigImageSize)                            \
    X(cuptiProfilerHostGetConfigImage) X(cuptiProfilerHostGetNumOfPasses)                                  \
    X(cuptiProfilerHostEvaluateToGpuValues) X(cuptiRangeProfilerEnable) X(cuptiRangeProfilerDisable)       \
    X(cuptiRangeProfilerSetConfig) X(cuptiRangeProfilerStart) X(cuptiRangeProfilerStop)                    \
    X(cuptiRangeProfilerDecodeData) X(cuptiRangeProfilerGetCounterDataSize)                                \
    X(cuptiRangeProfilerCounterDataImageInitialize) X(cuptiRangeProfilerGetCounterDataInfo)                \
    X(cuptiPCSamplingEnable) X(cuptiPCSamplingDisable)        \
    X(cuptiPCSamplingSetConfigurationAttribute) X(cuptiPCSamplingStart) X(cuptiPCSamplingStop)             \
    X(cuptiPCSamplingGetData) X(cuptiPCSamplingGetNumStallReasons) X(cuptiPCSamplingGetStallReasons)       \
    X(cuptiGetSassToSourceCorrelation) X(cuptiGetCubinCrc)                                                  \
    X(cuptiActivityRegisterCallbacks) X(cuptiActivityEnable) X(cuptiActivityDisable)                       \
    X(cuptiActivityFlushAll) X(cuptiActivityGetNextRecord) X(cuptiActivityGetNumDroppedRecords)            \
    X(cuptiGetTimestamp) X(cuptiGetCallbackName) X(cuptiSubscribe) X(cuptiUnsubscribe)
// clang-format on

namespace xcuda::rt::detail {

struct CuptiApi {
#define XCUDA_DECLARE(fn) decltype(&::fn) fn = nullptr;
    XCUDA_CUPTI_FUNCTIONS(XCUDA_DECLARE)
#undef XCUDA_DECLARE
    std::string path;        // the file loaded, for messages
    void* handle = nullptr;  // for entry points newer CUPTIs add (optional_entry)
};

// Loads CUPTI once (thread-safe): $XCUDA_CUPTI when set, else libcupti.so.<CUDA major> by the
// dynamic loader's search, then beside the NVRTC in use (a pip wheel's nvidia/cu13/lib, a
// toolkit's lib64), then the toolkit's extras/CUPTI, then the one found at configure time.
// Throws ProfilerUnavailable (Why::no_cupti) naming every place tried when none loads.
const CuptiApi& cupti();

// CUPTI measures the driver it loads itself (libcuda.so.1); when this library runs on another
// one ($XCUDA_CUDA_DRIVER: the tests' simulated driver), CUPTI must not see its contexts.
// Throws ProfilerUnavailable (Why::unsupported) then.
void require_nvidia_driver();

// A CUPTI parameter struct, zeroed, with its size set: the profiler structs call the field
// structSize, the PC sampling ones size.
template <class Params, class = void>
struct NamesItsSizeStructSize : std::false_type {};
template <class Params>
struct NamesItsSizeStructSize<Params, std::void_t<decltype(Params::structSize)>> : std::true_type {};

template <class Params>
Params cupti_params(std::size_t struct_size) {
    Params p{};
    if constexpr (NamesItsSizeStructSize<Params>::value) {
        p.structSize = struct_size;
    } else {
        p.size = struct_size;
    }
    return p;
}

// An entry point of the loaded CUPTI that older versions lack (cuptiSubscribe_v2): nullptr there.
void* optional_entry(const char* name);

// CUPTI serves one client at a time in a process: xcuda's timeline, counters and PC sampling each
// hold this while they run, so a second one inside the first (a %%cuda_profile --metrics inside a
// %%cuda_timeline) is told which holds it, instead of CUPTI's bare error. Throws
// ProfilerUnavailable (Why::busy) naming the holder and `who`.
class CuptiClaim {
public:
    explicit CuptiClaim(const char* who);
    ~CuptiClaim();
    CuptiClaim(const CuptiClaim&) = delete;
    CuptiClaim& operator=(const CuptiClaim&) = delete;
};

// Throws ProfilerUnavailable for a failing result: insufficient privileges, a virtualised or
// unsupported device, and anything else (Why::failed), each with the cause and the fix.
void check_cupti(CUptiResult result, const char* call);

// Runs `work` between collector.start() and collector.stop() (a RangeProfiler, a Sampler). When
// `work` throws, the collection is stopped all the same and the work's error is the one that
// propagates.
template <class Collector, class Work>
void run_collecting(const Collector& collector, const Work& work) {
    collector.start();
    try {
        work();
    } catch (...) {
        try {
            collector.stop();
        } catch (const ProfilerUnavailable&) {
            // The work's own error is the one to report.
        }
        throw;
    }
    collector.stop();
}

}  // namespace xcuda::rt::detail

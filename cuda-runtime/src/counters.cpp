#include "cupti_api.hpp"
#include "cupti_object.hpp"

#include <xcuda/rt/counters.hpp>
#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/profiler_errors.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace xcuda::rt {
namespace {

using detail::check_cupti;
using detail::cupti;
using detail::cupti_params;

// cuptiProfilerInitialize once per process: its DeInitialize would end every other profiling
// session of the process too, and the cost is paid only by the first profile.
void initialize_profiler() {
    static std::once_flag once;
    std::call_once(once, [] {
        auto p = cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        check_cupti(cupti().cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
    });
}

void deinitialize_host(CUpti_Profiler_Host_Object* host) noexcept {
    auto p = detail::object_params<CUpti_Profiler_Host_Deinitialize_Params>(
        CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, host);
    cupti().cuptiProfilerHostDeinitialize(&p);
}

// The profiler host object: metric names, config images and the evaluation of counter data
// for one chip. `availability` may be null (no GPU: what the chip could collect).
class HostObject {
public:
    HostObject(const std::string& chip, const std::uint8_t* availability) : host_(initialize(chip, availability)) {}

    MetricDescription describe(const std::string& chip, const std::string& metric) const {
        auto p = host_.params<CUpti_Profiler_Host_GetMetricProperties_Params>(
            CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
        p.pMetricName = metric.c_str();
        if (cupti().cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) {
            throw std::invalid_argument("'" + metric + "' is not a metric of " + chip +
                                        ": give a name Nsight Compute lists for it (`ncu --query-metrics`, or "
                                        "xcuda.profiler_metrics()), with its rollup, e.g. dram__bytes_read.sum");
        }
        return {metric, p.pDescription ? p.pDescription : "", p.pDimUnit ? p.pDimUnit : ""};
    }

    std::vector<std::uint8_t> config_image(const std::vector<const char*>& metrics) const {
        auto add = host_.params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
            CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
        add.ppMetricNames = const_cast<const char**>(metrics.data());
        add.numMetrics = metrics.size();
        check_cupti(cupti().cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
        auto size = host_.params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
        check_cupti(cupti().cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        std::vector<std::uint8_t> image(size.configImageSize);
        auto get = host_.params<CUpti_Profiler_Host_GetConfigImage_Params>(
            CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
        get.configImageSize = image.size();
        get.pConfigImage = image.data();
        check_cupti(cupti().cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
        return image;
    }

    std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range,
                                 const std::vector<const char*>& metrics) const {
        std::vector<double> values(metrics.size());
        auto p = host_.params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        p.pCounterDataImage = counter_data.data();
        p.counterDataImageSize = counter_data.size();
        p.rangeIndex = range;
        p.ppMetricNames = const_cast<const char**>(metrics.data());
        p.numMetrics = metrics.size();
        p.pMetricValues = values.data();
        check_cupti(cupti().cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
        return values;
    }

    std::vector<std::string> base_metrics() const {
        std::vector<std::string> names;
        for (auto type : {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO, CUPTI_METRIC_TYPE_THROUGHPUT}) {
            auto p = host_.params<CUpti_Profiler_Host_GetBaseMetrics_Params>(
                CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
            p.metricType = type;
            check_cupti(cupti().cuptiProfilerHostGetBaseMetrics(&p), "cuptiProfilerHostGetBaseMetrics");
            for (std::size_t i = 0; i < p.numMetrics; ++i) names.emplace_back(p.ppMetricNames[i]);
        }
        return names;
    }

private:
    static CUpti_Profiler_Host_Object* initialize(const std::string& chip, const std::uint8_t* availability) {
        auto p = cupti_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
        p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
        p.pChipName = chip.c_str();
        p.pCounterAvailabilityImage = availability;
        const CUptiResult r = cupti().cuptiProfilerHostInitialize(&p);
        if (r == CUPTI_ERROR_INVALID_CHIP_NAME) {
            throw std::invalid_argument("chip '" + chip + "' is not one CUPTI " + cupti().path +
                                        " knows (xcuda.profiler_chips() lists them)");
        }
        if (r == CUPTI_ERROR_UNKNOWN && !gpu_available()) {
            // Seen with NVIDIA's pip wheels on a machine without a GPU: CUPTI 13.0 and 13.1 list a
            // chip's metrics there, 13.3 to 13.5 look for libcuda.so.1 first and fail with 999.
            throw ProfilerUnavailable(
                ProfilerUnavailable::Why::unsupported,
                "CUPTI " + cupti().path +
                    " could not start its host profiler (CUPTI error 999) on a machine "
                    "without NVIDIA's driver: recent CUPTIs (13.3 and later) need libcuda.so.1 even to list a "
                    "chip's metrics. On a GPU machine it works; here, CUPTI 13.1 lists them without a driver: "
                    "pip install 'nvidia-cuda-cupti>=13.0,<13.2'");
        }
        check_cupti(r, "cuptiProfilerHostInitialize");
        return p.pHostObject;
    }

    detail::CuptiObject<CUpti_Profiler_Host_Object*, deinitialize_host> host_;
};

std::size_t passes_needed(std::vector<std::uint8_t>& config) {
    auto p =
        cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    p.configImageSize = config.size();
    p.pConfigImage = config.data();
    check_cupti(cupti().cuptiProfilerHostGetNumOfPasses(&p), "cuptiProfilerHostGetNumOfPasses");
    return p.numOfPasses;
}

std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
    auto p = cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    p.ctx = ctx;
    check_cupti(cupti().cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
    std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
    p.pCounterAvailabilityImage = image.data();
    check_cupti(cupti().cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
    return image;
}

void disable_range_profiler(CUpti_RangeProfiler_Object* object) noexcept {
    auto p = detail::object_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE,
                                                                       object);
    cupti().cuptiRangeProfilerDisable(&p);
}

// The range profiler of one context, enabled for the life of this object: a second Enable on
// the same context fails, so every path out (an error in the cell included) must disable it.
class RangeProfiler {
public:
    explicit RangeProfiler(CUcontext ctx) : object_(enable(ctx)) {}

    std::vector<std::uint8_t> counter_data_image(std::vector<const char*>& metrics, std::size_t ranges) const {
        auto size = object_.params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        size.pMetricNames = metrics.data();
        size.numMetrics = metrics.size();
        size.maxNumOfRanges = ranges;
        size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(ranges);
        check_cupti(cupti().cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
        std::vector<std::uint8_t> image(size.counterDataSize);
        auto init = object_.params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        init.counterDataSize = image.size();
        init.pCounterData = image.data();
        check_cupti(cupti().cuptiRangeProfilerCounterDataImageInitialize(&init),
                    "cuptiRangeProfilerCounterDataImageInitialize");
        return image;
    }

    // Each kernel launched is its own range (auto range), replayed by CUPTI until every pass
    // of the config ran (kernel replay): the cell's code runs once.
    void configure(const std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& counter_data,
                   std::size_t ranges) const {
        auto p = object_.params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
        p.configSize = config.size();
        p.pConfig = config.data();
        p.counterDataImageSize = counter_data.size();
        p.pCounterDataImage = counter_data.data();
        p.range = CUPTI_AutoRange;
        p.replayMode = CUPTI_KernelReplay;
        p.maxRangesPerPass = ranges;
        p.numNestingLevels = 1;
        p.minNestingLevel = 1;
        p.passIndex = 0;
        p.targetNestingLevel = 1;
        check_cupti(cupti().cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig");
    }

    void start() const {
        auto p = object_.params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
        check_cupti(cupti().cuptiRangeProfilerStart(&p), "cuptiRangeProfilerStart");
    }

    void stop() const {
        auto p = object_.params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        check_cupti(cupti().cuptiRangeProfilerStop(&p), "cuptiRangeProfilerStop");
    }

    void decode() const {
        auto p =
            object_.params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
        check_cupti(cupti().cuptiRangeProfilerDecodeData(&p), "cuptiRangeProfilerDecodeData");
    }

private:
    static CUpti_RangeProfiler_Object* enable(CUcontext ctx) {
        auto p = cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
        p.ctx = ctx;
        check_cupti(cupti().cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
        return p.pRangeProfilerObject;
    }

    detail::CuptiObject<CUpti_RangeProfiler_Object*, disable_range_profiler> object_;
};

std::size_t ranges_in(const std::vector<std::uint8_t>& counter_data) {
    auto p = cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    p.pCounterDataImage = counter_data.data();
    p.counterDataImageSize = counter_data.size();
    check_cupti(cupti().cuptiRangeProfilerGetCounterDataInfo(&p), "cuptiRangeProfilerGetCounterDataInfo");
    return p.numTotalRanges;
}

std::vector<const char*> c_names(const std::vector<std::string>& names) {
    std::vector<const char*> out;
    out.reserve(names.size());
    for (const auto& n : names) out.push_back(n.c_str());
    return out;
}

// What a metric list needs before anything runs, for one device: the chip, the host object that
// scheduled the list (it also evaluates the data), the config image and its passes. Made once
// per device and list and kept, the same for every profile of a notebook. (On the H200 this did
// not move the steady cost of a profile, about 300 ms with no kernel: that is CUPTI's enabling,
// starting and decoding of the range profiler, which every collection pays.)
struct Prepared {
    std::string chip;
    std::vector<std::uint8_t> availability;  // the host object reads it: kept as long
    std::unique_ptr<HostObject> host;
    std::vector<std::uint8_t> config;
    std::size_t passes = 0;
    std::vector<MetricDescription> descriptions;
};

const Prepared& prepare(const PrimaryContext& context, const std::vector<std::string>& metrics) {
    static std::mutex mutex;
    // Never destroyed: a host object's teardown at exit would call into CUPTI while the process ends.
    static auto* cache = new std::map<std::pair<int, std::vector<std::string>>, std::unique_ptr<Prepared>>();
    const std::lock_guard<std::mutex> lock(mutex);
    auto& slot = (*cache)[{context.device().ordinal(), metrics}];
    if (slot) return *slot;
    auto p = std::make_unique<Prepared>();
    p->chip = chip_name(context.device().ordinal());
    p->availability = counter_availability(context.handle());
    p->host = std::make_unique<HostObject>(p->chip, p->availability.data());
    for (const auto& m : metrics) p->descriptions.push_back(p->host->describe(p->chip, m));  // bad names fail here
    p->config = p->host->config_image(c_names(metrics));
    p->passes = passes_needed(p->config);
    slot = std::move(p);
    return *slot;
}

}  // namespace

std::string chip_name(int device_ordinal) {
    detail::require_nvidia_driver();
    initialize_profiler();
    auto p = cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    p.deviceIndex = static_cast<std::size_t>(device_ordinal);
    check_cupti(cupti().cuptiDeviceGetChipName(&p), "cuptiDeviceGetChipName");
    return p.pChipName;
}

std::vector<std::string> supported_chips() {
    auto p = cupti_params<CUpti_Profiler_Host_GetSupportedChips_Params>(
        CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
    check_cupti(cupti().cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
    return {p.ppChipNames, p.ppChipNames + p.numChips};
}

std::vector<std::string> base_metrics(const std::string& chip) { return HostObject(chip, nullptr).base_metrics(); }

MetricDescription describe_metric(const std::string& chip, const std::string& metric) {
    return HostObject(chip, nullptr).describe(chip, metric);
}

CounterCollection collect_counters(const PrimaryContext& context, const std::vector<std::string>& metrics,
                                   std::size_t max_kernels, const std::function<void()>& work) {
    if (metrics.empty()) throw std::invalid_argument("collect_counters: no metrics asked for");
    if (max_kernels == 0) throw std::invalid_argument("collect_counters: max_kernels must be at least 1");
    if (context.device().is_cpu())
        throw ProfilerUnavailable(ProfilerUnavailable::Why::unsupported, cpu_device_has_no_counters);
    const detail::CuptiClaim claim("hardware counters (--metrics)");
    context.make_current();
    const Prepared& prepared = prepare(context, metrics);
    CounterCollection out;
    out.chip = prepared.chip;
    out.metrics = metrics;
    out.descriptions = prepared.descriptions;
    out.passes = prepared.passes;
    std::vector<const char*> names = c_names(metrics);

    const RangeProfiler profiler(context.handle());
    std::vector<std::uint8_t> counter_data = profiler.counter_data_image(names, max_kernels);
    profiler.configure(prepared.config, counter_data, max_kernels);
    detail::run_collecting(profiler, work);
    profiler.decode();
    const std::size_t ranges = ranges_in(counter_data);
    for (std::size_t i = 0; i < ranges; ++i) {
        out.kernels.push_back({prepared.host->evaluate(counter_data, i, names)});
    }
    return out;
}

}  // namespace xcuda::rt

#include "cupti_api.hpp"
#include "cupti_object.hpp"

#include <xcuda/rt/pc_sampling.hpp>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace xcuda::rt {
namespace {

using detail::check_cupti;
using detail::cupti;
using detail::cupti_params;

void disable_sampling(CUcontext ctx) noexcept {
    auto p = detail::object_params<CUpti_PCSamplingDisableParams>(CUpti_PCSamplingDisableParamsSize, ctx);
    cupti().cuptiPCSamplingDisable(&p);
}

// PC sampling on one context, enabled for the life of this object (a second Enable fails).
class Sampler {
public:
    explicit Sampler(CUcontext ctx) : ctx_(enable(ctx)) {}

    // Index -> name of every stall reason of this device (asked after Enable, as CUPTI requires).
    std::map<std::uint32_t, std::string> stall_reasons() const {
        std::size_t count = 0;
        auto n = ctx_.params<CUpti_PCSamplingGetNumStallReasonsParams>(CUpti_PCSamplingGetNumStallReasonsParamsSize);
        n.numStallReasons = &count;
        check_cupti(cupti().cuptiPCSamplingGetNumStallReasons(&n), "cuptiPCSamplingGetNumStallReasons");
        std::vector<std::uint32_t> indices(count);
        std::vector<std::unique_ptr<char[]>> storage;
        std::vector<char*> names;
        for (std::size_t i = 0; i < count; ++i) {
            storage.emplace_back(new char[CUPTI_STALL_REASON_STRING_SIZE]());
            names.push_back(storage.back().get());
        }
        auto r = ctx_.params<CUpti_PCSamplingGetStallReasonsParams>(CUpti_PCSamplingGetStallReasonsParamsSize);
        r.numStallReasons = count;
        r.stallReasonIndex = indices.data();
        r.stallReasons = names.data();
        check_cupti(cupti().cuptiPCSamplingGetStallReasons(&r), "cuptiPCSamplingGetStallReasons");
        std::map<std::uint32_t, std::string> out;
        for (std::size_t i = 0; i < count; ++i) out[indices[i]] = names[i];
        return out;
    }

    void configure(std::vector<CUpti_PCSamplingConfigurationInfo>& attributes) const {
        auto p = ctx_.params<CUpti_PCSamplingConfigurationInfoParams>(CUpti_PCSamplingConfigurationInfoParamsSize);
        p.numAttributes = attributes.size();
        p.pPCSamplingConfigurationInfo = attributes.data();
        check_cupti(cupti().cuptiPCSamplingSetConfigurationAttribute(&p), "cuptiPCSamplingSetConfigurationAttribute");
    }

    void start() const {
        auto p = ctx_.params<CUpti_PCSamplingStartParams>(CUpti_PCSamplingStartParamsSize);
        check_cupti(cupti().cuptiPCSamplingStart(&p), "cuptiPCSamplingStart");
    }

    void stop() const {
        auto p = ctx_.params<CUpti_PCSamplingStopParams>(CUpti_PCSamplingStopParamsSize);
        check_cupti(cupti().cuptiPCSamplingStop(&p), "cuptiPCSamplingStop");
    }

    // Moves what CUPTI still holds into `buffer`; false when nothing was left.
    bool flush(CUpti_PCSamplingData& buffer) const {
        auto p = ctx_.params<CUpti_PCSamplingGetDataParams>(CUpti_PCSamplingGetDataParamsSize);
        p.pcSamplingData = &buffer;
        const CUptiResult r = cupti().cuptiPCSamplingGetData(&p);
        if (r == CUPTI_ERROR_OUT_OF_MEMORY || r == CUPTI_ERROR_INVALID_OPERATION) return false;
        check_cupti(r, "cuptiPCSamplingGetData");
        return buffer.totalNumPcs > 0;
    }

private:
    static CUcontext enable(CUcontext ctx) {
        auto p = cupti_params<CUpti_PCSamplingEnableParams>(CUpti_PCSamplingEnableParamsSize);
        p.ctx = ctx;
        check_cupti(cupti().cuptiPCSamplingEnable(&p), "cuptiPCSamplingEnable");
        return ctx;
    }

    // The context sampling is enabled on, disabled when this goes.
    detail::CuptiObject<CUcontext, disable_sampling> ctx_;
};

// A CUpti_PCSamplingData with room for `pcs` records of up to `reasons` stall reasons each.
class SampleBuffer {
public:
    SampleBuffer(std::size_t pcs, std::size_t reasons) : records_(pcs), stalls_(pcs * reasons), reasons_(reasons) {
        data_.size = sizeof(CUpti_PCSamplingData);
        data_.collectNumPcs = pcs;
        data_.pPcData = records_.data();
        reset();
    }
    void reset() {
        data_.totalNumPcs = 0;
        data_.remainingNumPcs = 0;
        for (std::size_t i = 0; i < records_.size(); ++i) {
            records_[i] = CUpti_PCSamplingPCData{};
            records_[i].size = sizeof(CUpti_PCSamplingPCData);
            records_[i].stallReasonCount = reasons_;
            records_[i].stallReason = stalls_.data() + i * reasons_;
        }
    }
    CUpti_PCSamplingData& data() { return data_; }

private:
    CUpti_PCSamplingData data_{};
    std::vector<CUpti_PCSamplingPCData> records_;
    std::vector<CUpti_PCSamplingStallReason> stalls_;
    std::size_t reasons_;
};

CUpti_PCSamplingConfigurationInfo attribute(CUpti_PCSamplingConfigurationAttributeType type) {
    CUpti_PCSamplingConfigurationInfo a{};
    a.attributeType = type;
    return a;
}

// Adds the records in `buffer` to `out`, one SampledPc per (CUBIN, function, PC). CUPTI's
// function-name strings are shared with its other records and stay CUPTI's: they are copied,
// never freed.
void collect(const CUpti_PCSamplingData& buffer, const std::map<std::uint32_t, std::string>& reasons,
             std::map<std::tuple<std::uint64_t, std::string, std::uint64_t>, SampledPc>& out) {
    for (std::size_t i = 0; i < buffer.totalNumPcs; ++i) {
        const CUpti_PCSamplingPCData& r = buffer.pPcData[i];
        const std::string function = r.functionName ? r.functionName : "";
        SampledPc& pc = out[{r.cubinCrc, function, r.pcOffset}];
        pc.function = function;
        pc.cubin_crc = r.cubinCrc;
        pc.pc_offset = r.pcOffset;
        for (std::size_t s = 0; s < r.stallReasonCount; ++s) {
            const CUpti_PCSamplingStallReason& stall = r.stallReason[s];
            if (stall.samples == 0) continue;
            const auto name = reasons.find(stall.pcSamplingStallReasonIndex);
            const std::string reason =
                name != reasons.end() ? name->second : "reason " + std::to_string(stall.pcSamplingStallReasonIndex);
            auto same = std::find_if(pc.stalls.begin(), pc.stalls.end(),
                                     [&](const StallSamples& s2) { return s2.reason == reason; });
            if (same == pc.stalls.end()) {
                pc.stalls.push_back({reason, stall.samples});
            } else {
                same->samples += stall.samples;
            }
        }
    }
}

}  // namespace

std::uint64_t SampledPc::samples() const {
    std::uint64_t n = 0;
    for (const auto& s : stalls) n += s.samples;
    return n;
}

PcSamples sample_pcs(const PrimaryContext& context, const std::function<void()>& work, unsigned period) {
    if (context.device().is_cpu())
        throw ProfilerUnavailable(ProfilerUnavailable::Why::unsupported, cpu_device_has_no_counters);
    if (period < 5 || period > 31) {
        throw std::invalid_argument("sampling period " + std::to_string(period) +
                                    " is out of range: CUPTI samples every 2^(period + 5) cycles, period 5..31");
    }
    detail::require_nvidia_driver();
    const detail::CuptiClaim claim("PC sampling (--lines)");
    context.make_current();
    const Sampler sampler(context.handle());
    const std::map<std::uint32_t, std::string> reasons = sampler.stall_reasons();
    std::vector<std::uint32_t> reason_indices;
    for (const auto& [index, name] : reasons) reason_indices.push_back(index);

    constexpr std::size_t pcs_per_buffer = 10000;
    SampleBuffer buffer(pcs_per_buffer, reason_indices.size());
    std::vector<CUpti_PCSamplingConfigurationInfo> config;
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD));
    config.back().attributeData.samplingPeriodData.samplingPeriod = period;
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON));
    config.back().attributeData.stallReasonData.stallReasonCount = reason_indices.size();
    config.back().attributeData.stallReasonData.pStallReasonIndex = reason_indices.data();
    // Serialized: each kernel runs alone, so its samples are its own.
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE));
    config.back().attributeData.collectionModeData.collectionMode = CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED;
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL));
    config.back().attributeData.enableStartStopControlData.enableStartStopControl = 1;
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT));
    config.back().attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
    config.push_back(attribute(CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER));
    config.back().attributeData.samplingDataBufferData.samplingDataBuffer = &buffer.data();
    sampler.configure(config);

    detail::run_collecting(sampler, [&] {
        work();
        synchronize_current_context();
    });

    PcSamples out;
    std::map<std::tuple<std::uint64_t, std::string, std::uint64_t>, SampledPc> by_pc;
    // Stop leaves the last records in the configured buffer; GetData hands over the rest.
    for (int round = 0; round < 1000; ++round) {
        const CUpti_PCSamplingData& d = buffer.data();
        out.total_samples += d.totalSamples;
        out.dropped_samples += d.droppedSamples;
        collect(d, reasons, by_pc);
        buffer.reset();
        if (!sampler.flush(buffer.data())) break;
    }
    for (auto& [key, pc] : by_pc) out.pcs.push_back(std::move(pc));
    return out;
}

std::uint64_t cubin_crc(std::string_view cubin) {
    auto p = cupti_params<CUpti_GetCubinCrcParams>(CUpti_GetCubinCrcParamsSize);
    p.cubinSize = cubin.size();
    p.cubin = cubin.data();
    check_cupti(cupti().cuptiGetCubinCrc(&p), "cuptiGetCubinCrc");
    return p.cubinCrc;
}

std::optional<SourceLine> source_line(std::string_view cubin, const std::string& function, std::uint64_t pc_offset) {
    auto p = cupti_params<CUpti_GetSassToSourceCorrelationParams>(CUpti_GetSassToSourceCorrelationParamsSize);
    p.cubin = cubin.data();
    p.cubinSize = cubin.size();
    p.functionName = function.c_str();
    p.pcOffset = pc_offset;
    if (cupti().cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return std::nullopt;
    // These two strings are allocated for this call alone (CUPTI's documentation: the caller frees).
    std::unique_ptr<char, decltype(&std::free)> file(p.fileName, &std::free), dir(p.dirName, &std::free);
    if (p.lineNumber == 0) return std::nullopt;
    return SourceLine{file ? file.get() : "", p.lineNumber};
}

}  // namespace xcuda::rt

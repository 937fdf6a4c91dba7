#include "cupti_api.hpp"

#include <xcuda/rt/activity_trace.hpp>

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace xcuda::rt {
namespace {

using detail::check_cupti;
using detail::cupti;

// CUPTI hands records over in buffers it asks for and gives back through two plain callbacks,
// which carry no user pointer: the buffers they fill live here, for the one trace at a time.
constexpr std::size_t buffer_bytes = 8u << 20;
constexpr std::size_t record_alignment = 8;

std::mutex buffers_mutex;
std::vector<std::pair<std::uint8_t*, std::size_t>> completed_buffers;  // (buffer, valid bytes)

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(record_alignment, buffer_bytes));
    *size = *buffer != nullptr ? buffer_bytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
    std::lock_guard<std::mutex> lock(buffers_mutex);
    completed_buffers.emplace_back(buffer, valid);
}

// What the trace asks CUPTI for. CONCURRENT_KERNEL, not KERNEL: the latter serialises kernels.
constexpr CUpti_ActivityKind traced_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_MARKER,
};

std::string demangled(const char* name) {
    if (name == nullptr) return "?";
    int status = 0;
    char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || plain == nullptr) return name;
    std::string out(plain);
    std::free(plain);
    return out;
}

const char* copy_direction(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
        default: return "copy";
    }
}

// The host side of a copy: pinned (page-locked) or pageable, which decides whether the copy can
// run asynchronously at full speed; -1 for a copy with no host side.
int host_pinned(std::uint8_t src_kind, std::uint8_t dst_kind) {
    for (const std::uint8_t kind : {src_kind, dst_kind}) {
        if (kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED) return 1;
        if (kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE) return 0;
    }
    return -1;
}

const char* sync_name(CUpti_ActivitySynchronizationType type) {
    switch (type) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event synchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream wait event";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream synchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context synchronize";
        default: return "synchronize";
    }
}

// The call's name as users write it: CUPTI names the versioned entry point ("cudaMemcpyAsync_v3020",
// "cuMemcpyDtoH_v2").
std::string callback_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
    const char* name = nullptr;
    if (cupti().cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "?";
    std::string plain(name);
    const auto suffix = plain.rfind("_v");
    if (suffix != std::string::npos && suffix + 2 < plain.size() &&
        plain.find_first_not_of("0123456789", suffix + 2) == std::string::npos) {
        plain.erase(suffix);
    }
    return plain;
}

// Turns CUPTI's records into TraceRecords. Calls are kept only where they matter on a timeline:
// those that caused device work or waited for it (thousands of attribute queries would bury them).
class Decoder {
public:
    void add(const CUpti_Activity* record) {
        switch (record->kind) {
            case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            case CUPTI_ACTIVITY_KIND_KERNEL: kernel(reinterpret_cast<const CUpti_ActivityKernel10*>(record)); break;
            case CUPTI_ACTIVITY_KIND_MEMCPY: memcpy(reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)); break;
            case CUPTI_ACTIVITY_KIND_MEMSET: memset(reinterpret_cast<const CUpti_ActivityMemset4*>(record)); break;
            case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
                sync(reinterpret_cast<const CUpti_ActivitySynchronization2*>(record));
                break;
            case CUPTI_ACTIVITY_KIND_DRIVER:
            case CUPTI_ACTIVITY_KIND_RUNTIME: api(reinterpret_cast<const CUpti_ActivityAPI*>(record)); break;
            case CUPTI_ACTIVITY_KIND_MARKER: marker(reinterpret_cast<const CUpti_ActivityMarker2*>(record)); break;
            default: break;
        }
    }

    std::vector<TraceRecord> finish() {
        std::vector<TraceRecord> out = std::move(device_);
        add_graphs(out);
        std::map<std::uint32_t, std::string> caller;  // correlation -> the call's name, for syncs
        for (TraceRecord& call : calls_) {
            if (call.correlation != 0 && caused_.count(call.correlation) != 0) {
                caller.emplace(call.correlation, call.name);
                out.push_back(std::move(call));
            }
        }
        for (TraceRecord& s : syncs_) {
            if (auto it = caller.find(s.correlation); it != caller.end()) s.name = it->second;
            out.push_back(std::move(s));
        }
        for (auto& [id, range] : open_ranges_) {
            (void)id;
            out.push_back(std::move(range));  // pushed but not popped before stop(): ends unknown
        }
        for (TraceRecord& r : ranges_) out.push_back(std::move(r));
        std::stable_sort(out.begin(), out.end(),
                         [](const TraceRecord& a, const TraceRecord& b) { return a.start_ns < b.start_ns; });
        return out;
    }

private:
    static TraceRecord device_record(TraceRecord::Kind kind, std::uint64_t start, std::uint64_t end,
                                     std::uint32_t stream, std::uint32_t correlation) {
        TraceRecord r;
        r.kind = kind;
        r.start_ns = static_cast<std::int64_t>(start);
        r.end_ns = static_cast<std::int64_t>(end);
        r.stream = stream;
        r.correlation = correlation;
        return r;
    }

    void kernel(const CUpti_ActivityKernel10* k) {
        TraceRecord r = device_record(TraceRecord::Kind::kernel, k->start, k->end, k->streamId, k->correlationId);
        r.name = demangled(k->name);
        r.grid[0] = static_cast<unsigned>(k->gridX), r.grid[1] = static_cast<unsigned>(k->gridY);
        r.grid[2] = static_cast<unsigned>(k->gridZ);
        r.block[0] = static_cast<unsigned>(k->blockX), r.block[1] = static_cast<unsigned>(k->blockY);
        r.block[2] = static_cast<unsigned>(k->blockZ);
        r.registers = k->registersPerThread;
        r.static_shared = static_cast<unsigned>(k->staticSharedMemory);
        r.dynamic_shared = static_cast<unsigned>(k->dynamicSharedMemory);
        note_device_work(r, k->graphId);
    }

    void memcpy(const CUpti_ActivityMemcpy6* m) {
        TraceRecord r = device_record(TraceRecord::Kind::memcpy, m->start, m->end, m->streamId, m->correlationId);
        r.direction = copy_direction(m->copyKind);
        r.name = "memcpy " + r.direction;
        r.bytes = m->bytes;
        r.pinned = host_pinned(m->srcKind, m->dstKind);
        note_device_work(r, m->graphId);
    }

    void memset(const CUpti_ActivityMemset4* m) {
        TraceRecord r = device_record(TraceRecord::Kind::memset, m->start, m->end, m->streamId, m->correlationId);
        r.name = "memset";
        r.bytes = m->bytes;
        note_device_work(r, m->graphId);
    }

    // A graph's nodes come as ordinary records carrying the graph's id and the correlation of the
    // cuGraphLaunch that ran them; one graph record per launch spans them (add_graphs).
    void note_device_work(TraceRecord& r, std::uint32_t graph_id) {
        caused_.insert(r.correlation);
        if (graph_id != 0) {
            auto& g = graph_launches_[{r.correlation, graph_id}];
            if (g.nodes++ == 0 || r.start_ns < g.start) g.start = r.start_ns;
            g.end = std::max(g.end, r.end_ns);
            g.stream = r.stream;
        }
        device_.push_back(std::move(r));
    }

    void add_graphs(std::vector<TraceRecord>& out) const {
        for (const auto& [key, g] : graph_launches_) {
            TraceRecord r =
                device_record(TraceRecord::Kind::graph, static_cast<std::uint64_t>(g.start),
                              static_cast<std::uint64_t>(g.end), static_cast<std::uint32_t>(g.stream), key.first);
            r.name = "graph " + std::to_string(key.second) + " (" + std::to_string(g.nodes) +
                     (g.nodes == 1 ? " node)" : " nodes)");
            out.push_back(std::move(r));
        }
    }

    void sync(const CUpti_ActivitySynchronization2* s) {
        TraceRecord r;
        r.kind = TraceRecord::Kind::sync;
        r.name = sync_name(s->type);
        r.start_ns = static_cast<std::int64_t>(s->start);
        r.end_ns = static_cast<std::int64_t>(s->end);
        r.correlation = s->correlationId;
        caused_.insert(s->correlationId);  // keeps the call that waited
        syncs_.push_back(std::move(r));
    }

    void api(const CUpti_ActivityAPI* a) {
        TraceRecord r;
        r.kind = TraceRecord::Kind::api;
        r.name = callback_name(
            a->kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid);
        r.start_ns = static_cast<std::int64_t>(a->start);
        r.end_ns = static_cast<std::int64_t>(a->end);
        r.correlation = a->correlationId;
        calls_.push_back(std::move(r));
    }

    void marker(const CUpti_ActivityMarker2* m) {
        if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
            TraceRecord r;
            r.kind = TraceRecord::Kind::nvtx;
            r.name = m->name != nullptr ? m->name : "";
            r.domain = m->domain != nullptr ? m->domain : "";
            r.start_ns = r.end_ns = static_cast<std::int64_t>(m->timestamp);
            open_ranges_[m->id] = std::move(r);
        } else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
            auto it = open_ranges_.find(m->id);
            if (it == open_ranges_.end()) return;  // pushed before the trace began
            it->second.end_ns = static_cast<std::int64_t>(m->timestamp);
            ranges_.push_back(std::move(it->second));
            open_ranges_.erase(it);
        }
    }

    struct GraphLaunch {
        std::int64_t start = 0, end = 0, stream = 0;
        unsigned nodes = 0;
    };
    std::vector<TraceRecord> device_, calls_, syncs_, ranges_;
    std::map<std::uint32_t, TraceRecord> open_ranges_;
    std::set<std::uint32_t> caused_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, GraphLaunch> graph_launches_;
};

void CUPTIAPI ignore_callbacks(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

// Holds CUPTI's subscriber slot while the trace records, where it is free, so that a tool that
// subscribes meanwhile is refused by CUPTI rather than silently sharing the records. Where it is
// taken, the trace goes on without it: a subscriber is not necessarily recording (PyTorch's
// profiler keeps its slot for the rest of the process once used), and the Activity API needs no
// slot. What does record meanwhile is refused before this (refuse_if_a_tool_records, and
// torch.profiler in _timeline.py).
class Subscription {
public:
    Subscription() {
        using SubscribeV2 =
            CUptiResult (*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*, CUpti_SubscriberParams*);
        CUptiResult result;
        if (auto v2 = reinterpret_cast<SubscribeV2>(detail::optional_entry("cuptiSubscribe_v2")); v2 != nullptr) {
            char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = {0};
            CUpti_SubscriberParams params{};
            params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
            params.subscriberName = "xcuda timeline";
            params.oldSubscriberName = holder;
            params.oldSubscriberSize = sizeof holder;
            result = v2(&handle_, ignore_callbacks, nullptr, &params);
        } else {
            result = cupti().cuptiSubscribe(&handle_, ignore_callbacks, nullptr);
        }
        if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
            handle_ = nullptr;
            return;
        }
        check_cupti(result, "cuptiSubscribe");
    }
    ~Subscription() {
        if (handle_ != nullptr) cupti().cuptiUnsubscribe(handle_);
    }
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;

private:
    CUpti_SubscriberHandle handle_ = nullptr;
};

// A CUDA tool that started this process (Nsight Systems, Nsight Compute, compute-sanitizer) injects
// itself through CUDA_INJECTION64_PATH and records through CUPTI all along: the trace would take its
// records. Throws ProfilerUnavailable (Why::busy) naming it.
void refuse_if_a_tool_records() {
    const char* injected = std::getenv("CUDA_INJECTION64_PATH");
    if (injected == nullptr || *injected == '\0') return;
    throw ProfilerUnavailable(ProfilerUnavailable::Why::busy,
                              std::string("a CUDA tool started this kernel and records through CUPTI "
                                          "(CUDA_INJECTION64_PATH=") +
                                  injected +
                                  ": Nsight Systems, Nsight Compute or compute-sanitizer); CUPTI serves one at a "
                                  "time. Start the kernel outside the tool to use the timeline");
}

// NVTX finds its injection library through this variable once, at its first call in the process;
// set before that, CUPTI receives the ranges as MARKER records.
void offer_nvtx_injection() {
    if (std::getenv("NVTX_INJECTION64_PATH") == nullptr) ::setenv("NVTX_INJECTION64_PATH", cupti().path.c_str(), 0);
}

std::vector<std::pair<std::uint8_t*, std::size_t>> take_buffers() {
    std::lock_guard<std::mutex> lock(buffers_mutex);
    return std::exchange(completed_buffers, {});
}

}  // namespace

const char* kind_name(TraceRecord::Kind kind) {
    switch (kind) {
        case TraceRecord::Kind::kernel: return "kernel";
        case TraceRecord::Kind::memcpy: return "memcpy";
        case TraceRecord::Kind::memset: return "memset";
        case TraceRecord::Kind::graph: return "graph";
        case TraceRecord::Kind::sync: return "sync";
        case TraceRecord::Kind::api: return "api";
        case TraceRecord::Kind::nvtx: return "nvtx";
    }
    return "?";
}

struct ActivityTrace::State {
    detail::CuptiClaim claim{"the timeline"};
    Subscription subscription;
    bool running = true;
};

ActivityTrace::ActivityTrace() {
    detail::require_nvidia_driver();
    refuse_if_a_tool_records();
    auto state = std::make_unique<State>();
    offer_nvtx_injection();
    for (auto& [buffer, valid] : take_buffers()) {  // a trace that failed half-way left some
        (void)valid;
        std::free(buffer);
    }
    check_cupti(cupti().cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                "cuptiActivityRegisterCallbacks");
    std::vector<CUpti_ActivityKind> enabled;
    try {
        for (const CUpti_ActivityKind kind : traced_kinds) {
            check_cupti(cupti().cuptiActivityEnable(kind), "cuptiActivityEnable");
            enabled.push_back(kind);
        }
    } catch (...) {
        for (const CUpti_ActivityKind kind : enabled) cupti().cuptiActivityDisable(kind);
        throw;
    }
    state_ = std::move(state);
}

ActivityTrace::~ActivityTrace() {
    if (state_ && state_->running) {
        try {
            (void)stop();
        } catch (const std::exception&) {
            // Destruction after a failure: the error that got us here is the one reported.
        }
    }
}

TraceResult ActivityTrace::stop() {
    TraceResult result;
    if (!state_ || !state_->running) return result;
    state_->running = false;
    const CUptiResult flushed = cupti().cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (const CUpti_ActivityKind kind : traced_kinds) cupti().cuptiActivityDisable(kind);
    Decoder decoder;
    for (auto& [buffer, valid] : take_buffers()) {
        CUpti_Activity* record = nullptr;
        while (cupti().cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) decoder.add(record);
        std::size_t dropped = 0;
        if (cupti().cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) result.dropped += dropped;
        std::free(buffer);
    }
    check_cupti(flushed, "cuptiActivityFlushAll");
    result.records = decoder.finish();
    return result;
}

std::int64_t ActivityTrace::now_ns() {
    std::uint64_t t = 0;
    check_cupti(cupti().cuptiGetTimestamp(&t), "cuptiGetTimestamp");
    return static_cast<std::int64_t>(t);
}

}  // namespace xcuda::rt

// Events: a record is an operation of its stream that stamps the time (steady_clock) when the
// stream reaches it.
#include "driver/context_state.hpp"
#include "driver/handles.hpp"
#include "driver/stream_handles.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <chrono>

namespace xcuda::cpu::driver {
namespace {

using namespace detail;

struct Event {
    explicit Event(unsigned flags) : flags(flags) {}
    const unsigned flags;
    // Guarded by the scheduler's mutex:
    std::uint64_t recorded = 0;  // cuEventRecord calls queued
    std::uint64_t reached = 0;   // the latest of them that ran
    std::chrono::steady_clock::time_point at;
    bool captured = false;  // last recorded into a stream capture
};

HandleTable<Event>& event_table() {
    static auto* table = new HandleTable<Event>();  // never destroyed: used during exit
    return *table;
}

}  // namespace

CUresult cuEventCreate(CUevent* phEvent, unsigned int flags) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    constexpr unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (phEvent == nullptr || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
    if ((flags & CU_EVENT_INTERPROCESS) != 0) {
        // The real driver wants timing off for an IPC event; the CPU device has no IPC at all.
        return (flags & CU_EVENT_DISABLE_TIMING) == 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
    }
    *phEvent = event_table().add<CUevent>(std::make_shared<Event>(flags));
    return CUDA_SUCCESS;
}

// Records still queued complete (they hold the event) but nothing can ask about them.
CUresult cuEventDestroy(CUevent hEvent) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    return event_table().remove(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Event> event = event_table().find(hEvent);
    if (!event) return CUDA_ERROR_INVALID_HANDLE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    auto generation = std::make_shared<std::uint64_t>(0);
    Op op;
    op.kind = OpKind::marker;
    op.queued = [event, generation] {
        *generation = ++event->recorded;
        event->captured = false;
    };
    op.run = [event, generation](const std::atomic<bool>&) {
        if (*generation > event->reached) {
            event->reached = *generation;
            event->at = std::chrono::steady_clock::now();
        }
        return Outcome{};
    };
    // Inside a capture an event only marks a point of the capture (for other streams to join).
    auto capture = [event](Capture&) {
        event->captured = true;
        return CUDA_SUCCESS;
    };
    return Scheduler::instance().submit(*stream, std::move(op), capture);
}

// The device's pending error first (once), then CUDA_ERROR_NOT_READY until the stream reached the
// last record (an event never recorded is complete).
CUresult cuEventQuery(CUevent hEvent) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Event> event = event_table().find(hEvent);
    if (!event) return CUDA_ERROR_INVALID_HANDLE;
    Scheduler& s = Scheduler::instance();
    {
        auto lock = s.lock();
        if (event->captured) return CUDA_ERROR_CAPTURED_EVENT;
    }
    if (CUresult rc = s.report(); rc != CUDA_SUCCESS) return rc;
    auto lock = s.lock();
    return event->reached >= event->recorded ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (pMilliseconds == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Event> start = event_table().find(hStart);
    std::shared_ptr<Event> end = event_table().find(hEnd);
    if (!start || !end) return CUDA_ERROR_INVALID_HANDLE;
    auto lock = Scheduler::instance().lock();
    if (start->captured || end->captured) return CUDA_ERROR_CAPTURED_EVENT;
    if (((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) != 0) return CUDA_ERROR_INVALID_HANDLE;
    if (start->recorded == 0 || end->recorded == 0) return CUDA_ERROR_INVALID_HANDLE;
    if (start->reached < start->recorded || end->reached < end->recorded) return CUDA_ERROR_NOT_READY;
    *pMilliseconds = std::chrono::duration<float, std::milli>(end->at - start->at).count();
    return CUDA_SUCCESS;
}

}  // namespace xcuda::cpu::driver

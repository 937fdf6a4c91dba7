// Streams: each runs its work in order on a worker thread (stream_queues.hpp).
#include "driver/context_state.hpp"
#include "driver/graph_objects.hpp"
#include "driver/stream_handles.hpp"

#include <xcuda/cpu/cpu_device.hpp>

namespace xcuda::cpu::driver {

using namespace detail;

CUresult cuStreamCreate(CUstream* phStream, unsigned int flags) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (phStream == nullptr || (flags & ~unsigned{CU_STREAM_NON_BLOCKING}) != 0) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream = Scheduler::instance().create_stream((flags & CU_STREAM_NON_BLOCKING) != 0);
    *phStream = stream_table().add<CUstream>(std::move(stream));
    return CUDA_SUCCESS;
}

// Returns at once: the work queued on the stream still runs. A capture in progress is dropped.
CUresult cuStreamDestroy(CUstream hStream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Stream> stream = stream_table().remove(hStream);
    if (!stream) return CUDA_ERROR_INVALID_HANDLE;
    Scheduler& s = Scheduler::instance();
    {
        auto lock = s.lock();
        if (stream->capture) {
            discard_graph(stream->capture->handle);
            stream->capture.reset();
        }
    }
    s.destroy_stream(stream);
    return CUDA_SUCCESS;
}

// The device's pending error first (once), then CUDA_ERROR_NOT_READY while work queued on the
// stream has not finished (for the legacy stream: on any blocking stream either).
CUresult cuStreamQuery(CUstream hStream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    Scheduler& s = Scheduler::instance();
    {
        auto lock = s.lock();
        if (stream->capture) {
            stream->capture->invalidated = true;
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        if (stream->legacy && s.blocking_capture_active_locked()) {
            s.invalidate_blocking_captures_locked();
            return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        }
    }
    if (CUresult rc = s.report(); rc != CUDA_SUCCESS) return rc;
    return s.idle(*stream) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

}  // namespace xcuda::cpu::driver

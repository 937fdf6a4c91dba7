// Streams and events (in the current context).
#pragma once

#include <xcuda/rt/handle.hpp>

#include <cuda.h>

namespace xcuda::rt {

namespace detail {
struct StreamDestroy : BackendRelease {
    void operator()(CUstream stream) const noexcept;
};
struct EventDestroy : BackendRelease {
    void operator()(CUevent event) const noexcept;
};
}  // namespace detail

// A created stream (RAII), move-only.
class Stream {
public:
    // non_blocking: does not synchronise with the legacy default stream (CU_STREAM_NON_BLOCKING).
    explicit Stream(bool non_blocking = true);

    CUstream handle() const noexcept { return stream_.get(); }
    // True when all work queued so far has finished; throws the work's error.
    bool query() const;
    // Polling wait; throws Interrupted when the interrupt check fires.
    void synchronize() const;

private:
    detail::Handle<CUstream, detail::StreamDestroy> stream_;
};

// Polling wait on any stream handle (nullptr = legacy default stream).
bool query_stream(CUstream stream);
void synchronize_stream(CUstream stream);

// A created event (RAII), move-only.
class Event {
public:
    // timing=false creates CU_EVENT_DISABLE_TIMING (cheaper, but elapsed_ms refuses it).
    explicit Event(bool timing = true);

    CUevent handle() const noexcept { return event_.get(); }
    void record(CUstream stream = nullptr) const;
    bool query() const;
    void synchronize() const;  // polling, interruptible

private:
    detail::Handle<CUevent, detail::EventDestroy> event_;
};

// Milliseconds between two recorded, completed events (waits for `end` first, polling).
float elapsed_ms(const Event& start, const Event& end);

}  // namespace xcuda::rt

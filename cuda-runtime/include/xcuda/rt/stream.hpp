// Streams and events (in the current context).
#pragma once

#include <cuda.h>

namespace xcuda::rt {

// A created stream (RAII), move-only.
class Stream {
public:
    // non_blocking: does not synchronise with the legacy default stream (CU_STREAM_NON_BLOCKING).
    explicit Stream(bool non_blocking = true);
    ~Stream();
    Stream(Stream&& other) noexcept;
    Stream& operator=(Stream&& other) noexcept;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;

    CUstream handle() const noexcept { return stream_; }
    // True when all work queued so far has finished; throws the work's error.
    bool query() const;
    // Polling wait; throws Interrupted when the interrupt check fires.
    void synchronize() const;

private:
    CUstream stream_ = nullptr;
};

// Polling wait on any stream handle (nullptr = legacy default stream).
bool query_stream(CUstream stream);
void synchronize_stream(CUstream stream);

// A created event (RAII), move-only.
class Event {
public:
    // timing=false creates CU_EVENT_DISABLE_TIMING (cheaper, but elapsed_ms refuses it).
    explicit Event(bool timing = true);
    ~Event();
    Event(Event&& other) noexcept;
    Event& operator=(Event&& other) noexcept;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;

    CUevent handle() const noexcept { return event_; }
    void record(CUstream stream = nullptr) const;
    bool query() const;
    void synchronize() const;   // polling, interruptible

private:
    CUevent event_ = nullptr;
};

// Milliseconds between two recorded, completed events (waits for `end` first, polling).
float elapsed_ms(const Event& start, const Event& end);

}  // namespace xcuda::rt

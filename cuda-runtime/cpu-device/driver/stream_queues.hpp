// Streams and their work: each stream (the legacy NULL stream included) runs its operations in
// order on a worker thread of its own. The legacy stream synchronises with blocking streams: an
// operation queued on it waits for everything queued before on blocking streams, and one queued
// on a blocking stream waits for everything queued before on the legacy stream; non-blocking
// streams wait for nothing but their own earlier work.
//
// The device's error state lives here too. A failed launch leaves its error (and its Failure)
// pending; while it is pending, and afterwards for every operation queued before it was reported,
// copies, memsets and launches are skipped, as a GPU runs nothing after a fault. Event records
// still happen, so waits on them end. The error is reported once, by the first of these calls:
// cuStreamQuery, cuEventQuery, cuCtxSynchronize, the synchronous cuMemcpyHtoD/DtoH/DtoD and
// cuMemsetD8, and cuMemcpyDtoHAsync into pageable memory (which completes before it returns).
// A synchronous copy that was skipped answers the error that skipped it even when another call
// reported it first. take_failure() hands out the Failure and clears a pending error unreported.
#pragma once

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/cpu/finding.hpp>

#include <cuda.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace xcuda::cpu::driver::detail {

struct Graph;

struct Outcome {
    CUresult status = CUDA_SUCCESS;
    std::shared_ptr<const Failure> failure;  // with an error status
};

enum class OpKind : std::uint8_t {
    work,    // a copy or memset: skipped while the error state says so
    launch,  // a kernel or graph launch: skipped as work is, and stopped by cancel_launches()
    marker,  // an event record: never skipped, and run under the scheduler's lock (it only stamps)
};

struct Op {
    OpKind kind = OpKind::work;
    std::function<Outcome(const std::atomic<bool>& cancel)> run;
    // Called under the scheduler's lock once the op is queued, before a worker can run it (an
    // event counts its records there, so a record that could not be queued is not counted).
    std::function<void()> queued;
    // What the op is, for the timeline (set_stream_work_recording); nullptr: not shown there.
    std::shared_ptr<const StreamWork> described;
};

// What a caller that waits for one operation learns of it.
struct Completion {
    bool done = false;
    CUresult skipped_by = CUDA_SUCCESS;  // the error that kept it from running
};

// A stream's capture into a graph (cuStreamBeginCapture .. cuStreamEndCapture).
struct Capture {
    std::shared_ptr<Graph> graph;
    CUgraph handle = nullptr;
    std::uint64_t id = 0;
    bool invalidated = false;
    CUgraphNode last = nullptr;  // the node the next one depends on (captures are linear)
};

class Stream {
public:
    Stream(bool legacy, bool non_blocking, unsigned number)
        : legacy(legacy), non_blocking(non_blocking), number(number) {}
    const bool legacy;
    const bool non_blocking;
    const unsigned number;  // 0 for the legacy stream, then 1, 2, ... in creation order
    // Guarded by the scheduler's mutex:
    std::optional<Capture> capture;

private:
    friend class Scheduler;
    struct Queued {
        Op op;
        std::uint64_t seq = 0;  // position in the order of all submissions
        std::vector<std::pair<std::shared_ptr<Stream>, std::uint64_t>> after;  // stream, submitted count
        std::shared_ptr<std::atomic<bool>> cancel;
        std::shared_ptr<Completion> completion;
    };
    std::deque<Queued> queue_;
    std::uint64_t submitted_ = 0, completed_ = 0;
    std::shared_ptr<std::atomic<bool>> running_cancel_;  // of the launch running now
    std::condition_variable wake_;
    std::thread worker_;  // started with the first submission
    bool destroyed_ = false, exited_ = false;
};

class Scheduler {
public:
    // Never destroyed; its workers are stopped by an exit handler.
    static Scheduler& instance();

    std::unique_lock<std::mutex> lock() { return std::unique_lock<std::mutex>(mutex_); }

    const std::shared_ptr<Stream>& legacy() const { return legacy_; }
    std::shared_ptr<Stream> create_stream(bool non_blocking);
    // Returns at once; the work queued on it still runs.
    void destroy_stream(const std::shared_ptr<Stream>& stream);

    // What a capturing stream does with an operation instead of queuing it (called under the
    // scheduler's lock); nullptr when the operation cannot be captured.
    using CaptureHook = std::function<CUresult(Capture&)>;
    // Queues `op` on `stream`, or records it into the stream's capture. CUDA_ERROR_DEINITIALIZED
    // once the process is exiting, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT for the legacy stream while
    // a blocking stream captures (that capture is invalidated, as the real driver's is).
    CUresult submit(Stream& stream, Op op, const CaptureHook& capture = nullptr,
                    std::shared_ptr<Completion> completion = nullptr);

    void wait(const std::shared_ptr<Completion>& completion);
    // Waits for everything submitted so far on every stream.
    void wait_idle();
    // Nothing left to run on `stream` (for the legacy stream: nor on any blocking stream).
    bool idle(const Stream& stream);
    // Under the lock: a blocking stream capturing, which the legacy stream may not wait for.
    bool blocking_capture_active_locked() const;
    void invalidate_blocking_captures_locked();
    bool any_capture_active_locked() const;

    // The pending error, once: afterwards operations queued from now on run again.
    CUresult report();
    std::shared_ptr<const Failure> take_failure();
    void cancel_launches();

    // Stops every worker: queued operations are dropped and running launches cancelled.
    void shut_down();

    void set_recording(bool on);
    std::vector<StreamWork> take_recorded();

private:
    Scheduler();
    void serve(Stream& stream);
    bool ready_locked(const Stream::Queued& q) const;
    bool skipping_locked(const Stream::Queued& q) const;
    void record_locked(const Outcome& outcome);
    void clear_error_locked();
    std::vector<std::thread> reap_locked();

    std::mutex mutex_;
    std::condition_variable progress_;  // an operation completed, or a worker exited
    std::shared_ptr<Stream> legacy_;
    std::vector<std::shared_ptr<Stream>> streams_;  // every stream with a worker or work, legacy first
    std::uint64_t next_seq_ = 0;
    unsigned streams_made_ = 0;
    bool shutting_down_ = false;
    bool recording_ = false;
    std::vector<StreamWork> recorded_;
    // The error state.
    CUresult pending_ = CUDA_SUCCESS;     // not yet reported
    CUresult last_error_ = CUDA_SUCCESS;  // pending or reported: what skipped operations answer
    std::uint64_t skip_below_ = 0;        // operations queued before the last report are skipped
    std::shared_ptr<const Failure> failure_;
};

}  // namespace xcuda::cpu::driver::detail

#include "driver/stream_queues.hpp"

#include <xcuda/cpu/debugger.hpp>

#include <chrono>
#include <cstdlib>
#include <system_error>
#include <utility>

namespace xcuda::cpu::driver::detail {
namespace {

// How long the exit handler waits for the workers to stop: a launch notices a cancel within
// milliseconds, a copy finishes what it does; a worker still busy after this is left behind
// (the process is ending, and nothing it uses is destroyed).
constexpr std::chrono::seconds exit_grace{5};

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

Scheduler& Scheduler::instance() {
    // Never destroyed: the exit handler and the runtime's static destructors use it during exit.
    static Scheduler* s = new Scheduler();
    return *s;
}

Scheduler::Scheduler() : legacy_(std::make_shared<Stream>(true, false, 0)) {
    streams_.push_back(legacy_);
    // wait_idle's wait ends when a launch parks at a debugger's stop (the lock makes the wake-up
    // fall after the waiter's check or before its wait, never between).
    set_debug_stop_listener([this] {
        std::lock_guard<std::mutex> lock(mutex_);
        progress_.notify_all();
    });
}

std::shared_ptr<Stream> Scheduler::create_stream(bool non_blocking) {
    std::shared_ptr<Stream> stream;
    std::vector<std::thread> finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stream = std::make_shared<Stream>(false, non_blocking, ++streams_made_);
        finished = reap_locked();
        streams_.push_back(stream);
    }
    for (std::thread& t : finished) t.join();
    return stream;
}

void Scheduler::destroy_stream(const std::shared_ptr<Stream>& stream) {
    std::vector<std::thread> finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stream->destroyed_ = true;
        stream->wake_.notify_all();
        finished = reap_locked();
    }
    for (std::thread& t : finished) t.join();
}

// Destroyed streams whose work is done leave the list; their workers, which have returned or are
// returning, are handed back to be joined outside the lock.
std::vector<std::thread> Scheduler::reap_locked() {
    std::vector<std::thread> finished;
    for (auto it = streams_.begin(); it != streams_.end();) {
        Stream& s = **it;
        const bool never_ran = !s.worker_.joinable() && s.queue_.empty();
        if (s.destroyed_ && (s.exited_ || never_ran)) {
            if (s.worker_.joinable()) finished.push_back(std::move(s.worker_));
            it = streams_.erase(it);
        } else {
            ++it;
        }
    }
    return finished;
}

CUresult Scheduler::submit(Stream& stream, Op op, const CaptureHook& capture, std::shared_ptr<Completion> completion) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutting_down_) return CUDA_ERROR_DEINITIALIZED;
    if (stream.destroyed_) return CUDA_ERROR_INVALID_HANDLE;
    if (stream.capture) {
        if (stream.capture->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        if (!capture) {
            stream.capture->invalidated = true;
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        return capture(*stream.capture);
    }
    if (stream.legacy && blocking_capture_active_locked()) {
        invalidate_blocking_captures_locked();
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
    if (!stream.worker_.joinable()) {
        try {
            stream.worker_ = std::thread([this, &stream] { serve(stream); });
        } catch (const std::system_error&) {
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        static std::once_flag exit_handler;
        std::call_once(exit_handler, [] { std::atexit([] { Scheduler::instance().shut_down(); }); });
    }
    Stream::Queued q;
    q.op = std::move(op);
    q.seq = next_seq_++;
    q.cancel = std::make_shared<std::atomic<bool>>(false);
    q.completion = std::move(completion);
    if (stream.legacy) {
        for (const std::shared_ptr<Stream>& s : streams_) {
            if (!s->legacy && !s->non_blocking && s->completed_ < s->submitted_) q.after.emplace_back(s, s->submitted_);
        }
    } else if (!stream.non_blocking && legacy_->completed_ < legacy_->submitted_) {
        q.after.emplace_back(legacy_, legacy_->submitted_);
    }
    if (q.op.queued) q.op.queued();
    stream.queue_.push_back(std::move(q));
    ++stream.submitted_;
    stream.wake_.notify_one();
    return CUDA_SUCCESS;
}

bool Scheduler::ready_locked(const Stream::Queued& q) const {
    for (const auto& [other, count] : q.after) {
        if (other->completed_ < count) return false;
    }
    return true;
}

bool Scheduler::skipping_locked(const Stream::Queued& q) const {
    return pending_ != CUDA_SUCCESS || q.seq < skip_below_;
}

void Scheduler::serve(Stream& stream) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        stream.wake_.wait(lock, [&] { return !stream.queue_.empty() || stream.destroyed_ || shutting_down_; });
        if (stream.queue_.empty()) break;
        Stream::Queued q = std::move(stream.queue_.front());
        stream.queue_.pop_front();
        stream.running_cancel_ = q.cancel;
        progress_.wait(lock, [&] { return shutting_down_ || ready_locked(q); });
        Outcome outcome;
        CUresult skipped_by = CUDA_SUCCESS;
        if (shutting_down_) {
            skipped_by = CUDA_ERROR_DEINITIALIZED;
        } else if (q.op.kind == OpKind::marker) {
            outcome = q.op.run(*q.cancel);
        } else if (skipping_locked(q)) {
            skipped_by = pending_ != CUDA_SUCCESS ? pending_ : last_error_;
        } else if (!(q.op.kind == OpKind::launch && q.cancel->load())) {
            const bool record = recording_ && q.op.described;
            const std::int64_t start = record ? steady_ns() : 0;
            lock.unlock();
            outcome = q.op.run(*q.cancel);
            const std::int64_t end = record ? steady_ns() : 0;
            lock.lock();
            if (record && recording_) {
                StreamWork work = *q.op.described;
                work.stream = stream.number;
                work.start_ns = start;
                work.end_ns = end;
                recorded_.push_back(std::move(work));
            }
        }
        stream.running_cancel_.reset();
        if (outcome.status != CUDA_SUCCESS) record_locked(outcome);
        if (q.completion) {
            q.completion->done = true;
            q.completion->skipped_by = skipped_by;
        }
        ++stream.completed_;
        progress_.notify_all();
    }
    stream.exited_ = true;
    progress_.notify_all();
}

// The first failure since the last report is the one kept: what fails after it is a consequence.
void Scheduler::record_locked(const Outcome& outcome) {
    if (pending_ != CUDA_SUCCESS) return;
    pending_ = last_error_ = outcome.status;
    failure_ = outcome.failure;
}

void Scheduler::clear_error_locked() {
    pending_ = CUDA_SUCCESS;
    skip_below_ = next_seq_;
}

void Scheduler::set_recording(bool on) {
    std::lock_guard<std::mutex> lock(mutex_);
    recording_ = on;
}

std::vector<StreamWork> Scheduler::take_recorded() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(recorded_, {});
}

void Scheduler::wait(const std::shared_ptr<Completion>& completion) {
    std::unique_lock<std::mutex> lock(mutex_);
    progress_.wait(lock, [&] { return completion->done; });
}

void Scheduler::wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    std::vector<std::pair<std::shared_ptr<Stream>, std::uint64_t>> targets;
    for (const std::shared_ptr<Stream>& s : streams_) targets.emplace_back(s, s->submitted_);
    const auto done = [&] {
        for (const auto& [s, count] : targets) {
            if (s->completed_ < count) return false;
        }
        return true;
    };
    // A launch stopped by the debugger goes on only when the frontend says so, which the thread
    // waiting here may be the one to do: not waited for (what it uses, it holds).
    progress_.wait(lock, [&] { return done() || debug_stop_held(); });
}

bool Scheduler::idle(const Stream& stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stream.completed_ < stream.submitted_) return false;
    if (!stream.legacy) return true;
    for (const std::shared_ptr<Stream>& s : streams_) {
        if (!s->non_blocking && s->completed_ < s->submitted_) return false;
    }
    return true;
}

bool Scheduler::blocking_capture_active_locked() const {
    for (const std::shared_ptr<Stream>& s : streams_) {
        if (!s->legacy && !s->non_blocking && s->capture && !s->capture->invalidated) return true;
    }
    return false;
}

void Scheduler::invalidate_blocking_captures_locked() {
    for (const std::shared_ptr<Stream>& s : streams_) {
        if (!s->legacy && !s->non_blocking && s->capture) s->capture->invalidated = true;
    }
}

bool Scheduler::any_capture_active_locked() const {
    for (const std::shared_ptr<Stream>& s : streams_) {
        if (s->capture && !s->capture->invalidated) return true;
    }
    return false;
}

CUresult Scheduler::report() {
    std::lock_guard<std::mutex> lock(mutex_);
    const CUresult rc = pending_;
    if (rc != CUDA_SUCCESS) clear_error_locked();
    return rc;
}

std::shared_ptr<const Failure> Scheduler::take_failure() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<const Failure> failure = std::move(failure_);
    failure_.reset();
    if (pending_ != CUDA_SUCCESS) clear_error_locked();
    return failure;
}

void Scheduler::cancel_launches() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::shared_ptr<Stream>& s : streams_) {
        if (s->running_cancel_) s->running_cancel_->store(true);
        for (Stream::Queued& q : s->queue_) {
            if (q.op.kind == OpKind::launch) q.cancel->store(true);
        }
    }
}

void Scheduler::shut_down() {
    std::vector<std::thread> stopped;
    {
        std::unique_lock<std::mutex> lock(mutex_);
        shutting_down_ = true;
        for (const std::shared_ptr<Stream>& s : streams_) {
            if (s->running_cancel_) s->running_cancel_->store(true);
            s->wake_.notify_all();
        }
        progress_.notify_all();
        progress_.wait_for(lock, exit_grace, [&] {
            for (const std::shared_ptr<Stream>& s : streams_) {
                if (s->worker_.joinable() && !s->exited_) return false;
            }
            return true;
        });
        for (const std::shared_ptr<Stream>& s : streams_) {
            if (s->exited_ && s->worker_.joinable()) stopped.push_back(std::move(s->worker_));
        }
    }
    for (std::thread& t : stopped) t.join();
}

}  // namespace xcuda::cpu::driver::detail

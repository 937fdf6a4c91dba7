#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/staged_copy.hpp>
#include <xcuda/rt/stream.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace xcuda::rt {
namespace {

// Threads that share the memcpys of a staged copy with the caller. They only copy host memory:
// every driver call and every wait stays on the caller's thread, where an interrupt is seen
// (Python runs signal handlers on the main thread only), so no helper can be left waiting on a
// kernel that never ends. Between the rounds of one copy (tens of microseconds apart) helpers
// and caller spin, as a futex wake-up of an idle core can cost as much as a round's memcpy;
// after 200 us helpers sleep on a condition variable. They live as long as the process (a crew
// is made once, and again only in a forked child, which has no helpers).
class Crew {
public:
    explicit Crew(unsigned helpers) {
        for (unsigned i = 0; i < helpers; ++i) {
            try {
                std::thread([this, part = i + 1] { serve(part); }).detach();
            } catch (const std::system_error&) {
                break;  // no more threads: fewer parts
            }
            ++helpers_;
        }
    }

    unsigned parts() const { return helpers_ + 1; }

    // Calls part(i) for every i < parts(), part(0) on this thread; returns when all returned.
    // `part` must not throw.
    void run(const std::function<void(unsigned)>& part) {
        work_ = &part;
        left_.store(helpers_, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(mutex_);  // a helper checks round_ under it before sleeping
            round_.fetch_add(1, std::memory_order_release);
        }
        go_.notify_all();
        part(0);
        while (left_.load(std::memory_order_acquire) != 0) std::this_thread::yield();
    }

private:
    void serve(unsigned part) {
        unsigned long seen = 0;
        for (;;) {
            const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
            while (round_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until) {
                std::this_thread::yield();
            }
            if (round_.load(std::memory_order_acquire) == seen) {
                std::unique_lock<std::mutex> lock(mutex_);
                go_.wait(lock, [&] { return round_.load(std::memory_order_acquire) != seen; });
            }
            seen = round_.load(std::memory_order_acquire);
            (*work_)(part);
            left_.fetch_sub(1, std::memory_order_acq_rel);
        }
    }

    unsigned helpers_ = 0;
    std::mutex mutex_;
    std::condition_variable go_;
    std::atomic<unsigned long> round_{0};
    std::atomic<unsigned> left_{0};
    const std::function<void(unsigned)>* work_ = nullptr;  // written before round_ moves on
};

// Up to 4 memcpys at once. One thread is the limit otherwise: the driver's pageable copies, which
// stage on one thread too, ran a numpy round trip at n = 1M at ~11 GB/s on the H200, and CuPy's
// (asarray memcpys into pinned memory on one thread) implies about the same for the memcpy, a
// fraction of PCIe 5's DMA rate. More would take the cores of a shared machine for little more.
unsigned crew_helpers() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return std::min(3u, std::max(1u, cores - 1));
}

// The chunks of `spans`: a round of a staged copy moves one chunk per crew part.
std::vector<HostDeviceSpan> chunks_of(const std::vector<HostDeviceSpan>& spans) {
    std::vector<HostDeviceSpan> chunks;
    for (const HostDeviceSpan& s : spans) {
        for (std::size_t at = 0; at < s.bytes; at += staged_copy_chunk_bytes) {
            chunks.push_back(
                {static_cast<char*>(s.host) + at, s.device + at, std::min(staged_copy_chunk_bytes, s.bytes - at)});
        }
    }
    return chunks;
}

// The pinned memory of one staged copy: two sets of one chunk per part, used by alternate rounds,
// and per set whether a DMA may still use it. The events are made per copy, in the current context
// (an event belongs to one); the pinned memory is portable, so one buffer serves every device.
class Sets {
public:
    Sets(PinnedBuffer& pinned, unsigned parts) : base_(static_cast<char*>(pinned.get())), parts_(parts) {}

    char* chunk(int set, unsigned part) const {
        return base_ + (static_cast<std::size_t>(set) * parts_ + part) * staged_copy_chunk_bytes;
    }
    // After queuing the DMAs that use `set` on `stream`.
    void queued(int set, CUstream stream) {
        busy_[set] = true;
        done_[set].record(stream);
    }
    void wait(int set) {
        if (!busy_[set]) return;
        done_[set].synchronize();
        busy_[set] = false;
    }
    bool idle() const { return !busy_[0] && !busy_[1]; }

private:
    char* base_;
    unsigned parts_;
    Event done_[2] = {Event(false), Event(false)};
    bool busy_[2] = {false, false};
};

struct Staging {
    std::mutex mutex;
    pid_t pid = 0;         // the process that made `crew`
    Crew* crew = nullptr;  // never destroyed: its threads wait on it for the process's lifetime
    std::optional<PinnedBuffer> pinned;
    // Pinned memory a DMA may still write or read after a wait was abandoned (an interrupt) or
    // failed: never reused, never freed (the driver frees it with the process).
    std::vector<PinnedBuffer> abandoned;
};

// Never destroyed: cuMemFreeHost from a static destructor would run while the driver may be
// unloading at exit, and the crew's threads use it until then.
Staging& staging() {
    static auto* s = new Staging();
    return *s;
}

// A staged copy's view of its memory and helpers, for one call.
struct Pipeline {
    const std::vector<HostDeviceSpan>& chunks;
    Crew& crew;
    Sets& sets;

    std::size_t rounds() const { return (chunks.size() + crew.parts() - 1) / crew.parts(); }
    // Calls each(chunk, part) for the chunks of round r.
    template <class F>
    void for_each(std::size_t r, F&& each) const {
        for (unsigned part = 0; part < crew.parts(); ++part) {
            const std::size_t k = r * crew.parts() + part;
            if (k < chunks.size()) each(chunks[k], part);
        }
    }
    // The memcpys of round r, one chunk per part in parallel.
    template <class F>
    void copy_in_parallel(std::size_t r, F&& each) const {
        crew.run([&](unsigned part) {
            const std::size_t k = r * crew.parts() + part;
            if (k < chunks.size()) each(chunks[k], part);
        });
    }
};

// Runs `copy` (given a Pipeline), or returns false when the pinned memory cannot be had.
template <class Copy>
bool staged(const std::vector<HostDeviceSpan>& spans, Copy&& copy) {
    Staging& s = staging();
    std::unique_lock<std::mutex> lock(s.mutex, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    if (s.crew == nullptr || s.pid != getpid()) {
        // In a forked child the parent's crew has no threads; it is left as it is (destroying
        // its condition variables, which the parent's threads waited on, could block).
        s.crew = new Crew(crew_helpers());
        s.pid = getpid();
    }
    if (!s.pinned) {
        try {
            s.pinned.emplace(2 * s.crew->parts() * staged_copy_chunk_bytes);
        } catch (const OutOfMemoryError&) {
            return false;
        }
    }
    const std::vector<HostDeviceSpan> chunks = chunks_of(spans);
    Sets sets(*s.pinned, s.crew->parts());
    try {
        copy(Pipeline{chunks, *s.crew, sets});
    } catch (...) {
        if (!sets.idle()) {
            s.abandoned.push_back(std::move(*s.pinned));
            s.pinned.reset();
        }
        throw;
    }
    return true;
}

}  // namespace

bool copy_to_device_staged(const std::vector<HostDeviceSpan>& spans, CUstream stream) {
    return staged(spans, [&](const Pipeline& pipe) {
        for (std::size_t r = 0; r < pipe.rounds(); ++r) {
            const int set = static_cast<int>(r % 2);
            pipe.sets.wait(set);  // its DMAs ran during the memcpys of the round before
            pipe.copy_in_parallel(r, [&](const HostDeviceSpan& c, unsigned part) {
                std::memcpy(pipe.sets.chunk(set, part), c.host, c.bytes);
            });
            pipe.for_each(r, [&](const HostDeviceSpan& c, unsigned part) {
                copy_to_device_async(c.device, pipe.sets.chunk(set, part), c.bytes, stream);
            });
            pipe.sets.queued(set, stream);
        }
        // The sets are free for the next copy, which may be on another stream or device.
        pipe.sets.wait(0);
        pipe.sets.wait(1);
    });
}

bool copy_to_host_staged(const std::vector<HostDeviceSpan>& spans, CUstream stream) {
    return staged(spans, [&](const Pipeline& pipe) {
        auto queue = [&](std::size_t r) {
            const int set = static_cast<int>(r % 2);
            pipe.for_each(r, [&](const HostDeviceSpan& c, unsigned part) {
                copy_to_host_async(pipe.sets.chunk(set, part), c.device, c.bytes, stream);
            });
            pipe.sets.queued(set, stream);
        };
        for (std::size_t r = 0; r < std::min<std::size_t>(2, pipe.rounds()); ++r) queue(r);
        for (std::size_t r = 0; r < pipe.rounds(); ++r) {
            const int set = static_cast<int>(r % 2);
            pipe.sets.wait(set);
            pipe.copy_in_parallel(r, [&](const HostDeviceSpan& c, unsigned part) {
                std::memcpy(c.host, pipe.sets.chunk(set, part), c.bytes);
            });
            if (r + 2 < pipe.rounds()) queue(r + 2);  // runs during the next round's memcpys
        }
    });
}

}  // namespace xcuda::rt

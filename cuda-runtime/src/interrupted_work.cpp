#include "driver_api.hpp"
#include "interrupted_work_marks.hpp"
#include "stream_registry.hpp"

#include <xcuda/rt/interrupted_work.hpp>

#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace xcuda::rt {
namespace detail {
namespace {

// One backend has a GPU: the marks are its. (The CPU device never leaves work running.)
struct Marks {
    std::mutex mutex;
    const Backend* backend = nullptr;
    std::vector<CUevent> events;                 // recorded at the interrupt, one per stream
    std::vector<std::function<void()>> pending;  // releases kept until the events complete
};

Marks& marks() {
    static Marks* m = new Marks();  // never destroyed: releases at exit may still ask
    return *m;
}

// Whether a mark has not been reached. (A sticky fault ends the work too: the fault is reported
// by the next call that checks.)
bool running_locked(const Marks& m) {
    for (CUevent e : m.events) {
        if (m.backend->api.cuEventQuery(e) == CUDA_ERROR_NOT_READY) return true;
    }
    return false;
}

// The work has ended: the marks go, and the kept releases are handed out to be done (unlocked).
void clear_locked(Marks& m, std::vector<std::function<void()>>& due) {
    for (CUevent e : m.events) m.backend->api.cuEventDestroy(e);
    m.events.clear();
    due.swap(m.pending);
}

void record_on(const Backend& b, CUstream stream, std::vector<CUevent>& into) {
    CUevent e = nullptr;
    if (b.api.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) != CUDA_SUCCESS) return;
    if (b.api.cuEventRecord(e, stream) != CUDA_SUCCESS) {
        b.api.cuEventDestroy(e);
        return;
    }
    into.push_back(e);
}

}  // namespace

void mark_interrupted_work(Backend& b, CUstream waited) noexcept {
    if (b.cpu || !b.loaded || b.lost.load()) return;
    try {
        std::vector<CUevent> events;
        // The legacy stream's mark follows the work of every blocking stream too.
        record_on(b, nullptr, events);
        if (waited != nullptr) record_on(b, waited, events);
        for (CUstream s : live_streams()) {
            if (s != waited) record_on(b, s, events);
        }
        Marks& m = marks();
        std::lock_guard<std::mutex> lock(m.mutex);
        m.backend = &b;
        m.events.insert(m.events.end(), events.begin(), events.end());
    } catch (...) {  // std::bad_alloc: without marks, later calls may block as before
    }
}

bool defer_while_interrupted(const Backend* b, std::function<void()>& release) noexcept {
    std::vector<std::function<void()>> due;
    bool kept = false;
    {
        Marks& m = marks();
        std::lock_guard<std::mutex> lock(m.mutex);
        if (m.events.empty() || m.backend != b) return false;
        if (running_locked(m)) {
            try {
                m.pending.push_back(std::move(release));
                kept = true;
            } catch (...) {  // std::bad_alloc: released now, as before
            }
        } else {
            clear_locked(m, due);
        }
    }
    for (auto& r : due) r();
    return kept;
}

}  // namespace detail

bool interrupted_work_running() {
    detail::Marks& m = detail::marks();
    std::vector<std::function<void()>> due;
    {
        std::lock_guard<std::mutex> lock(m.mutex);
        if (m.events.empty()) return false;
        if (detail::running_locked(m)) return true;
        detail::clear_locked(m, due);
    }
    for (auto& release : due) release();
    return false;
}

}  // namespace xcuda::rt

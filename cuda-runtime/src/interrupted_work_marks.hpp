// The runtime's side of rt/interrupted_work.hpp: marking the streams at an interrupt, and the
// releasers (MemFree, ModuleUnload ...) keeping their call for later while the work runs.
#pragma once

#include "driver_api.hpp"

#include <functional>

namespace xcuda::rt::detail {

// Called by an interrupted wait on `b` (a GPU's): records the marks, on `waited` (the stream
// the wait was for, when it knows one) and on every stream this library knows.
void mark_interrupted_work(Backend& b, CUstream waited) noexcept;

// A releaser's call that would wait for the device: true (and `release` kept, to run once the
// work ends) while interrupted work of `b` runs; false: call it now.
bool defer_while_interrupted(const Backend* b, std::function<void()>& release) noexcept;

// Releases through `fn` now, or later when interrupted work of `backend` runs.
template <class F, class... Args>
void release_or_defer(const Backend* backend, F DriverApi::*fn, Args... args) noexcept {
    try {
        std::function<void()> later = [backend, fn, args...] { call_noexcept(backend, fn, args...); };
        if (defer_while_interrupted(backend, later)) return;
    } catch (...) {  // std::bad_alloc: release now, as before
    }
    call_noexcept(backend, fn, args...);
}

}  // namespace xcuda::rt::detail

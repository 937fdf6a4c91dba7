#include "driver_api.hpp"
#include "stream_registry.hpp"
#include "stream_wait.hpp"

#include <xcuda/rt/stream.hpp>
#include <xcuda/rt/wait.hpp>

#include <algorithm>
#include <mutex>

namespace xcuda::rt {
namespace detail {
namespace {
std::mutex g_streams_mutex;
std::vector<std::pair<CUstream, const Backend*>> g_streams;
}  // namespace

void register_stream(CUstream stream) {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    g_streams.emplace_back(stream, &current_backend());
}

void unregister_stream(CUstream stream) {
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    g_streams.erase(
        std::remove_if(g_streams.begin(), g_streams.end(), [&](const auto& s) { return s.first == stream; }),
        g_streams.end());
}

std::vector<CUstream> live_streams() {
    const Backend* current = &current_backend();
    std::lock_guard<std::mutex> lock(g_streams_mutex);
    std::vector<CUstream> mine;
    for (const auto& [stream, backend] : g_streams) {
        if (backend == current) mine.push_back(stream);
    }
    return mine;
}

}  // namespace detail

namespace {

// cuStreamQuery/cuEventQuery: CUDA_ERROR_NOT_READY means "still running", anything else is real.
bool ready(CUresult rc, const char* call) {
    if (rc == CUDA_ERROR_NOT_READY) return false;
    check(rc, call);
    return true;
}

}  // namespace

bool query_stream(CUstream stream) {
    throw_if_context_lost();
    return ready(detail::driver().cuStreamQuery(stream), "cuStreamQuery");
}

void synchronize_stream(CUstream stream) {
    detail::poll_until([stream] { return query_stream(stream); }, "a CUDA stream", stream);
}

Stream::Stream(bool non_blocking) : stream_(nullptr, detail::StreamDestroy{{detail::current_backend_pointer()}}) {
    detail::call("cuStreamCreate", detail::driver().cuStreamCreate, stream_.put(),
                 non_blocking ? unsigned{CU_STREAM_NON_BLOCKING} : unsigned{CU_STREAM_DEFAULT});
    detail::register_stream(stream_.get());
}

void detail::StreamDestroy::operator()(CUstream stream) const noexcept {
    unregister_stream(stream);
    call_noexcept(backend, &DriverApi::cuStreamDestroy, stream);
}

bool Stream::query() const { return query_stream(stream_.get()); }
void Stream::synchronize() const { synchronize_stream(stream_.get()); }

Event::Event(bool timing) : event_(nullptr, detail::EventDestroy{{detail::current_backend_pointer()}}) {
    detail::call("cuEventCreate", detail::driver().cuEventCreate, event_.put(),
                 timing ? unsigned{CU_EVENT_DEFAULT} : unsigned{CU_EVENT_DISABLE_TIMING});
}

void detail::EventDestroy::operator()(CUevent event) const noexcept {
    call_noexcept(backend, &DriverApi::cuEventDestroy, event);
}

void Event::record(CUstream stream) const {
    detail::call("cuEventRecord", detail::driver().cuEventRecord, event_.get(), stream);
}

bool Event::query() const {
    throw_if_context_lost();
    return ready(detail::driver().cuEventQuery(event_.get()), "cuEventQuery");
}

void Event::synchronize() const {
    poll_until([this] { return query(); }, "a CUDA event");
}

float elapsed_ms(const Event& start, const Event& end) {
    end.synchronize();
    float ms = 0.0f;
    detail::call("cuEventElapsedTime", detail::driver().cuEventElapsedTime, &ms, start.handle(), end.handle());
    return ms;
}

}  // namespace xcuda::rt

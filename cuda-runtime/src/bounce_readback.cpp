#include "bounce_readback.hpp"

#include <xcuda/rt/memory.hpp>
#include <xcuda/rt/stream.hpp>

#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

namespace xcuda::rt::detail {
namespace {

std::mutex bounce_mutex;
std::optional<PinnedBuffer> bounce;  // portable: one buffer serves every device's context
// Buffers whose copy was abandoned (an interrupted or failed wait): the DMA may still land in
// them, so they are never reused; they are freed at exit.
std::vector<PinnedBuffer> abandoned;

// Moves the buffer to `abandoned` unless the wait it guards completed.
class AbandonUnlessDone {
public:
    ~AbandonUnlessDone() {
        if (!done && bounce) {
            abandoned.push_back(std::move(*bounce));
            bounce.reset();
        }
    }
    bool done = false;
};

}  // namespace

bool read_back_through_bounce_buffer(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
    if (bytes == 0 || bytes > pinned_readback_bytes) return false;
    std::unique_lock<std::mutex> lock(bounce_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    if (!bounce) bounce.emplace(pinned_readback_bytes);
    AbandonUnlessDone guard;
    copy_to_host_async(bounce->get(), src, bytes, stream);
    synchronize_stream(stream);
    guard.done = true;
    std::memcpy(dst, bounce->get(), bytes);
    return true;
}

}  // namespace xcuda::rt::detail

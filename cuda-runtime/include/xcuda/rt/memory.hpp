// Device and pinned host memory, copies and memset (in the current context).
#pragma once

#include <xcuda/rt/handle.hpp>

#include <cuda.h>

#include <cstddef>

namespace xcuda::rt {

namespace detail {
struct MemFree : BackendRelease {
    void operator()(CUdeviceptr ptr) const noexcept;
};
struct MemFreeHost : BackendRelease {
    void operator()(void* ptr) const noexcept;
};
}  // namespace detail

// cuMemAlloc'ed device memory, freed on destruction; move-only. Zero bytes holds no allocation.
// Throws OutOfMemoryError (not sticky) when the device has no room.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes);

    CUdeviceptr get() const noexcept { return ptr_.get(); }
    // Zero once moved from: what holds no allocation has no size.
    std::size_t size() const noexcept { return ptr_.get() != 0 ? size_ : 0; }

private:
    detail::Handle<CUdeviceptr, detail::MemFree> ptr_;
    std::size_t size_ = 0;
};

// Page-locked host memory (cuMemHostAlloc, portable), freed on destruction; move-only.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t bytes);

    void* get() const noexcept { return ptr_.get(); }
    // Zero once moved from, like DeviceBuffer::size().
    std::size_t size() const noexcept { return ptr_.get() != nullptr ? size_ : 0; }

private:
    detail::Handle<void*, detail::MemFreeHost> ptr_;
    std::size_t size_ = 0;
};

// Synchronous copies and memset, ordered after the legacy default stream (and so after work on
// every blocking stream). Waiting for that work polls and throws Interrupted like every wait;
// the copy itself then runs in the driver. Work on non-blocking streams is not waited for.
void copy_to_device(CUdeviceptr dst, const void* src, std::size_t bytes);
void copy_to_host(void* dst, CUdeviceptr src, std::size_t bytes);
void copy_device_to_device(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes);
void memset_d8(CUdeviceptr dst, unsigned char value, std::size_t bytes);

// Into host memory after `stream`'s work (nullptr = the legacy default stream): waits for the
// stream by polling (interruptible), then copies; into pageable memory the copy is done on return.
// copy_to_host and this one take copies of up to pinned_readback_bytes through a pinned bounce
// buffer (queued behind the stream's work, one wait, then a memcpy): done on return all the same.
void copy_to_host_after(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream);
inline constexpr std::size_t pinned_readback_bytes = std::size_t{1} << 20;

// Asynchronous on `stream` (nullptr = the legacy default stream). Host memory should be pinned
// for the copy to overlap.
void copy_to_device_async(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream);
void copy_to_host_async(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream);
void copy_device_to_device_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream);
void memset_d8_async(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream stream);

}  // namespace xcuda::rt

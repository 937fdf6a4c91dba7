#include "bounce_readback.hpp"
#include "driver_api.hpp"
#include "interrupted_work_marks.hpp"

#include <xcuda/rt/memory.hpp>
#include <xcuda/rt/stream.hpp>

#include <string>

namespace xcuda::rt {

DeviceBuffer::DeviceBuffer(std::size_t bytes)
    : ptr_(0, detail::MemFree{{detail::current_backend_pointer()}}), size_(bytes) {
    if (bytes == 0) return;
    const auto& d = detail::driver();
    throw_if_context_lost();
    check(d.cuMemAlloc(ptr_.put(), bytes), "cuMemAlloc",
          "allocating " + std::to_string(bytes) + " bytes of device memory");
}

PinnedBuffer::PinnedBuffer(std::size_t bytes)
    : ptr_(nullptr, detail::MemFreeHost{{detail::current_backend_pointer()}}), size_(bytes) {
    if (bytes == 0) return;
    const auto& d = detail::driver();
    throw_if_context_lost();
    check(d.cuMemHostAlloc(ptr_.put(), bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc",
          "allocating " + std::to_string(bytes) + " bytes of pinned host memory");
}

// Both wait for the whole device: kept for later while interrupted work runs.
void detail::MemFree::operator()(CUdeviceptr ptr) const noexcept {
    release_or_defer(backend, &DriverApi::cuMemFree, ptr);
}
void detail::MemFreeHost::operator()(void* ptr) const noexcept {
    release_or_defer(backend, &DriverApi::cuMemFreeHost, ptr);
}

namespace {

// A synchronous copy or memset first waits for the legacy default stream, which the driver would
// otherwise do inside the call, blocking and deaf to interrupts (a spinning kernel on a
// blocking stream would hang it forever). Polling an event there keeps that wait interruptible;
// the driver's own wait is then already satisfied.
void wait_for_legacy_stream() {
    Event idle(false);
    idle.record(nullptr);
    idle.synchronize();
}

}  // namespace

void copy_to_device(CUdeviceptr dst, const void* src, std::size_t bytes) {
    wait_for_legacy_stream();
    detail::call("cuMemcpyHtoD", detail::driver().cuMemcpyHtoD, dst, src, bytes);
}

void copy_to_host(void* dst, CUdeviceptr src, std::size_t bytes) {
    if (detail::read_back_through_bounce_buffer(dst, src, bytes, nullptr)) return;
    wait_for_legacy_stream();
    detail::call("cuMemcpyDtoH", detail::driver().cuMemcpyDtoH, dst, src, bytes);
}

void copy_to_host_after(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
    if (detail::read_back_through_bounce_buffer(dst, src, bytes, stream)) return;
    synchronize_stream(stream);
    copy_to_host_async(dst, src, bytes, stream);
}

void copy_device_to_device(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
    wait_for_legacy_stream();
    detail::call("cuMemcpyDtoD", detail::driver().cuMemcpyDtoD, dst, src, bytes);
}

void memset_d8(CUdeviceptr dst, unsigned char value, std::size_t bytes) {
    wait_for_legacy_stream();
    detail::call("cuMemsetD8", detail::driver().cuMemsetD8, dst, value, bytes);
}

void copy_to_device_async(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream) {
    detail::call("cuMemcpyHtoDAsync", detail::driver().cuMemcpyHtoDAsync, dst, src, bytes, stream);
}

void copy_to_host_async(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
    detail::call("cuMemcpyDtoHAsync", detail::driver().cuMemcpyDtoHAsync, dst, src, bytes, stream);
}

void copy_device_to_device_async(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
    detail::call("cuMemcpyDtoDAsync", detail::driver().cuMemcpyDtoDAsync, dst, src, bytes, stream);
}

void memset_d8_async(CUdeviceptr dst, unsigned char value, std::size_t bytes, CUstream stream) {
    detail::call("cuMemsetD8Async", detail::driver().cuMemsetD8Async, dst, value, bytes, stream);
}

}  // namespace xcuda::rt

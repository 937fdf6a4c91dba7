// Device and pinned host memory, copies and memsets. Synchronous copies and memsets are queued on
// the legacy stream and waited for (so they are ordered as the real driver orders them), then
// report the device's error once. Asynchronous ones are queued on their stream; one whose host
// side is pageable behaves as the real driver's: its source is staged before the call returns
// (host to device), or the copy is done before the call returns (device to host).
#include "driver/context_state.hpp"
#include "driver/graph_objects.hpp"
#include "driver/stream_handles.hpp"
#include "driver/transfers.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <cstring>
#include <string>

namespace xcuda::cpu::driver {
namespace {

using namespace detail;

std::shared_ptr<const StreamWork> described(const Transfer& t) {
    auto work = std::make_shared<StreamWork>();
    work->bytes = t.bytes;
    if (t.kind == Transfer::Kind::fill) {
        work->kind = StreamWork::Kind::memset;
        work->name = "memset";
        return work;
    }
    work->kind = StreamWork::Kind::copy;
    work->direction = std::string(t.src_on_device ? "D" : "H") + "to" + (t.dst_on_device ? "D" : "H");
    const void* host = !t.src_on_device ? t.src : !t.dst_on_device ? t.dst : nullptr;
    work->pinned = host != nullptr && pinned_memory().contains(host, t.bytes);
    work->name = "memcpy " + work->direction;
    return work;
}

Op transfer_op(Transfer t) {
    Op op;
    op.kind = OpKind::work;
    op.described = described(t);
    op.run = [t = std::move(t)](const std::atomic<bool>&) { return perform(t); };
    return op;
}

// A capturing stream records the transfer as a graph node. Pageable host memory cannot be
// captured: a replay would read or write it long after the call, as the real driver refuses too.
Scheduler::CaptureHook capture_transfer(const Transfer& t, bool host_pageable) {
    return [t, host_pageable](Capture& capture) -> CUresult {
        if (host_pageable) {
            capture.invalidated = true;
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
        auto node = std::make_shared<GraphNode>();
        node->type = t.kind == Transfer::Kind::fill ? CU_GRAPH_NODE_TYPE_MEMSET : CU_GRAPH_NODE_TYPE_MEMCPY;
        node->transfer = t;
        return add_captured_node(capture, std::move(node));
    };
}

// Queues `t` on `stream` and waits for it; then the error the device holds, once, or the one
// that kept `t` from running.
CUresult run_and_wait(Stream& stream, Transfer t) {
    Scheduler& s = Scheduler::instance();
    auto completion = std::make_shared<Completion>();
    if (CUresult rc = s.submit(stream, transfer_op(std::move(t)), nullptr, completion); rc != CUDA_SUCCESS) return rc;
    s.wait(completion);
    const CUresult rc = s.report();
    return rc != CUDA_SUCCESS ? rc : completion->skipped_by;
}

CUresult run_synchronously(Transfer t) { return run_and_wait(*Scheduler::instance().legacy(), std::move(t)); }

CUresult queue(CUstream handle, Transfer t, bool host_pageable) {
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(handle, stream); rc != CUDA_SUCCESS) return rc;
    const Scheduler::CaptureHook hook = capture_transfer(t, host_pageable);
    return Scheduler::instance().submit(*stream, transfer_op(std::move(t)), hook);
}

Transfer copy(CUdeviceptr dst, bool dst_on_device, const void* src, bool src_on_device, std::size_t bytes) {
    Transfer t;
    t.kind = Transfer::Kind::copy;
    t.dst = reinterpret_cast<void*>(dst);
    t.dst_on_device = dst_on_device;
    t.src = src;
    t.src_on_device = src_on_device;
    t.bytes = bytes;
    return t;
}

Transfer fill(CUdeviceptr dst, unsigned char value, std::size_t bytes) {
    Transfer t;
    t.kind = Transfer::Kind::fill;
    t.dst = reinterpret_cast<void*>(dst);
    t.dst_on_device = true;
    t.value = value;
    t.bytes = bytes;
    return t;
}

const void* device_address(CUdeviceptr p) { return reinterpret_cast<const void*>(p); }

}  // namespace

CUresult cuMemAlloc(CUdeviceptr* dptr, size_t bytesize) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (dptr == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    // Unwritten until a copy, memset or kernel writes it: reading it first is an uninitialised
    // read, as compute-sanitizer's initcheck says of cudaMalloc'ed memory.
    const std::uint64_t base = device_memory().allocate(bytesize, Allocation::Kind::device, {}, false);
    if (base == 0) return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = base;
    return CUDA_SUCCESS;
}

// Waits for the device to be idle first, as the real driver's implicit synchronisation does, so
// no queued or running work uses the memory afterwards.
CUresult cuMemFree(CUdeviceptr dptr) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (dptr == 0) return CUDA_SUCCESS;
    DeviceMemory& memory = device_memory();
    const std::shared_ptr<const AllocationTable> table = memory.table();
    const Allocation* a = table->containing(dptr);
    if (a == nullptr || a->base != dptr || a->kind != Allocation::Kind::device) return CUDA_ERROR_INVALID_VALUE;
    Scheduler::instance().wait_idle();
    return memory.free(dptr) == DeviceMemory::FreeResult::freed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int flags) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    constexpr unsigned known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
    if (pp == nullptr || bytesize == 0 || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = pinned_memory().allocate(bytesize);
    if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    *pp = p;
    return CUDA_SUCCESS;
}

// Waits for the device to be idle first: a queued asynchronous copy may still use the memory.
CUresult cuMemFreeHost(void* p) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (p == nullptr || !pinned_memory().contains(p, 1)) return CUDA_ERROR_INVALID_VALUE;
    Scheduler::instance().wait_idle();
    return pinned_memory().free(p) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (src == nullptr || check_device_range(dst, bytes) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    return run_synchronously(copy(dst, true, src, false, bytes));
}

CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (dst == nullptr || check_device_range(src, bytes) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    return run_synchronously(copy(reinterpret_cast<CUdeviceptr>(dst), false, device_address(src), true, bytes));
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (check_device_range(dst, bytes) != CUDA_SUCCESS || check_device_range(src, bytes) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    return run_synchronously(copy(dst, true, device_address(src), true, bytes));
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (count == 0) return CUDA_SUCCESS;
    if (check_device_range(dst, count) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    return run_synchronously(fill(dst, value, count));
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (src == nullptr || check_device_range(dst, bytes) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    Transfer t = copy(dst, true, src, false, bytes);
    const bool pageable = !pinned_memory().contains(src, bytes);
    if (pageable) {
        const auto* from = static_cast<const unsigned char*>(src);
        t.staged = std::make_shared<const std::vector<unsigned char>>(from, from + bytes);
    }
    return queue(stream, std::move(t), pageable);
}

CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (dst == nullptr || check_device_range(src, bytes) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    Transfer t = copy(reinterpret_cast<CUdeviceptr>(dst), false, device_address(src), true, bytes);
    if (pinned_memory().contains(dst, bytes)) return queue(stream, std::move(t), false);
    std::shared_ptr<Stream> s;
    if (CUresult rc = resolve_stream(stream, s); rc != CUDA_SUCCESS) return rc;
    return run_and_wait(*s, std::move(t));
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (bytes == 0) return CUDA_SUCCESS;
    if (check_device_range(dst, bytes) != CUDA_SUCCESS || check_device_range(src, bytes) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    return queue(stream, copy(dst, true, device_address(src), true, bytes), false);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (count == 0) return CUDA_SUCCESS;
    if (check_device_range(dst, count) != CUDA_SUCCESS) return CUDA_ERROR_INVALID_VALUE;
    return queue(stream, fill(dst, value, count), false);
}

}  // namespace xcuda::cpu::driver

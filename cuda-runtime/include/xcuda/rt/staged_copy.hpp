// Copies between pageable host memory (numpy arrays) and device memory through kept page-locked
// memory, pipelined: a round memcpys up to 4 chunks into (or out of) pinned memory at once, on
// the caller's thread and up to 3 helper threads, while the DMAs of the round before run.
//
// Why: from pageable memory the driver stages every copy through its own pinned buffers, one
// call at a time and on the calling thread, so it runs at one thread's memcpy rate at best: a
// numpy round trip at n = 1M ran at about 11 GB/s on the H200 (bench/ transfer part, 2026-12-03),
// where pinned DMA runs at PCIe 5 speed. CuPy's asarray memcpys into pinned memory on one thread
// and then DMAs, without overlap. Here one pipeline runs through all of a launch's arrays, so the
// copies of several arguments overlap too.
// Not taken: cuMemHostRegister of the numpy buffer itself. It pins (and later unpins) every page
// on each call, operating-system work that grows with the size and overlaps with nothing; its
// range must be page-aligned (a numpy buffer need not be, so the pages around it would be pinned
// too), and two arrays sharing a page cannot both be registered. The driver documentation says
// to use it "sparingly, to register staging areas", which is what the kept memory here is. Nor
// cuMemAllocAsync: the kept device pool (staging_pool) already makes device memory free after
// the first launch.
#pragma once

#include <xcuda/rt/memory.hpp>

#include <cuda.h>

#include <cstddef>
#include <vector>

namespace xcuda::rt {

struct HostDeviceSpan {
    void* host = nullptr;
    CUdeviceptr device = 0;
    std::size_t bytes = 0;
};

// One thread's share of a round. The pipeline keeps two rounds of pinned memory (8 MiB with 4
// threads) for the process. Smaller chunks add per-round overhead (a DMA call and an event per
// chunk, a wake-up of the helpers per round); larger ones a longer unhidden first DMA (copy back)
// or last DMA (copy in), and fewer rounds to overlap: a 1M-float array is one round of 4 chunks.
inline constexpr std::size_t staged_copy_chunk_bytes = std::size_t{1} << 20;

// Arrays of up to this size are cheaper the plain way: the driver copies small ones inline, and
// copies back of up to pinned_readback_bytes have their own bounce buffer.
inline constexpr std::size_t staged_copy_min_bytes = pinned_readback_bytes;

// Copies `spans` (host -> device) on `stream`, ordered like cuMemcpyHtoDAsync calls there, and
// returns once the host memory may be reused. Returns false, having copied nothing, when the
// pinned memory cannot be had (out of memory, or another thread uses it): copy the plain way.
// Waits poll and throw Interrupted; a DMA that may still be running keeps its pinned memory.
bool copy_to_device_staged(const std::vector<HostDeviceSpan>& spans, CUstream stream);

// Copies `spans` (device -> host) after `stream`'s work; done on return. Same rules.
bool copy_to_host_staged(const std::vector<HostDeviceSpan>& spans, CUstream stream);

}  // namespace xcuda::rt

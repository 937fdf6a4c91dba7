// A timeline of what a stretch of host code made the GPU do, recorded in this process by CUPTI's
// Activity API (no separate profiler run, unlike Nsight Systems): kernels from any library (ours,
// CuPy's, torch's), copies and memsets, host-side synchronisations, NVTX ranges, and the driver
// and runtime calls that caused device work, linked to it by correlation id.
#pragma once

#include <xcuda/rt/profiler_errors.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xcuda::rt {

// One interval on the timeline. Device work (kernel, memcpy, memset, graph) has a stream;
// host-side records (sync, api, nvtx) have stream -1.
struct TraceRecord {
    enum class Kind : std::uint8_t { kernel, memcpy, memset, graph, sync, api, nvtx };
    Kind kind = Kind::kernel;
    std::string name;  // kernels demangled; calls by their API name; NVTX by the pushed text
    std::int64_t start_ns = 0, end_ns = 0;
    std::int64_t stream = -1;
    std::uint32_t correlation = 0;  // 0: none. A call and the device work it caused share one.
    std::uint64_t bytes = 0;        // memcpy, memset
    std::string direction;          // memcpy: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"
    int pinned = -1;                // memcpy with a host side: 1 pinned, 0 pageable; -1 unknown or none
    unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
    int registers = 0;
    unsigned static_shared = 0, dynamic_shared = 0;
    std::string domain;  // nvtx
};

const char* kind_name(TraceRecord::Kind kind);

// What a stopped trace found, and what it may have missed.
struct TraceResult {
    std::vector<TraceRecord> records;  // by start time
    std::uint64_t dropped = 0;         // records CUPTI could not keep (its buffers were full)
};

// Records from construction until stop(); one at a time per process (CUPTI serves one activity
// client: a second ActivityTrace, or xcuda's counters or PC sampling while one runs, or a CUDA tool
// that started the process (CUDA_INJECTION64_PATH: Nsight, compute-sanitizer) gives
// ProfilerUnavailable (Why::busy) naming the holder; torch.profiler is asked in Python).
// NVTX ranges are recorded when nothing in the process used NVTX before the first trace (NVTX
// looks for its injection library, CUPTI, once).
class ActivityTrace {
public:
    ActivityTrace();
    ~ActivityTrace();
    ActivityTrace(const ActivityTrace&) = delete;
    ActivityTrace& operator=(const ActivityTrace&) = delete;

    // Flushes CUPTI's buffers (work still running is recorded once it ends: synchronise first)
    // and ends the recording. A second call returns nothing.
    TraceResult stop();

    // The clock the records use (CUPTI's timestamp, nanoseconds), for host-side marks to line up.
    static std::int64_t now_ns();

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace xcuda::rt

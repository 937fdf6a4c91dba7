// The CPU device as the runtime sees it: its driver entry points (to fill the runtime's driver
// table), and what a real driver has no call for: the report of a launch that failed a check,
// stopping emulated kernels on an interrupt, the checks switch, the line profile.
#pragma once

#include <xcuda/cpu/argument_extents.hpp>
#include <xcuda/cpu/finding.hpp>
#include <xcuda/cpu/line_profile.hpp>

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "driver_functions.hpp"

namespace xcuda::cpu {

// The driver entry points, one per name in XCUDA_DRIVER_FUNCTIONS, with cuda.h's signatures.
namespace driver {
#define XCUDA_CPU_DECLARE(fn) decltype(::fn) fn;
XCUDA_DRIVER_FUNCTIONS(XCUDA_CPU_DECLARE)
#undef XCUDA_CPU_DECLARE
}  // namespace driver

// The emulated architecture.
inline constexpr int emulated_major = 9, emulated_minor = 0;
// cuDeviceGetName's answer.
inline constexpr const char* device_name = "xcuda CPU device (emulated sm_90)";

// A JIT option only the CPU device takes (cuModuleLoadDataEx): its value points to a
// `const std::map<std::string, int>` of ptxas's registers per kernel, read from the CUBIN of the
// same compile, so kernel attributes and occupancy match the GPU's. The real driver would refuse it.
// 63: past CU_JIT_NUM_OPTIONS, yet a value CUjit_option can hold (its enumerators need 6 bits; a
// larger one is undefined behaviour, and an error in a constant expression for clang).
inline constexpr CUjit_option jit_option_register_counts = static_cast<CUjit_option>(63);
using RegisterCounts = std::map<std::string, int>;

// The failure behind the error code the last synchronisation returned (the first launch that
// failed a check, trapped or asserted since the last take), or nullptr. Taking it clears the
// device's error state: unlike a GPU's sticky faults, the CPU device stays usable.
std::shared_ptr<const Failure> take_failure();

// Stops every launch running or queued now, on every stream (an interrupt): running blocks stop
// within milliseconds; copies and event records queued after them still happen, in order.
void cancel_launches();

// Whether `address` lies in a live allocation of the CPU device's memory (false before cuInit).
bool is_device_memory(std::uint64_t address);

// The checks (on by default; $XCUDA_CPU_CHECKS=0 turns them off at start).
void set_checks(bool on);
bool checks();
// One worker thread and blocks in order (tests, grading); $XCUDA_CPU_DETERMINISTIC=1 at start.
void set_deterministic(bool on);
bool deterministic();
// The threads that run blocks of a launch: one per core (one when deterministic).
unsigned worker_threads();

// Per-instruction counts of launches while on (%%cuda_profile on this device), taken in
// launch order.
void set_profiling(bool on);
std::vector<std::shared_ptr<const LineProfile>> take_profiles();

// One operation a stream's worker ran, on the host's steady clock (CLOCK_MONOTONIC): what the
// timeline shows on this device, where CUPTI has no GPU to watch.
struct StreamWork {
    enum class Kind : std::uint8_t { kernel, copy, memset, graph };
    Kind kind = Kind::kernel;
    std::string name;     // the kernel's PTX name (mangled for C++), or "graph of N nodes"
    unsigned stream = 0;  // 0: the legacy (default) stream; others numbered as they were made
    std::int64_t start_ns = 0, end_ns = 0;
    std::uint64_t bytes = 0;                             // copies and memsets
    std::string direction;                               // copies: "HtoD", "DtoH", "DtoD", "HtoH"
    bool pinned = false;                                 // copies: the host side is cuMemHostAlloc'ed
    unsigned grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};  // kernels
    unsigned dynamic_shared = 0, static_shared = 0;      // kernels
    int registers = 0;                                   // kernels
};
// Records what the streams run while on; take_stream_work() hands it out in completion order.
void set_stream_work_recording(bool on);
std::vector<StreamWork> take_stream_work();

}  // namespace xcuda::cpu

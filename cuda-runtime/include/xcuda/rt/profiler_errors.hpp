// Why hardware profiling (counters, PC sampling) cannot run here, as one exception type the
// magics turn into one line naming the cause and the fix, with the event timing still shown.
#pragma once

#include <xcuda/rt/errors.hpp>

#include <string>

namespace xcuda::rt {

class ProfilerUnavailable : public CudaError {
public:
    enum class Why {
        no_cupti,       // libcupti could not be loaded
        not_permitted,  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (NVreg_RestrictProfilingToAdminUsers)
        unsupported,    // virtualised GPU without profiling, CMP, WSL, too old an architecture
        busy,           // another CUPTI client of this process holds it (a timeline, torch.profiler, Nsight)
        failed          // any other CUPTI error
    };
    ProfilerUnavailable(Why why, const std::string& message) : CudaError(message), why_(why) {}
    Why why() const noexcept { return why_; }

private:
    Why why_;
};

// What ProfilerUnavailable says on the CPU device, which has no hardware counters to read.
inline constexpr const char* cpu_device_has_no_counters =
    "they need a GPU: hardware counters and PC sampling read an NVIDIA GPU through CUPTI, and this runs on the "
    "CPU device (its exact per-line counts are what %%cuda_profile shows there)";

}  // namespace xcuda::rt

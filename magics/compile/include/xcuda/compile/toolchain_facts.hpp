// What a session's compiles depend on besides the cell, its options and headers: the arch a cell
// without --arch targets, and the NVRTC that compiles it. Each is found on first use and kept for
// the session (neither the GPU nor the loaded NVRTC changes under a running kernel), so nothing
// asks the driver or NVRTC again per cell.
#pragma once

#include "xcuda/compile/compiled_module.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xcuda::compile {

// The loaded NVRTC, read at once: what the cache key, the arch check and -minimal depend on.
struct NvrtcFacts {
    int major = 0;
    int minor = 0;
    std::string version;                       // "13.0": part of the cache key
    std::vector<std::string> toolkit_dirs;     // the toolkit's include dirs it is given: part of the cache key
    std::vector<std::string> supported_archs;  // "sm_XX" it can target; empty: not known, nothing checked

    // NVRTC's -minimal came with 12.4.
    bool knows_minimal() const { return major > 12 || (major == 12 && minor >= 4); }
    // The NVRTC rt::compile loads (throws rt::CudaError when none can be loaded).
    static NvrtcFacts of_loaded_nvrtc();
};

class ToolchainFacts {
public:
    // The arch used when CellOptions::arch is empty: the override, else the current device's,
    // else rt::fallback_arch (sm_90). The device is asked once.
    std::string default_arch(ArchSource* source = nullptr);
    void set_default_arch(std::string arch);  // "" returns to the device/fallback rule

    // The loaded NVRTC's facts, read on the first call.
    const NvrtcFacts& nvrtc();

private:
    std::string arch_override_;
    std::optional<std::pair<std::string, ArchSource>> device_arch_;
    std::optional<NvrtcFacts> nvrtc_;
};

}  // namespace xcuda::compile

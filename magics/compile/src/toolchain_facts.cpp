#include "xcuda/compile/toolchain_facts.hpp"

#include "xcuda/rt/compiler.hpp"
#include "xcuda/rt/driver.hpp"

#include <tuple>

namespace xcuda::compile {

NvrtcFacts NvrtcFacts::of_loaded_nvrtc() {
    NvrtcFacts f;
    f.toolkit_dirs = rt::toolkit_include_dirs();
    std::tie(f.major, f.minor) = rt::nvrtc_version();
    f.version = std::to_string(f.major) + "." + std::to_string(f.minor);
    f.supported_archs = rt::supported_archs();
    return f;
}

std::string ToolchainFacts::default_arch(ArchSource* source) {
    if (!arch_override_.empty()) {
        if (source) *source = ArchSource::option;
        return arch_override_;
    }
    if (!device_arch_) {
        bool device = rt::driver_available();
        device_arch_ = {device ? rt::default_arch() : std::string(rt::fallback_arch),
                        device ? ArchSource::device : ArchSource::fallback};
    }
    if (source) *source = device_arch_->second;
    return device_arch_->first;
}

void ToolchainFacts::set_default_arch(std::string arch) { arch_override_ = std::move(arch); }

const NvrtcFacts& ToolchainFacts::nvrtc() {
    if (!nvrtc_) nvrtc_ = NvrtcFacts::of_loaded_nvrtc();
    return *nvrtc_;
}

}  // namespace xcuda::compile

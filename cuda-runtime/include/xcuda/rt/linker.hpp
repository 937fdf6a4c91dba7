// Device linking with nvJitLink: relocatable device code (cells compiled with -dc/-rdc) becomes
// a loadable CUBIN, with CUDA's device runtime (libcudadevrt) for launches from the device.
#pragma once

#include <xcuda/rt/errors.hpp>

#include <string>
#include <utility>
#include <vector>

namespace xcuda::rt {

struct LinkInput {
    std::string name;   // shown in the linker's messages ("cell_5")
    std::string cubin;  // a relocatable CUBIN (ELF) as NVRTC gives it with -dc
};

struct LinkResult {
    std::string cubin;  // the linked, loadable CUBIN
    std::string info_log;
};

// The linker refused the inputs (an undefined or doubly defined symbol, an arch mismatch...).
class LinkError : public CudaError {
public:
    explicit LinkError(std::string log);
    const std::string& log() const noexcept { return log_; }

private:
    std::string log_;
};

// Links `inputs` for `arch` ("sm_90"), with libcudadevrt when `with_device_runtime`. Throws
// LinkError with nvJitLink's log when linking fails, CudaError when nvJitLink or libcudadevrt
// cannot be found.
LinkResult link(const std::string& arch, const std::vector<LinkInput>& inputs, bool with_device_runtime);

// libcudadevrt.a of the toolkit whose NVRTC is in use, or "" when there is none.
std::string cudadevrt_path();

}  // namespace xcuda::rt

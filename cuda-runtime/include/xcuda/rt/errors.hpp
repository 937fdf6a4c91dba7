// The one exception tree of the CUDA layer, and the check() overloads that feed it.
#pragma once

#include <xcuda/cpu/finding.hpp>

#include <cuda.h>
#include <nvrtc.h>

#include <memory>

#include <stdexcept>
#include <string>
#include <vector>

namespace xcuda::rt {

// Root of everything the CUDA layer throws about CUDA itself.
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// NVRTC rejected the source. what() is a one-line summary; log() is the compiler's output.
class CompileError : public CudaError {
public:
    CompileError(std::string program_name, std::vector<std::string> options, std::string log);
    const std::string& program_name() const noexcept { return program_name_; }
    const std::vector<std::string>& options() const noexcept { return options_; }
    const std::string& log() const noexcept { return log_; }

private:
    std::string program_name_;
    std::vector<std::string> options_;
    std::string log_;
};

// A driver call failed. what() = "<call>: <name> (<code>): <driver message>[: <detail>]".
class DriverError : public CudaError {
public:
    DriverError(CUresult code, std::string call, std::string detail = {});
    CUresult code() const noexcept { return code_; }
    const std::string& name() const noexcept { return name_; }  // "CUDA_ERROR_..."
    const std::string& call() const noexcept { return call_; }  // "cuMemAlloc"
    const std::string& driver_message() const noexcept { return message_; }

protected:
    DriverError(CUresult code, std::string call, std::string detail, std::string what);

private:
    CUresult code_;
    std::string name_;
    std::string call_;
    std::string message_;
};

// A launch was refused: by our own validation against the device limits (code() is
// CUDA_ERROR_INVALID_VALUE, call() is "launch") or by cuLaunchKernel. Not sticky.
class LaunchError : public DriverError {
public:
    using DriverError::DriverError;
    LaunchError(std::string call, std::string what);
};

// A launch on the CPU device failed one of its checks: an out-of-bounds or misaligned access, a
// use after free, a shared-memory race, a divergent barrier, a warp collective with absent lanes,
// a device assert or trap, an instruction the CPU device cannot run. what() is the report in the
// PTX's terms; failure() has its parts (the magics layer renders them in the cell's). Not sticky:
// the CPU device stays usable, unlike a GPU after such a fault.
class KernelCheckError : public LaunchError {
public:
    KernelCheckError(std::shared_ptr<const cpu::Failure> failure, const std::string& call);
    const cpu::Failure& failure() const noexcept { return *failure_; }

private:
    std::shared_ptr<const cpu::Failure> failure_;
};

// CUDA_ERROR_OUT_OF_MEMORY. Not sticky: later allocations can succeed.
class OutOfMemoryError : public DriverError {
public:
    using DriverError::DriverError;
};

// A sticky fault (illegal address, trap, device assert, ...): the CUDA context of this
// process is unusable until the process restarts. Every later driver call of this library
// throws this again, with the original error, without touching the driver.
class ContextLostError : public DriverError {
public:
    using DriverError::DriverError;
};

// No usable CUDA driver or device; why() says which (no driver library, no device, driver too old).
class NoDeviceError : public CudaError {
public:
    enum class Why { no_driver_library, no_device, driver_too_old, driver_init_failed };
    NoDeviceError(Why why, const std::string& message);
    Why why() const noexcept { return why_; }

private:
    Why why_;
};

// A wait on the GPU was abandoned because the interrupt check returned true. Deliberately
// NOT a CudaError: the GPU work may still be running and the context is fine.
class Interrupted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The advice every ContextLostError carries.
extern const char* const context_lost_advice;

// True when `code` leaves the context unusable (CUDA documents these as "the process must be
// terminated and relaunched").
bool is_sticky(CUresult code) noexcept;

// Throw the typed exception for a failing result; return silently on success.
// CUresult: OutOfMemoryError / ContextLostError (and record the fault) / DriverError.
void check(CUresult result, const char* call, const std::string& detail = {});
void check(nvrtcResult result, const char* call);

// The kernel most recently launched through this library ("" if none). A sticky fault is
// almost always that kernel's doing, so ContextLostError names it.
std::string last_launched_kernel();

// Once a sticky fault has been seen, every driver call of this library fails fast (on the backend
// that faulted: the CPU device stays usable after a lost GPU).
bool context_lost() noexcept;
// Throws ContextLostError (the first fault again) when context_lost(); used before driver calls.
void throw_if_context_lost();

}  // namespace xcuda::rt

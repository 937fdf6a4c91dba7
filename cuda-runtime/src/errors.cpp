#include "driver_api.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/errors.hpp>

#include <atomic>
#include <memory>
#include <mutex>

namespace xcuda::rt {

const char* const context_lost_advice =
    "the GPU context of this process is lost and cannot be recovered in-process: restart the kernel";

namespace {

std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) {
        out += (out.empty() ? "" : " ") + s;
    }
    return out;
}

std::string first_error_line(const std::string& log) {
    auto pos = log.find("error");
    if (pos == std::string::npos) {
        return {};
    }
    auto begin = log.rfind('\n', pos);
    begin = begin == std::string::npos ? 0 : begin + 1;
    return log.substr(begin, log.find('\n', pos) - begin);
}

const char* name_of(CUresult code) {
    const char* name = nullptr;
    if (const auto* api = detail::driver_if_loaded()) {
        api->cuGetErrorName(code, &name);
    }
    return name != nullptr ? name : "CUDA_ERROR_UNKNOWN_CODE";
}

const char* message_of(CUresult code) {
    const char* text = nullptr;
    if (const auto* api = detail::driver_if_loaded()) {
        api->cuGetErrorString(code, &text);
    }
    return text != nullptr ? text : "no description from the driver";
}

std::atomic<CUfunction> g_last_function{nullptr};
std::mutex g_last_mutex;
std::string g_last_name;

}  // namespace

CompileError::CompileError(std::string program_name, std::vector<std::string> options, std::string log)
    : CudaError("compiling " + program_name + " failed" +
                (first_error_line(log).empty() ? std::string() : ": " + first_error_line(log)) +
                (options.empty() ? std::string() : " [options: " + join(options) + "]")),
      program_name_(std::move(program_name)),
      options_(std::move(options)),
      log_(std::move(log)) {}

DriverError::DriverError(CUresult code, std::string call, std::string detail)
    : DriverError(code, call, detail,
                  call + ": " + name_of(code) + " (" + std::to_string(code) + "): " + message_of(code) +
                      (detail.empty() ? std::string() : ": " + detail)) {}

DriverError::DriverError(CUresult code, std::string call, std::string detail, std::string what)
    : CudaError(std::move(what)),
      code_(code),
      name_(name_of(code)),
      call_(std::move(call)),
      message_(message_of(code)) {}

LaunchError::LaunchError(std::string call, std::string what)
    : DriverError(CUDA_ERROR_INVALID_VALUE, std::move(call), {}, std::move(what)) {}

NoDeviceError::NoDeviceError(Why why, const std::string& message) : CudaError(message), why_(why) {}

bool is_sticky(CUresult code) noexcept {
    switch (code) {
        case CUDA_ERROR_CONTAINED:
        case CUDA_ERROR_ILLEGAL_ADDRESS:
        case CUDA_ERROR_LAUNCH_TIMEOUT:
        case CUDA_ERROR_ASSERT:
        case CUDA_ERROR_HARDWARE_STACK_ERROR:
        case CUDA_ERROR_ILLEGAL_INSTRUCTION:
        case CUDA_ERROR_MISALIGNED_ADDRESS:
        case CUDA_ERROR_INVALID_ADDRESS_SPACE:
        case CUDA_ERROR_INVALID_PC:
        case CUDA_ERROR_LAUNCH_FAILED:
        case CUDA_ERROR_TENSOR_MEMORY_LEAK:
        case CUDA_ERROR_MPS_CLIENT_TERMINATED:
        case CUDA_ERROR_EXTERNAL_DEVICE: return true;
        default: return false;
    }
}

KernelCheckError::KernelCheckError(std::shared_ptr<const cpu::Failure> failure, const std::string& call)
    : LaunchError(failure->code, call, {}, failure->report()), failure_(std::move(failure)) {}

void check(CUresult result, const char* call, const std::string& detail) {
    if (result == CUDA_SUCCESS) {
        return;
    }
    detail::Backend& backend = detail::current_backend();
    if (backend.cpu) {
        // A launch on the CPU device failed a check (or trapped, asserted): its report, once.
        if (auto failure = cpu::take_failure()) throw KernelCheckError(std::move(failure), call);
    }
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
        throw OutOfMemoryError(result, call, detail);
    }
    // (The CPU device's own faults are reported above and clear; a sticky code without a report
    // of its is as sticky as a GPU's.)
    if (is_sticky(result)) {
        std::lock_guard<std::mutex> lock(backend.lost_mutex);
        if (!backend.lost_error) {
            std::string why = detail;
            const std::string kernel = last_launched_kernel();
            if (!kernel.empty())
                why += (why.empty() ? "" : "; ") + std::string("the last kernel launched was ") + kernel;
            why += (why.empty() ? "" : "; ") + std::string(context_lost_advice);
            backend.lost_error = std::make_unique<ContextLostError>(result, call, why);
            backend.lost.store(true);
        }
        throw *backend.lost_error;
    }
    throw DriverError(result, call, detail);
}

void check(nvrtcResult result, const char* call) {
    if (result != NVRTC_SUCCESS) {
        throw CudaError(std::string(call) + ": " + detail::nvrtc().nvrtcGetErrorString(result) + " (" +
                        std::to_string(result) + ")");
    }
}

std::string last_launched_kernel() {
    std::lock_guard<std::mutex> lock(g_last_mutex);
    return g_last_name;
}

namespace detail {

void note_launch(CUfunction function, const std::string& name) {
    if (g_last_function.load(std::memory_order_relaxed) == function) return;
    std::lock_guard<std::mutex> lock(g_last_mutex);
    g_last_name = name;
    g_last_function.store(function, std::memory_order_relaxed);
}

}  // namespace detail

bool context_lost() noexcept { return detail::current_backend().lost.load(); }

void detail::throw_if_lost(Backend& backend) {
    if (backend.lost.load()) {
        std::lock_guard<std::mutex> lock(backend.lost_mutex);
        throw *backend.lost_error;
    }
}

void throw_if_context_lost() { detail::throw_if_lost(detail::current_backend()); }

}  // namespace xcuda::rt

// Modules (PTX text, loaded by the engine), their kernels and variables, and kernel attributes.
#include "driver/context_state.hpp"
#include "driver/kernel_objects.hpp"
#include "driver/stream_queues.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>

namespace xcuda::cpu::driver {
namespace {

using namespace detail;

// The JIT options the CPU device answers; the others the real driver takes (optimisation level,
// debug info, targets, ...) are accepted and have nothing to change.
struct JitOptions {
    char* error_log = nullptr;
    std::size_t error_log_bytes = 0;
    void** error_log_filled = nullptr;  // the option value the driver overwrites with the bytes used
    char* info_log = nullptr;
    std::size_t info_log_bytes = 0;
    void** info_log_filled = nullptr;
    void** wall_time = nullptr;
    const RegisterCounts* registers = nullptr;
};

CUresult read_options(unsigned n, CUjit_option* options, void** values, JitOptions& out) {
    if (n > 0 && (options == nullptr || values == nullptr)) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; ++i) {
        const auto as_size = [&] { return static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(values[i])); };
        if (options[i] == jit_option_register_counts) {
            out.registers = static_cast<const RegisterCounts*>(values[i]);
            continue;
        }
        switch (options[i]) {
            case CU_JIT_ERROR_LOG_BUFFER: out.error_log = static_cast<char*>(values[i]); break;
            case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
                out.error_log_bytes = as_size();
                out.error_log_filled = &values[i];
                break;
            case CU_JIT_INFO_LOG_BUFFER: out.info_log = static_cast<char*>(values[i]); break;
            case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
                out.info_log_bytes = as_size();
                out.info_log_filled = &values[i];
                break;
            case CU_JIT_WALL_TIME: out.wall_time = &values[i]; break;
            default:
                if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
                break;
        }
    }
    return CUDA_SUCCESS;
}

// Copies `text` into a log buffer as the driver does: capped at its size, NUL-terminated, and the
// size option overwritten with the bytes used.
void write_log(char* buffer, std::size_t bytes, void** filled, const std::string& text) {
    std::size_t used = 0;
    if (buffer != nullptr && bytes > 0) {
        const std::size_t n = std::min(text.size(), bytes - 1);
        std::memcpy(buffer, text.data(), n);
        buffer[n] = '\0';
        used = text.empty() ? 0 : n + 1;
    }
    if (filled != nullptr) *filled = reinterpret_cast<void*>(static_cast<std::uintptr_t>(used));
}

bool is_binary_image(const void* image) {
    const auto* b = static_cast<const unsigned char*>(image);
    const bool elf = b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
    const bool fatbin = b[0] == 0x50 && b[1] == 0xED && b[2] == 0x55 && b[3] == 0xBA;
    return elf || fatbin;
}

CUresult finish_load(const JitOptions& jit, CUresult rc, const std::string& error,
                     std::chrono::steady_clock::time_point started) {
    write_log(jit.error_log, jit.error_log_bytes, jit.error_log_filled, error);
    write_log(jit.info_log, jit.info_log_bytes, jit.info_log_filled, std::string());
    if (jit.wall_time != nullptr) {
        const float ms = std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - started).count();
        std::memcpy(static_cast<void*>(jit.wall_time), &ms, sizeof ms);  // the option value holds a float
    }
    return rc;
}

}  // namespace

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions, CUjit_option* options,
                            void** optionValues) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    JitOptions jit;
    if (CUresult rc = read_options(numOptions, options, optionValues, jit); rc != CUDA_SUCCESS) return rc;
    const auto started = std::chrono::steady_clock::now();
    if (is_binary_image(image)) {
        return finish_load(jit, CUDA_ERROR_NOT_SUPPORTED,
                           "the CPU device runs PTX only: this image is a CUBIN or fatbinary, which needs a GPU; "
                           "load the PTX of the same compile instead",
                           started);
    }
    static const RegisterCounts no_counts;
    std::shared_ptr<Module> loaded;
    try {
        loaded = Module::load(std::string_view(static_cast<const char*>(image)), device_memory(),
                              jit.registers != nullptr ? *jit.registers : no_counts);
    } catch (const ModuleLoadError& e) {
        return finish_load(jit, CUDA_ERROR_INVALID_PTX, e.what(), started);
    } catch (const std::bad_alloc&) {
        return finish_load(jit, CUDA_ERROR_OUT_OF_MEMORY, "out of memory while loading the module", started);
    } catch (const std::exception& e) {
        return finish_load(jit, CUDA_ERROR_UNKNOWN,
                           std::string("the CPU device could not load the module: ") + e.what(), started);
    }
    auto handle = std::make_shared<LoadedModule>();
    handle->module = std::move(loaded);
    *module = module_table().add<CUmodule>(std::move(handle));
    return finish_load(jit, CUDA_SUCCESS, std::string(), started);
}

// Waits for the device to be idle first: queued launches still run the module's code. Its
// functions' handles die with it.
CUresult cuModuleUnload(CUmodule hmod) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (!module_table().find(hmod)) return CUDA_ERROR_INVALID_HANDLE;
    Scheduler::instance().wait_idle();
    std::shared_ptr<LoadedModule> m = module_table().remove(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    std::lock_guard<std::mutex> lock(m->mutex);
    for (const auto& [name, function] : m->functions) function_table().remove(function);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (hfunc == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<LoadedModule> m = module_table().find(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    std::lock_guard<std::mutex> lock(m->mutex);
    if (auto it = m->functions.find(name); it != m->functions.end()) {
        *hfunc = it->second;
        return CUDA_SUCCESS;
    }
    const KernelInfo* info = m->module->kernel(name);
    if (info == nullptr) return CUDA_ERROR_NOT_FOUND;
    const auto handle = function_table().add<CUfunction>(std::make_shared<Function>(m->module, *info));
    m->functions.emplace(name, handle);
    *hfunc = handle;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<LoadedModule> m = module_table().find(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    const std::optional<Module::Symbol> symbol = m->module->global(name);
    if (!symbol) return CUDA_ERROR_NOT_FOUND;
    if (dptr != nullptr) *dptr = symbol->address;
    if (bytes != nullptr) *bytes = symbol->bytes;
    return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Function> f = function_table().find(hfunc);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    return f->get_attribute(attrib, *pi);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Function> f = function_table().find(hfunc);
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    return f->set_attribute(attrib, value);
}

}  // namespace xcuda::cpu::driver

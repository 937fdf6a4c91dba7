#include "driver_api.hpp"
#include "interrupted_work_marks.hpp"
#include "launch_config.hpp"
#include "nvrtc_api.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/cubin.hpp>
#include <xcuda/rt/grid_sync_scan.hpp>
#include <xcuda/rt/module.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <algorithm>
#include <vector>

namespace xcuda::rt {

namespace {
const char* attribute_name(CUfunction_attribute a) {
    switch (a) {
        case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: return "MAX_DYNAMIC_SHARED_SIZE_BYTES";
        case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: return "PREFERRED_SHARED_MEMORY_CARVEOUT";
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: return "REQUIRED_CLUSTER_WIDTH";
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: return "REQUIRED_CLUSTER_HEIGHT";
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: return "REQUIRED_CLUSTER_DEPTH";
        case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: return "NON_PORTABLE_CLUSTER_SIZE_ALLOWED";
        case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: return "CLUSTER_SCHEDULING_POLICY_PREFERENCE";
        default: return "function attribute";
    }
}

// Why a GPU's driver refused code that NVRTC made, when that NVRTC is newer than the driver
// (pip's CUDA 13 NVRTC under Colab's CUDA 12 driver), and what to do; "" otherwise.
std::string newer_nvrtc_advice(CUresult rc, bool ptx) {
    if (detail::current_backend().cpu) return {};
    switch (rc) {
        case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        case CUDA_ERROR_NO_BINARY_FOR_GPU:
        case CUDA_ERROR_INVALID_PTX:
        case CUDA_ERROR_INVALID_IMAGE:
        case CUDA_ERROR_INVALID_SOURCE: break;
        default: return {};
    }
    const detail::NvrtcApi* api = detail::nvrtc_if_loaded();
    if (api == nullptr) return {};
    int major = 0, minor = 0;
    api->nvrtcVersion(&major, &minor);
    const int driver = detail::current_backend().version;
    if (major * 1000 + minor * 10 <= driver) return {};
    const std::string versions = "this code comes from NVRTC " + std::to_string(major) + "." + std::to_string(minor) +
                                 " (" + api->path + "), and the GPU's driver supports CUDA " +
                                 std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
    if (major > driver / 1000) {
        return versions + ": install the NVRTC for the driver's CUDA into the kernel's environment, pip install \"" +
               pip_extra_for(driver / 1000) + "\", and restart the kernel (or update the NVIDIA driver)";
    }
    return versions + (ptx ? ": compile for the GPU's own arch (leave out --arch, or pass its sm_XX), so the driver "
                             "gets machine code instead of PTX newer than it"
                           : ": update the NVIDIA driver, or install an NVRTC as old as the driver's CUDA");
}

}  // namespace

Module Module::from_cubin(std::string_view cubin) { return load(cubin, false, nullptr); }
Module Module::from_ptx(std::string_view ptx) {
    Module m = load(ptx, true, nullptr);
    m.grid_syncing_ = kernels_that_sync_the_grid(ptx);
    return m;
}

Module Module::from_image(std::string_view ptx, std::string_view cubin) {
    if (!detail::current_backend().cpu) {
        if (cubin.empty()) return from_ptx(ptx);
        Module m = from_cubin(cubin);
        m.grid_syncing_ = kernels_that_sync_the_grid(ptx);
        return m;
    }
    // The CPU device runs PTX; the CUBIN of the same compile tells it ptxas's register counts.
    const cpu::RegisterCounts counts = kernel_register_counts(cubin);
    Module m = load(ptx, true, &counts);
    m.grid_syncing_ = kernels_that_sync_the_grid(ptx);
    return m;
}

Module Module::load(std::string_view image, bool nul_terminate, const cpu::RegisterCounts* registers) {
    const auto& d = detail::driver();
    throw_if_context_lost();
    // PTX is text and must end in NUL; a cubin is an ELF image the driver sizes itself.
    std::string data(image);
    if (nul_terminate) data.push_back('\0');
    std::vector<char> error(16384, '\0');
    CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           cpu::jit_option_register_counts};
    void* values[] = {error.data(), reinterpret_cast<void*>(error.size() - 1),
                      const_cast<cpu::RegisterCounts*>(registers)};
    Module m;
    m.module_ = detail::Handle<CUmodule, detail::ModuleUnload>(nullptr, {{detail::current_backend_pointer()}});
    const CUresult rc = d.cuModuleLoadDataEx(m.module_.put(), data.data(), registers != nullptr ? 3 : 2, keys, values);
    const std::string log(error.data());
    std::string detail = log.empty() ? std::string() : "JIT log: " + log;
    if (std::string advice = rc != CUDA_SUCCESS ? newer_nvrtc_advice(rc, nul_terminate) : std::string();
        !advice.empty()) {
        detail += (detail.empty() ? "" : "; ") + advice;
    }
    check(rc, "cuModuleLoadDataEx", detail);
    return m;
}

void detail::ModuleUnload::operator()(CUmodule module) const noexcept {
    release_or_defer(backend, &DriverApi::cuModuleUnload, module);  // waits for the device
}

Function Module::function(const std::string& mangled_name) const {
    CUfunction f = nullptr;
    throw_if_context_lost();
    check(detail::driver().cuModuleGetFunction(&f, module_.get(), mangled_name.c_str()), "cuModuleGetFunction",
          "no kernel named '" + mangled_name + "' in this module" +
              (mangled_name.rfind("_Z", 0) == 0 ? std::string()
                                                : " (a C++ kernel's symbol is mangled: declare it extern \"C\" or "
                                                  "look it up by its lowered name)"));
    const bool syncs_grid = std::find(grid_syncing_.begin(), grid_syncing_.end(), mangled_name) != grid_syncing_.end();
    return Function(f, mangled_name, syncs_grid);
}

DeviceSymbol Module::global(const std::string& lowered_name) const {
    DeviceSymbol s;
    throw_if_context_lost();
    check(detail::driver().cuModuleGetGlobal(&s.ptr, &s.bytes, module_.get(), lowered_name.c_str()),
          "cuModuleGetGlobal", "no __device__ or __constant__ variable named '" + lowered_name + "' in this module");
    return s;
}

int Function::attribute(CUfunction_attribute attribute) const {
    int value = 0;
    detail::call("cuFuncGetAttribute", detail::driver().cuFuncGetAttribute, &value, attribute, handle_);
    return value;
}

Function::Function(CUfunction handle, std::string name, bool syncs_grid)
    : handle_(handle),
      name_(std::move(name)),
      max_threads_per_block_(attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)),
      syncs_grid_(syncs_grid) {}

FunctionAttributes Function::attributes() const {
    FunctionAttributes a;
    a.num_regs = attribute(CU_FUNC_ATTRIBUTE_NUM_REGS);
    a.shared_bytes = static_cast<std::size_t>(attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    a.local_bytes = static_cast<std::size_t>(attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
    a.const_bytes = static_cast<std::size_t>(attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES));
    a.max_threads_per_block = attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    a.max_dynamic_shared_bytes = attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    a.ptx_version = attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION);
    a.binary_version = attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    return a;
}

void Function::set_attribute(CUfunction_attribute attribute, int value) const {
    throw_if_context_lost();
    check(detail::driver().cuFuncSetAttribute(handle_, attribute, value), "cuFuncSetAttribute",
          std::string(attribute_name(attribute)) + "=" + std::to_string(value) + " for " + name_);
}

int Function::max_active_clusters(Dim3 grid, Dim3 block, std::size_t dynamic_shared_bytes, Dim3 cluster) const {
    CUlaunchAttribute attr{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster.x;
    attr.value.clusterDim.y = cluster.y;
    attr.value.clusterDim.z = cluster.z;
    CUlaunchConfig config = detail::launch_config(grid, block, dynamic_shared_bytes, nullptr, &attr, 1);
    int clusters = 0;
    throw_if_context_lost();
    check(detail::driver().cuOccupancyMaxActiveClusters(&clusters, handle_, &config), "cuOccupancyMaxActiveClusters",
          "clusters of " + cluster.str() + " blocks of " + name_);
    return clusters;
}

int Function::max_active_blocks_per_sm(int block_size, std::size_t dynamic_shared_bytes) const {
    int blocks = 0;
    detail::call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                 detail::driver().cuOccupancyMaxActiveBlocksPerMultiprocessor, &blocks, handle_, block_size,
                 dynamic_shared_bytes);
    return blocks;
}

BlockSizeSuggestion Function::suggested_block_size(std::size_t dynamic_shared_bytes, int block_size_limit) const {
    BlockSizeSuggestion s;
    detail::call("cuOccupancyMaxPotentialBlockSize", detail::driver().cuOccupancyMaxPotentialBlockSize,
                 &s.min_grid_size, &s.block_size, handle_, CUoccupancyB2DSize{nullptr}, dynamic_shared_bytes,
                 block_size_limit);
    return s;
}

}  // namespace xcuda::rt

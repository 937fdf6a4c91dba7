#include "driver/kernel_objects.hpp"

#include "exec/emulated_device.hpp"
#include "driver/occupancy.hpp"

#include <algorithm>

namespace xcuda::cpu::driver::detail {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)

Function::Function(std::shared_ptr<const Module> module, const KernelInfo& info)
    : module_(std::move(module)), info_(info) {
    attributes_.max_dynamic_shared = std::max(
        0, shared_per_block - static_cast<int>(std::min<std::size_t>(info.static_shared_bytes, shared_per_block)));
    attributes_.required_cluster[0] = static_cast<int>(info.cluster_dims.x);
    attributes_.required_cluster[1] = static_cast<int>(info.cluster_dims.y);
    attributes_.required_cluster[2] = static_cast<int>(info.cluster_dims.z);
}

FunctionAttributes Function::attributes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return attributes_;
}

int Function::max_threads_per_block() const {
    return std::min(info_.max_threads_per_block, register_limited_threads(effective_registers(info_)));
}

CUresult Function::get_attribute(CUfunction_attribute attribute, int& value) const {
    const FunctionAttributes a = attributes();
    switch (attribute) {
        case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: value = max_threads_per_block(); break;
        case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: value = static_cast<int>(info_.static_shared_bytes); break;
        case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: value = static_cast<int>(info_.const_bytes); break;
        case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: value = static_cast<int>(info_.local_bytes); break;
        case CU_FUNC_ATTRIBUTE_NUM_REGS: value = effective_registers(info_); break;
        case CU_FUNC_ATTRIBUTE_PTX_VERSION: value = info_.ptx_version; break;
        case CU_FUNC_ATTRIBUTE_BINARY_VERSION: value = info_.binary_version; break;
        case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: value = 0; break;
        case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: value = a.max_dynamic_shared; break;
        case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: value = a.carveout; break;
        case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: value = info_.explicit_cluster ? 1 : 0; break;
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: value = a.required_cluster[0]; break;
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: value = a.required_cluster[1]; break;
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: value = a.required_cluster[2]; break;
        case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: value = a.non_portable_cluster; break;
        case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: value = a.cluster_scheduling; break;
        default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult Function::set_attribute(CUfunction_attribute attribute, int value) {
    std::lock_guard<std::mutex> lock(mutex_);
    switch (attribute) {
        case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
            if (value < 0 || static_cast<std::size_t>(value) + info_.static_shared_bytes >
                                 static_cast<std::size_t>(shared_per_block_optin))
                return CUDA_ERROR_INVALID_VALUE;
            attributes_.max_dynamic_shared = value;
            return CUDA_SUCCESS;
        case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
            if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
            attributes_.carveout = value;
            return CUDA_SUCCESS;
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
            // __cluster_dims__ fixes them at compile time.
            if (info_.cluster_dims.x != 0) return CUDA_ERROR_NOT_PERMITTED;
            if (value < 0 || value > static_cast<int>(max_cluster_blocks)) return CUDA_ERROR_INVALID_VALUE;
            const int axis = attribute - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH;
            attributes_.required_cluster[axis] = value;
            return CUDA_SUCCESS;
        }
        case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
            if (value != 0 && value != 1) return CUDA_ERROR_INVALID_VALUE;
            attributes_.non_portable_cluster = value;
            return CUDA_SUCCESS;
        case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
            if (value < CU_CLUSTER_SCHEDULING_POLICY_DEFAULT || value > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING)
                return CUDA_ERROR_INVALID_VALUE;
            attributes_.cluster_scheduling = value;
            return CUDA_SUCCESS;
        default: return CUDA_ERROR_INVALID_VALUE;  // read-only or unknown
    }
}

HandleTable<LoadedModule>& module_table() {
    static auto* table = new HandleTable<LoadedModule>();  // never destroyed: used during exit
    return *table;
}

HandleTable<Function>& function_table() {
    static auto* table = new HandleTable<Function>();
    return *table;
}

}  // namespace xcuda::cpu::driver::detail

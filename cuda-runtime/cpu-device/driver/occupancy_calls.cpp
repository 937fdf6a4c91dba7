// Occupancy queries (occupancy.hpp has the rules).
#include "driver/context_state.hpp"
#include "exec/emulated_device.hpp"
#include "driver/occupancy.hpp"

#include <xcuda/cpu/cpu_device.hpp>

namespace xcuda::cpu::driver {
using namespace emulated;  // the device this driver describes (exec/emulated_device.hpp)
namespace {

using namespace detail;

CUresult find_function(CUfunction handle, std::shared_ptr<Function>& f) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    f = function_table().find(handle);
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

}  // namespace

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
    std::shared_ptr<Function> f;
    if (CUresult rc = find_function(func, f); rc != CUDA_SUCCESS) return rc;
    if (numBlocks == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return max_active_blocks(*f, blockSize, dynamicSMemSize, *numBlocks);
}

CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit) {
    std::shared_ptr<Function> f;
    if (CUresult rc = find_function(func, f); rc != CUDA_SUCCESS) return rc;
    if (minGridSize == nullptr || blockSize == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return max_potential_block_size(*f, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, *minGridSize,
                                    *blockSize);
}

// Clusters larger than the portable 8 blocks fit only once the kernel allows non-portable sizes:
// until then the answer is 0 clusters, as the real driver's.
CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func, const CUlaunchConfig* config) {
    std::shared_ptr<Function> f;
    if (CUresult rc = find_function(func, f); rc != CUDA_SUCCESS) return rc;
    if (numClusters == nullptr || config == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const FunctionAttributes settable = f->attributes();
    Dim3 cluster{static_cast<unsigned>(settable.required_cluster[0]),
                 static_cast<unsigned>(settable.required_cluster[1]),
                 static_cast<unsigned>(settable.required_cluster[2])};
    const bool required = cluster.x != 0 && cluster.y != 0 && cluster.z != 0;
    bool given = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        if (config->attrs[i].id != CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) continue;
        const auto& c = config->attrs[i].value.clusterDim;
        if (required && (c.x != cluster.x || c.y != cluster.y || c.z != cluster.z))
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        cluster = Dim3{c.x, c.y, c.z};
        given = true;
    }
    if (!required && !given) return CUDA_ERROR_INVALID_VALUE;
    const std::uint64_t blocks = cluster.count();
    if (blocks == 0 || blocks > max_cluster_blocks) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    const std::uint64_t threads = 1ULL * config->blockDimX * config->blockDimY * config->blockDimZ;
    if (threads == 0 || threads > static_cast<std::uint64_t>(max_threads_per_block)) return CUDA_ERROR_INVALID_VALUE;
    if (blocks > max_portable_cluster_blocks && settable.non_portable_cluster == 0) {
        *numClusters = 0;
        return CUDA_SUCCESS;
    }
    int per_sm = 0;
    if (CUresult rc = max_active_blocks(*f, static_cast<int>(threads), config->sharedMemBytes, per_sm);
        rc != CUDA_SUCCESS)
        return rc;
    *numClusters = max_active_clusters(per_sm, static_cast<unsigned>(blocks));
    return CUDA_SUCCESS;
}

}  // namespace xcuda::cpu::driver

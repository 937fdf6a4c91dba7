// Kernel launches: checked and packed (kernel_launch.hpp), then queued on their stream or
// recorded into its capture.
#include "driver/context_state.hpp"
#include "driver/graph_objects.hpp"
#include "driver/kernel_launch.hpp"
#include "driver/stream_handles.hpp"

#include <xcuda/cpu/cpu_device.hpp>

namespace xcuda::cpu::driver {
namespace {

using namespace detail;

std::shared_ptr<const StreamWork> described(const KernelLaunch& launch) {
    auto work = std::make_shared<StreamWork>();
    const KernelInfo& info = launch.function->info();
    work->kind = StreamWork::Kind::kernel;
    work->name = info.name;
    work->grid[0] = launch.grid.x, work->grid[1] = launch.grid.y, work->grid[2] = launch.grid.z;
    work->block[0] = launch.block.x, work->block[1] = launch.block.y, work->block[2] = launch.block.z;
    work->dynamic_shared = launch.dynamic_shared_bytes;
    work->static_shared = static_cast<unsigned>(info.static_shared_bytes);
    work->registers = info.num_regs;
    return work;
}

CUresult launch(const LaunchRequest& request, CUstream hStream) {
    KernelLaunch prepared;
    if (CUresult rc = prepare_launch(request, prepared); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    auto shared = std::make_shared<const KernelLaunch>(std::move(prepared));
    Op op;
    op.kind = OpKind::launch;
    op.run = [shared](const std::atomic<bool>& cancel) { return run_kernel(*shared, cancel); };
    op.queued = [] { note_launch(); };
    op.described = described(*shared);
    auto capture = [shared](Capture& c) { return add_captured_node(c, kernel_node(*shared)); };
    return Scheduler::instance().submit(*stream, std::move(op), capture);
}

}  // namespace

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    LaunchRequest r;
    r.function = f;
    r.grid[0] = gridDimX;
    r.grid[1] = gridDimY;
    r.grid[2] = gridDimZ;
    r.block[0] = blockDimX;
    r.block[1] = blockDimY;
    r.block[2] = blockDimZ;
    r.shared_bytes = sharedMemBytes;
    r.kernel_params = kernelParams;
    r.extra = extra;
    return launch(r, hStream);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams, void** extra) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr)) return CUDA_ERROR_INVALID_VALUE;
    LaunchRequest r = launch_request(f, *config);
    r.kernel_params = kernelParams;
    r.extra = extra;
    r.attributes = config->attrs;
    r.attribute_count = config->numAttrs;
    return launch(r, config->hStream);
}

}  // namespace xcuda::cpu::driver

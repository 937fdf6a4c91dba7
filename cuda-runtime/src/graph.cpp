#include "driver_api.hpp"

#include <xcuda/rt/graph.hpp>

#include <stdexcept>

namespace xcuda::rt {

namespace {

KernelNode describe(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS& p) {
    KernelNode k;
    k.node = node;
    k.function = p.func;
    k.grid = Dim3{p.gridDimX, p.gridDimY, p.gridDimZ};
    k.block = Dim3{p.blockDimX, p.blockDimY, p.blockDimZ};
    k.shared_mem = p.sharedMemBytes;
    return k;
}

}  // namespace

void detail::GraphDestroy::operator()(CUgraph graph) const noexcept {
    call_noexcept(backend, &DriverApi::cuGraphDestroy, graph);
}
void detail::GraphExecDestroy::operator()(CUgraphExec exec) const noexcept {
    call_noexcept(backend, &DriverApi::cuGraphExecDestroy, exec);
}

void Graph::launch(CUstream stream) const {
    detail::call("cuGraphLaunch", detail::driver().cuGraphLaunch, exec_.get(), stream);
}

KernelNode Graph::kernel_node(CUgraphNode node) const {
    CUDA_KERNEL_NODE_PARAMS p{};
    detail::call("cuGraphKernelNodeGetParams", detail::driver().cuGraphKernelNodeGetParams, node, &p);
    return describe(node, p);
}

void Graph::set_kernel_arguments(const KernelNode& node, void** params) const {
    const auto& api = detail::driver();
    CUDA_KERNEL_NODE_PARAMS p{};
    detail::call("cuGraphKernelNodeGetParams", api.cuGraphKernelNodeGetParams, node.node, &p);
    p.kernelParams = params;
    p.extra = nullptr;
    detail::call("cuGraphExecKernelNodeSetParams", api.cuGraphExecKernelNodeSetParams, exec_.get(), node.node,
                 static_cast<const CUDA_KERNEL_NODE_PARAMS*>(&p));
}

StreamCapture::StreamCapture(CUstream stream) : stream_(stream), backend_(detail::current_backend_pointer()) {
    if (stream == nullptr) {
        throw std::invalid_argument(
            "the legacy default stream cannot be captured into a graph: capture a stream of its own "
            "(xcuda.graph() without a stream makes one)");
    }
    detail::call("cuStreamBeginCapture", detail::driver().cuStreamBeginCapture, stream, CU_STREAM_CAPTURE_MODE_RELAXED);
    capturing_ = true;
}

StreamCapture::~StreamCapture() {
    if (!capturing_) return;
    CUgraph dropped = nullptr;
    detail::call_noexcept(backend_, &detail::DriverApi::cuStreamEndCapture, stream_, &dropped);
    if (dropped != nullptr) detail::call_noexcept(backend_, &detail::DriverApi::cuGraphDestroy, dropped);
}

CUgraphNode StreamCapture::last_node() const {
    CUstreamCaptureStatus status{};
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    const CUgraphNode* dependencies = nullptr;
    std::size_t count = 0;
#if CUDA_VERSION >= 12030
    const CUgraphEdgeData* edges = nullptr;
    detail::call("cuStreamGetCaptureInfo", detail::driver().cuStreamGetCaptureInfo, stream_, &status, &id, &graph,
                 &dependencies, &edges, &count);
#else
    detail::call("cuStreamGetCaptureInfo", detail::driver().cuStreamGetCaptureInfo, stream_, &status, &id, &graph,
                 &dependencies, &count);
#endif
    return count == 1 ? dependencies[0] : nullptr;
}

Graph StreamCapture::finish() {
    Graph g;
    g.graph_ = detail::Handle<CUgraph, detail::GraphDestroy>(nullptr, {{detail::current_backend_pointer()}});
    g.exec_ = detail::Handle<CUgraphExec, detail::GraphExecDestroy>(nullptr, {{detail::current_backend_pointer()}});
    capturing_ = false;
    detail::call("cuStreamEndCapture", detail::driver().cuStreamEndCapture, stream_, g.graph_.put());
    detail::call("cuGraphInstantiate", detail::driver().cuGraphInstantiate, g.exec_.put(), g.graph_.get(),
                 static_cast<unsigned long long>(0));
    return g;
}

}  // namespace xcuda::rt

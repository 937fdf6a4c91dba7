// Stream capture and graphs. Between cuStreamBeginCapture and cuStreamEndCapture, launches,
// copies and memsets on the stream become nodes of its graph (a chain, in capture order) instead
// of running; cuGraphLaunch queues one operation that runs the instantiated nodes in order. The
// capture modes' restrictions on other threads' calls are not emulated: every capture behaves as
// CU_STREAM_CAPTURE_MODE_RELAXED, the mode the runtime uses.
#include "driver/context_state.hpp"
#include "driver/graph_objects.hpp"
#include "driver/stream_handles.hpp"

#include <xcuda/cpu/cpu_device.hpp>

#include <algorithm>
#include <atomic>

namespace xcuda::cpu::driver {
namespace {

using namespace detail;

std::atomic<std::uint64_t> g_capture_ids{0};

// A capturable stream: one made by cuStreamCreate (the legacy stream cannot capture).
CUresult capturable_stream(CUstream handle, std::shared_ptr<Stream>& stream) {
    if (handle == nullptr || handle == CU_STREAM_LEGACY) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    return resolve_stream(handle, stream);
}

CUresult capture_status(const Stream& stream, const Scheduler& s, CUstreamCaptureStatus& status) {
    if (stream.legacy) {
        if (s.blocking_capture_active_locked()) return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
        status = CU_STREAM_CAPTURE_STATUS_NONE;
    } else if (!stream.capture) {
        status = CU_STREAM_CAPTURE_STATUS_NONE;
    } else {
        status = stream.capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
    }
    return CUDA_SUCCESS;
}

ExecStep step_of(CUgraphNode handle, const GraphNode& node) {
    ExecStep step;
    step.source = handle;
    step.type = node.type;
    step.kernel = node.kernel;
    step.transfer = node.transfer;
    return step;
}

}  // namespace

CUresult cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
        mode != CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = capturable_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    Scheduler& s = Scheduler::instance();
    auto lock = s.lock();
    if (stream->capture) return CUDA_ERROR_ILLEGAL_STATE;
    Capture capture;
    capture.graph = std::make_shared<Graph>();
    capture.handle = graph_table().add<CUgraph>(capture.graph);
    capture.id = ++g_capture_ids;
    stream->capture = std::move(capture);
    return CUDA_SUCCESS;
}

// An invalidated capture hands back no graph and CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (phGraph == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = capturable_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    auto lock = Scheduler::instance().lock();
    if (!stream->capture) return CUDA_ERROR_ILLEGAL_STATE;
    const Capture capture = std::move(*stream->capture);
    stream->capture.reset();
    if (capture.invalidated) {
        discard_graph(capture.handle);
        *phGraph = nullptr;
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    *phGraph = capture.handle;
    return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (captureStatus == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    Scheduler& s = Scheduler::instance();
    auto lock = s.lock();
    return capture_status(*stream, s, *captureStatus);
}

#if CUDA_VERSION >= 12030
CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out,
                                CUgraph* graph_out, const CUgraphNode** dependencies_out,
                                const CUgraphEdgeData** edgeData_out, size_t* numDependencies_out) {
    if (edgeData_out != nullptr && dependencies_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
#else
CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* captureStatus_out, cuuint64_t* id_out,
                                CUgraph* graph_out, const CUgraphNode** dependencies_out, size_t* numDependencies_out) {
#endif
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (captureStatus_out == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    Scheduler& s = Scheduler::instance();
    auto lock = s.lock();
    if (CUresult rc = capture_status(*stream, s, *captureStatus_out); rc != CUDA_SUCCESS) return rc;
    if (*captureStatus_out != CU_STREAM_CAPTURE_STATUS_ACTIVE) return CUDA_SUCCESS;
    // The arrays stay valid until the stream's next call, as the driver promises: they live in the
    // stream's capture.
    const Capture& capture = *stream->capture;
    const std::size_t count = capture.last != nullptr ? 1 : 0;
    if (id_out != nullptr) *id_out = capture.id;
    if (graph_out != nullptr) *graph_out = capture.handle;
    if (dependencies_out != nullptr) *dependencies_out = count > 0 ? &capture.last : nullptr;
#if CUDA_VERSION >= 12030
    static const CUgraphEdgeData plain_edge{};
    if (edgeData_out != nullptr) *edgeData_out = count > 0 ? &plain_edge : nullptr;
#endif
    if (numDependencies_out != nullptr) *numDependencies_out = count;
    return CUDA_SUCCESS;
}

// Flags that only tune the real driver's scheduling are accepted; uploading or launching from
// the device is not something the CPU device does.
CUresult cuGraphInstantiate(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (phGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
    constexpr unsigned long long harmless =
        CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if ((flags & ~harmless) != 0) return CUDA_ERROR_NOT_SUPPORTED;
    std::shared_ptr<Graph> graph = graph_table().find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    auto steps = std::make_shared<std::vector<ExecStep>>();
    {
        std::lock_guard<std::mutex> lock(graph->mutex);
        for (CUgraphNode handle : graph->nodes) {
            if (std::shared_ptr<GraphNode> node = node_table().find(handle)) steps->push_back(step_of(handle, *node));
        }
    }
    auto exec = std::make_shared<GraphExec>();
    exec->steps = std::move(steps);
    *phGraphExec = exec_table().add<CUgraphExec>(std::move(exec));
    return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<GraphExec> exec = exec_table().find(hGraphExec);
    if (!exec) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Stream> stream;
    if (CUresult rc = resolve_stream(hStream, stream); rc != CUDA_SUCCESS) return rc;
    std::shared_ptr<const std::vector<ExecStep>> steps;
    {
        std::lock_guard<std::mutex> lock(exec->mutex);
        steps = exec->steps;
    }
    Op op;
    op.kind = OpKind::launch;
    op.run = [steps](const std::atomic<bool>& cancel) { return run_steps(*steps, cancel); };
    op.queued = [] { note_launch(); };
    auto work = std::make_shared<StreamWork>();
    work->kind = StreamWork::Kind::graph;
    work->name = "graph of " + std::to_string(steps->size()) + (steps->size() == 1 ? " node" : " nodes");
    op.described = std::move(work);
    // A graph launched into a capture would become a child graph node, which the CPU device has not.
    auto capture = [](Capture&) { return CUDA_ERROR_NOT_SUPPORTED; };
    return Scheduler::instance().submit(*stream, std::move(op), capture);
}

CUresult cuGraphDestroy(CUgraph hGraph) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    return discard_graph(hGraph) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// Launches already queued keep their own copy of the steps.
CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    return exec_table().remove(hGraphExec) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (numNodes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<Graph> graph = graph_table().find(hGraph);
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> lock(graph->mutex);
    const std::size_t count = graph->nodes.size();
    if (nodes == nullptr) {
        *numNodes = count;
        return CUDA_SUCCESS;
    }
    const std::size_t room = *numNodes;
    for (std::size_t i = 0; i < room; ++i) nodes[i] = i < count ? graph->nodes[i] : nullptr;
    *numNodes = std::min(room, count);
    return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (type == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<GraphNode> node = node_table().find(hNode);
    if (!node) return CUDA_ERROR_INVALID_VALUE;
    *type = node->type;
    return CUDA_SUCCESS;
}

// kernelParams points at the node's own copies of the arguments, valid as long as the node.
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams) {
    if (CUresult rc = require_initialized(); rc != CUDA_SUCCESS) return rc;
    if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<GraphNode> node = node_table().find(hNode);
    if (!node || node->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    const KernelLaunch& k = node->kernel;
    *nodeParams = CUDA_KERNEL_NODE_PARAMS{};
    nodeParams->func = reinterpret_cast<CUfunction>(k.function.get());
    nodeParams->gridDimX = k.grid.x;
    nodeParams->gridDimY = k.grid.y;
    nodeParams->gridDimZ = k.grid.z;
    nodeParams->blockDimX = k.block.x;
    nodeParams->blockDimY = k.block.y;
    nodeParams->blockDimZ = k.block.z;
    nodeParams->sharedMemBytes = k.dynamic_shared_bytes;
    nodeParams->kernelParams = node->param_pointers.empty() ? nullptr : node->param_pointers.data();
    nodeParams->ctx = primary_context();
    return CUDA_SUCCESS;
}

// Changes the step of `hNode` for launches of `hGraphExec` queued from now on. The node keeps its
// launch attributes (cluster shape, cooperative), which these parameters do not carry.
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
    if (CUresult rc = require_context(); rc != CUDA_SUCCESS) return rc;
    if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (nodeParams->func == nullptr)
        return nodeParams->kern != nullptr ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    std::shared_ptr<GraphExec> exec = exec_table().find(hGraphExec);
    if (!exec) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> lock(exec->mutex);
    const std::vector<ExecStep>& steps = *exec->steps;
    auto step = std::find_if(steps.begin(), steps.end(), [&](const ExecStep& s) { return s.source == hNode; });
    if (step == steps.end() || step->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;

    CUlaunchAttribute attributes[2] = {};
    unsigned count = 0;
    if (step->kernel.cooperative) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attributes[count++].value.cooperative = 1;
    }
    if (step->kernel.cluster.count() > 1) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attributes[count].value.clusterDim.x = step->kernel.cluster.x;
        attributes[count].value.clusterDim.y = step->kernel.cluster.y;
        attributes[count++].value.clusterDim.z = step->kernel.cluster.z;
    }
    LaunchRequest r = launch_request(nodeParams->func, *nodeParams);
    r.kernel_params = nodeParams->kernelParams;
    r.extra = nodeParams->extra;
    r.attributes = attributes;
    r.attribute_count = count;
    KernelLaunch updated;
    if (CUresult rc = prepare_launch(r, updated); rc != CUDA_SUCCESS) return rc;
    auto replaced = std::make_shared<std::vector<ExecStep>>(steps);
    (*replaced)[static_cast<std::size_t>(step - steps.begin())].kernel = std::move(updated);
    exec->steps = std::move(replaced);
    return CUDA_SUCCESS;
}

}  // namespace xcuda::cpu::driver

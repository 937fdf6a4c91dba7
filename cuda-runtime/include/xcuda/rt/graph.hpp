// CUDA graphs from stream capture: the work queued on a stream is recorded instead of run, and
// replayed later with one call (cuGraphLaunch), saving the host time of each launch.
#pragma once

#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/handle.hpp>

#include <cuda.h>

#include <vector>

namespace xcuda::rt {

// One kernel launch of a captured graph, as the graph holds it.
struct KernelNode {
    CUgraphNode node = nullptr;
    CUfunction function = nullptr;
    Dim3 grid, block;
    unsigned shared_mem = 0;
};

namespace detail {
struct GraphDestroy : BackendRelease {
    void operator()(CUgraph graph) const noexcept;
};
struct GraphExecDestroy : BackendRelease {
    void operator()(CUgraphExec exec) const noexcept;
};
}  // namespace detail

// An instantiated graph (RAII), move-only.
class Graph {
public:
    Graph() = default;

    // Queues the whole graph on `stream` (the legacy default stream when nullptr).
    void launch(CUstream stream) const;
    // New argument values for one kernel launch of the graph, copied now; later launches use
    // them. `params` as for cuLaunchKernel (one pointer per kernel parameter).
    void set_kernel_arguments(const KernelNode& node, void** params) const;
    // The launch parameters of one node (of this graph).
    KernelNode kernel_node(CUgraphNode node) const;

private:
    friend class StreamCapture;
    detail::Handle<CUgraph, detail::GraphDestroy> graph_;
    detail::Handle<CUgraphExec, detail::GraphExecDestroy> exec_;  // destroyed first, being declared last
};

// Capture of the work queued on `stream` until finish(). The legacy default stream cannot be
// captured (std::invalid_argument). Relaxed mode: other threads may use the driver meanwhile,
// and calls that are unsafe during capture (allocations) are allowed.
class StreamCapture {
public:
    explicit StreamCapture(CUstream stream);
    ~StreamCapture();  // a capture not finished is ended and its graph dropped
    StreamCapture(const StreamCapture&) = delete;
    StreamCapture& operator=(const StreamCapture&) = delete;

    CUstream stream() const noexcept { return stream_; }
    // The node the work queued last on the stream became: after a launch, its kernel node.
    CUgraphNode last_node() const;
    // Ends the capture and instantiates what it recorded.
    Graph finish();

private:
    CUstream stream_ = nullptr;
    detail::Backend* backend_ = nullptr;  // the driver the capture runs on, for the destructor
    bool capturing_ = false;
};

}  // namespace xcuda::rt

// CUgraph, CUgraphNode, CUgraphExec. A captured graph is a chain: each node depends on the one
// captured before it on the same stream. An instantiated graph copies the nodes' work, so
// cuGraphExecKernelNodeSetParams changes later launches of that executable graph only.
#pragma once

#include "driver/handles.hpp"
#include "driver/kernel_launch.hpp"
#include "driver/stream_queues.hpp"
#include "driver/transfers.hpp"

#include <cuda.h>

#include <memory>
#include <mutex>
#include <vector>

namespace xcuda::cpu::driver::detail {

struct GraphNode {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
    KernelLaunch kernel;                // CU_GRAPH_NODE_TYPE_KERNEL
    Transfer transfer;                  // CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_MEMSET
    std::vector<void*> param_pointers;  // into kernel.params: cuGraphKernelNodeGetParams's kernelParams
};

struct Graph {
    std::mutex mutex;
    std::vector<CUgraphNode> nodes;  // in capture order
};

struct ExecStep {
    CUgraphNode source = nullptr;  // the graph's node, which cuGraphExecKernelNodeSetParams names
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
    KernelLaunch kernel;
    Transfer transfer;
};

struct GraphExec {
    std::mutex mutex;
    std::shared_ptr<const std::vector<ExecStep>> steps;  // replaced whole, so a queued launch keeps its own
};

HandleTable<Graph>& graph_table();
HandleTable<GraphNode>& node_table();
HandleTable<GraphExec>& exec_table();

// A kernel node for `launch`, its parameter pointers set up for cuGraphKernelNodeGetParams.
std::shared_ptr<GraphNode> kernel_node(KernelLaunch launch);

// Removes the graph's handle and its nodes' handles; false for an unknown handle.
bool discard_graph(CUgraph handle);

// Appends `node` to the capture's graph (under the scheduler's lock).
CUresult add_captured_node(Capture& capture, std::shared_ptr<GraphNode> node);

// Runs the steps in order; the first that fails ends the launch. After a cancel, kernels are
// skipped and transfers still happen.
Outcome run_steps(const std::vector<ExecStep>& steps, const std::atomic<bool>& cancel);

}  // namespace xcuda::cpu::driver::detail

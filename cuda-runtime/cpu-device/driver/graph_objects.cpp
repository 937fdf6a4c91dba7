#include "driver/graph_objects.hpp"

namespace xcuda::cpu::driver::detail {

HandleTable<Graph>& graph_table() {
    static auto* table = new HandleTable<Graph>();  // never destroyed: used during exit
    return *table;
}

HandleTable<GraphNode>& node_table() {
    static auto* table = new HandleTable<GraphNode>();
    return *table;
}

HandleTable<GraphExec>& exec_table() {
    static auto* table = new HandleTable<GraphExec>();
    return *table;
}

std::shared_ptr<GraphNode> kernel_node(KernelLaunch launch) {
    auto node = std::make_shared<GraphNode>();
    node->type = CU_GRAPH_NODE_TYPE_KERNEL;
    node->kernel = std::move(launch);
    for (const ParamInfo& p : node->kernel.function->info().params)
        node->param_pointers.push_back(node->kernel.params.data() + p.offset);
    return node;
}

bool discard_graph(CUgraph handle) {
    std::shared_ptr<Graph> graph = graph_table().remove(handle);
    if (!graph) return false;
    std::lock_guard<std::mutex> lock(graph->mutex);
    for (CUgraphNode node : graph->nodes) node_table().remove(node);
    return true;
}

CUresult add_captured_node(Capture& capture, std::shared_ptr<GraphNode> node) {
    const auto handle = node_table().add<CUgraphNode>(std::move(node));
    std::lock_guard<std::mutex> lock(capture.graph->mutex);
    capture.graph->nodes.push_back(handle);
    capture.last = handle;
    return CUDA_SUCCESS;
}

Outcome run_steps(const std::vector<ExecStep>& steps, const std::atomic<bool>& cancel) {
    for (const ExecStep& step : steps) {
        Outcome outcome;
        if (step.type == CU_GRAPH_NODE_TYPE_KERNEL) {
            if (cancel.load()) continue;
            outcome = run_kernel(step.kernel, cancel);
        } else {
            outcome = perform(step.transfer);
        }
        if (outcome.status != CUDA_SUCCESS) return outcome;
    }
    return {};
}

}  // namespace xcuda::cpu::driver::detail

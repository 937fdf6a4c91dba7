#pragma once
// xcuda.graph(): the launches made inside a `with` block are captured into a CUDA graph and
// replayed later with g.launch(), one driver call for all of them. Kernel::launch asks
// active_graph_capture() (one pointer test when none is active).
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/graph.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace xcuda::magics {

class Kernel;
class PackedArgs;

class GraphCapture {
public:
    // stream: what to capture (an xcuda.Stream or a foreign stream object); None makes a
    // non-blocking stream of the graph's own.
    explicit GraphCapture(pybind11::object stream);

    // `with`: starts capturing on this thread (one capture at a time per thread); the end of
    // the block instantiates the graph, or drops it when the block raised.
    GraphCapture& enter();
    void exit(pybind11::handle exception_type);

    // Where a launch goes while this capture is active: its stream for launches that name none
    // (the legacy default stream cannot be captured), else the launch's own.
    CUstream stream_for(CUstream launch_stream) const { return launch_stream == nullptr ? stream_ : launch_stream; }
    CUstream stream() const { return stream_; }
    // After a launch on the captured stream: remembers which node it became, and its arguments
    // (kept alive: the graph holds their device pointers).
    void record(const std::shared_ptr<Kernel>& kernel, pybind11::handle args, rt::Dim3 grid, rt::Dim3 block);

    // Replays the graph on `stream` (None: the graph's stream). Asynchronous, like a launch.
    void launch(pybind11::handle stream) const;
    // The captured kernel launches in capture order: (name, grid, block) each.
    pybind11::list kernels() const;
    // "graph of 3 kernels: first x2, second": how %%cuda_profile and %cuda_timeit name a replay.
    std::string summary() const;
    // New arguments for the index-th captured launch (as kernels() lists them); later replays use them.
    void set_args(std::size_t index, pybind11::args args);
    std::string repr() const;
    const pybind11::object& stream_object() const { return stream_ref_; }

private:
    struct CapturedLaunch {
        std::shared_ptr<Kernel> kernel;
        rt::KernelNode node;
        pybind11::object args;
    };
    const rt::Graph& instantiated(const char* what) const;

    pybind11::object stream_ref_;
    CUstream stream_ = nullptr;
    std::unique_ptr<rt::StreamCapture> capture_;
    std::optional<rt::Graph> graph_;
    std::vector<CapturedLaunch> launches_;
};

// TypeError naming the first numpy argument: a graph cannot replay its copies in and out.
void refuse_host_arrays_in_graphs(const Kernel& kernel, const PackedArgs& packed);

// The capture running on this thread, or nullptr.
GraphCapture* active_graph_capture() noexcept;

void define_graphs(pybind11::module_& m);

}  // namespace xcuda::magics

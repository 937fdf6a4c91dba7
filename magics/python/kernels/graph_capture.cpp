#include "kernels/graph_capture.hpp"
#include "kernels/launch_recorder.hpp"

#include "kernels/kernel_object.hpp"
#include "launch/device_objects.hpp"
#include "launch/launch_config.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/launch_detours.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace py = pybind11;

namespace xcuda::magics {

namespace {

thread_local GraphCapture* active = nullptr;
// Captures under way on all threads (GIL held): launches take the detour while any is.
int captures_under_way = 0;

}  // namespace

GraphCapture* active_graph_capture() noexcept { return active; }

GraphCapture::GraphCapture(py::object stream) {
    if (stream.is_none()) {
        activate();  // NoDeviceError without a GPU, before anything else
        stream_ref_ = py::cast(Stream(true));
    } else {
        stream_ref_ = std::move(stream);
    }
    stream_ = parse_stream(stream_ref_);
    if (stream_ == nullptr) {
        raise(PyExc_ValueError,
              "the legacy default stream cannot be captured into a graph: pass an xcuda.Stream (or a CuPy/torch "
              "stream), or no stream and the graph makes its own");
    }
}

GraphCapture& GraphCapture::enter() {
    if (active != nullptr) {
        raise(PyExc_RuntimeError,
              "a graph is already being captured on this thread: end that `with xcuda.graph()` "
              "block first (graphs do not nest)");
    }
    if (graph_ || capture_) {
        raise(PyExc_RuntimeError, "this graph was already captured: make a new one with xcuda.graph()");
    }
    activate();
    capture_ = std::make_unique<rt::StreamCapture>(stream_);
    active = this;
    ++captures_under_way;
    set_launch_detour(detour_capture, true);
    return *this;
}

void GraphCapture::exit(py::handle exception_type) {
    active = nullptr;
    std::unique_ptr<rt::StreamCapture> capture = std::move(capture_);
    if (capture) set_launch_detour(detour_capture, --captures_under_way > 0);
    if (!exception_type.is_none()) {
        launches_.clear();  // the block raised: the capture is dropped with `capture`
        return;
    }
    graph_ = capture->finish();
}

void GraphCapture::record(const std::shared_ptr<Kernel>& kernel, py::handle args, rt::Dim3 grid, rt::Dim3 block) {
    rt::KernelNode node;
    node.node = capture_->last_node();
    node.grid = grid;
    node.block = block;
    launches_.push_back({kernel, node, py::reinterpret_borrow<py::object>(args)});
}

const rt::Graph& GraphCapture::instantiated(const char* what) const {
    if (!graph_) {
        raise(PyExc_RuntimeError, std::string("the graph is not captured yet: ") + what +
                                      " after its `with xcuda.graph() as g:` block has ended");
    }
    return *graph_;
}

void GraphCapture::launch(py::handle stream) const {
    const rt::Graph& graph = instantiated("launch it");
    if (collecting_counters()) {
        raise(PyExc_RuntimeError,
              "g.launch() while hardware counters are collected (%%cuda_profile --metrics, Kernel.profile, "
              "xcuda.counters): CUPTI replays kernels one launch at a time, gives a graph launch no counters and "
              "stops measuring the kernels after it. Launch the graph's kernels one by one to read their counters, "
              "or time the replay with plain %%cuda_profile");
    }
    activate();
    const CUstream s = stream.is_none() ? stream_ : parse_stream(stream);
    if (LaunchRecorder* recorder = active_launch_recorder()) {
        recorder->launch_graph(summary(), s, [&] { graph.launch(s); });
    } else {
        graph.launch(s);
    }
}

std::string GraphCapture::summary() const {
    std::vector<std::pair<std::string, int>> counts;  // in first-capture order
    for (const CapturedLaunch& l : launches_) {
        const std::string name =
            l.kernel->name() + (l.kernel->instantiation().empty() ? "" : "<" + l.kernel->instantiation() + ">");
        auto same = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == name; });
        if (same == counts.end()) {
            counts.emplace_back(name, 1);
        } else {
            ++same->second;
        }
    }
    std::string out = "graph of " + std::to_string(launches_.size()) + (launches_.size() == 1 ? " kernel" : " kernels");
    for (std::size_t i = 0; i < counts.size(); ++i) {
        out += (i == 0 ? ": " : ", ") + counts[i].first +
               (counts[i].second > 1 ? " x" + std::to_string(counts[i].second) : "");
    }
    return out;
}

py::list GraphCapture::kernels() const {
    py::list out;
    for (const CapturedLaunch& l : launches_) {
        const std::string name =
            l.kernel->name() + (l.kernel->instantiation().empty() ? "" : "<" + l.kernel->instantiation() + ">");
        out.append(py::make_tuple(name, py::make_tuple(l.node.grid.x, l.node.grid.y, l.node.grid.z),
                                  py::make_tuple(l.node.block.x, l.node.block.y, l.node.block.z)));
    }
    return out;
}

void GraphCapture::set_args(std::size_t index, py::args args) {
    const rt::Graph& graph = instantiated("set its arguments");
    if (index >= launches_.size()) {
        raise(PyExc_IndexError, "the graph captured " + std::to_string(launches_.size()) + " launches; launch " +
                                    std::to_string(index) + " does not exist (g.kernels lists them)");
    }
    CapturedLaunch& l = launches_[index];
    if (l.node.node == nullptr) {
        raise(PyExc_RuntimeError, "launch " + std::to_string(index) +
                                      " of the graph could not be told apart from other work captured with it "
                                      "(it was queued together with other streams' work): capture it again");
    }
    activate();
    PackedArgs packed;
    l.kernel->packer().pack(args, stream_, packed);
    refuse_host_arrays_in_graphs(*l.kernel, packed);
    graph.set_kernel_arguments(l.node, packed.params());
    l.args = args;  // the new device pointers must outlive the graph's use of them
}

std::string GraphCapture::repr() const {
    std::string state = graph_ ? "captured" : capture_ ? "capturing" : "not captured yet";
    return "xcuda.graph(" + std::to_string(launches_.size()) + " kernel launches, " + state + ")";
}

void refuse_host_arrays_in_graphs(const Kernel& kernel, const PackedArgs& packed) {
    if (packed.staging.empty()) return;
    const ParamPacker& p = kernel.packer().params()[packed.staging.front().param];
    raise(PyExc_TypeError,
          p.what +
              " is a numpy array: a graph replays device pointers, and a numpy argument is copied to the GPU "
              "and back at each launch. Pass device memory inside `with xcuda.graph()`: "
              "xcuda.to_device(array), a CuPy array or a torch tensor");
}

void define_graphs(py::module_& m) {
    py::class_<GraphCapture>(m, "Graph",
                             "Kernel launches captured into a CUDA graph: `with xcuda.graph() as g:` records the "
                             "launches made inside (on the graph's stream, and CuPy/torch work queued on it); "
                             "g.launch() replays them all with one call; g.set_args(i, ...) changes launch i's "
                             "arguments for later replays.")
        .def("__enter__", &GraphCapture::enter, py::return_value_policy::reference)
        .def("__exit__", [](GraphCapture& g, py::handle type, py::handle, py::handle) { g.exit(type); })
        .def("launch", &GraphCapture::launch, py::arg("stream") = py::none(),
             "Replays the captured launches on `stream` (default: the graph's stream); asynchronous, like a launch: "
             "g.stream.synchronize() or xcuda.synchronize() waits for them.")
        .def_property_readonly("kernels", &GraphCapture::kernels,
                               "The captured kernel launches in capture order: (name, grid, block) each.")
        .def_property_readonly(
            "stream", [](const GraphCapture& g) { return g.stream_object(); },
            "The stream captured, and replayed on by default.")
        .def("set_args", &GraphCapture::set_args, py::arg("index"),
             "g.set_args(i, *args): new arguments for the i-th captured launch (as g.kernels lists them), "
             "used by later replays. Device arrays only, as in the capture.")
        .def("__repr__", &GraphCapture::repr);
    m.def(
        "graph", [](py::object stream) { return std::make_unique<GraphCapture>(std::move(stream)); },
        py::arg("stream") = py::none(),
        "A CUDA graph to capture launches into: `with xcuda.graph() as g:` then g.launch() to replay. "
        "`stream` is the stream to capture (default: a new stream of the graph's own); inside the block, launches "
        "that name no stream go to it.");
}

}  // namespace xcuda::magics

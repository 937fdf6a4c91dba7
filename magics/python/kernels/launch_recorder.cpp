#include "kernels/launch_recorder.hpp"
#include "kernels/kernel_object.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"
#include "session/ipython_env.hpp"
#include "session/launch_detours.hpp"
#include "session/session.hpp"

#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/module.hpp>

namespace py = pybind11;

namespace xcuda::magics {
namespace {
thread_local bool collecting = false;
}  // namespace

LaunchRecorder* active_launch_recorder() noexcept { return session().recorder; }

bool collecting_counters() noexcept { return collecting; }

void while_collecting_counters(const std::function<void()>& work) {
    struct Flag {
        Flag() { collecting = true; }
        ~Flag() { collecting = false; }
    } flag;
    work();
}

LaunchRecorder::LaunchRecorder(bool details, std::string owner) : details_(details), owner_(std::move(owner)) {
    Session& s = session();
    if (s.recorder) {
        profiling_usage_error(owner_ + " cannot run while " + s.recorder_owner +
                              " is recording launches: they would see each other's launches; run it in its own cell");
    }
    s.recorder = this;
    set_launch_detour(detour_record, true);
    s.recorder_owner = owner_;
}

LaunchRecorder::~LaunchRecorder() {
    session().recorder = nullptr;
    set_launch_detour(detour_record, false);
    session().recorder_owner.clear();
}

void LaunchRecorder::launch(const Kernel& kernel, const rt::Function& f, py::handle args, rt::Dim3 grid, rt::Dim3 block,
                            std::size_t shared_mem, CUstream stream, void** params, const rt::LaunchOptions& options) {
    RecordedLaunch r;
    r.kernel = kernel.name() + (kernel.instantiation().empty() ? "" : "<" + kernel.instantiation() + ">");
    r.device = current_device();
    r.grid = grid;
    r.block = block;
    r.dynamic_shared = shared_mem;
    r.stream = stream;
    if (details_) {
        const rt::FunctionAttributes a = f.attributes();
        r.registers = a.num_regs;
        r.static_shared = a.shared_bytes;
        r.array_bytes = array_argument_bytes(kernel, args);
        r.module = kernel.module();
        r.lowered_name = kernel.lowered_name();
    }
    r.start.record(stream);
    rt::launch(f, grid, block, shared_mem, stream, params, options);
    r.end.record(stream);
    launches_.push_back(std::move(r));
}

void LaunchRecorder::launch_graph(std::string label, CUstream stream, const std::function<void()>& replay) {
    RecordedLaunch r;
    r.kernel = std::move(label);
    r.device = current_device();
    r.stream = stream;
    r.graph = true;
    r.start.record(stream);
    replay();
    r.end.record(stream);
    launches_.push_back(std::move(r));
}

std::vector<double> LaunchRecorder::elapsed_ms() const {
    std::vector<double> out;
    out.reserve(launches_.size());
    for (const auto& r : launches_) {
        wait_without_gil([&] { r.end.synchronize(); });
        out.push_back(rt::elapsed_ms(r.start, r.end));
    }
    return out;
}

std::optional<std::uint64_t> array_argument_bytes(const Kernel& kernel, py::handle args) {
    const auto& params = kernel.packer().params();
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < params.size() && i < py::len(args); ++i) {
        if (params[i].kind != ParamPacker::Kind::pointer) continue;
        py::handle value = PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i));
        if (!py::hasattr(value, "nbytes")) return std::nullopt;
        total += value.attr("nbytes").cast<std::uint64_t>();
    }
    return total;
}

}  // namespace xcuda::magics

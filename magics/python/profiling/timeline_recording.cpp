#include "profiling/timeline_recording.hpp"
#include "session/device_state.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/activity_trace.hpp>
#include <xcuda/rt/device.hpp>

#include <cxxabi.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>

namespace py = pybind11;

namespace xcuda::magics {

// The recording running: the CUPTI one, or the CPU device's (which has no CUPTI claim, so a
// second start is refused by Session::timeline being set).
struct TimelineRecording {
    bool on_cpu = false;
    std::unique_ptr<rt::ActivityTrace> trace;  // on a GPU
};

namespace {

std::int64_t monotonic_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string demangled(const std::string& name) {
    int status = 0;
    char* plain = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status != 0 || plain == nullptr) return name;
    std::string out(plain);
    std::free(plain);
    return out;
}

py::tuple triple(const unsigned (&v)[3]) { return py::make_tuple(v[0], v[1], v[2]); }

py::dict as_dict(const rt::TraceRecord& r) {
    using Kind = rt::TraceRecord::Kind;
    py::dict d;
    d["kind"] = rt::kind_name(r.kind);
    d["name"] = r.name;
    d["start_ns"] = r.start_ns;
    d["end_ns"] = r.end_ns;
    if (r.stream >= 0) d["stream"] = r.stream;
    if (r.correlation != 0) d["correlation"] = r.correlation;
    if (r.kind == Kind::kernel) {
        d["grid"] = triple(r.grid);
        d["block"] = triple(r.block);
        d["registers"] = r.registers;
        d["static_shared"] = r.static_shared;
        d["dynamic_shared"] = r.dynamic_shared;
    } else if (r.kind == Kind::memcpy || r.kind == Kind::memset) {
        d["bytes"] = r.bytes;
    }
    if (r.kind == Kind::memcpy) {
        d["direction"] = r.direction;
        d["pinned"] = r.pinned < 0 ? py::object(py::none()) : py::object(py::bool_(r.pinned == 1));
    }
    if (r.kind == Kind::nvtx && !r.domain.empty()) d["domain"] = r.domain;
    return d;
}

py::dict as_dict(const cpu::StreamWork& w) {
    using Kind = cpu::StreamWork::Kind;
    py::dict d;
    const bool kernel = w.kind == Kind::kernel;
    d["kind"] = kernel ? "kernel" : w.kind == Kind::copy ? "memcpy" : w.kind == Kind::memset ? "memset" : "graph";
    d["name"] = kernel ? demangled(w.name) : w.name;
    d["start_ns"] = w.start_ns;
    d["end_ns"] = w.end_ns;
    d["stream"] = w.stream;
    if (kernel) {
        d["grid"] = triple(w.grid);
        d["block"] = triple(w.block);
        d["registers"] = w.registers;
        d["static_shared"] = w.static_shared;
        d["dynamic_shared"] = w.dynamic_shared;
    } else if (w.kind != Kind::graph) {
        d["bytes"] = w.bytes;
    }
    if (w.kind == Kind::copy) {
        d["direction"] = w.direction;
        d["pinned"] = w.pinned;
    }
    return d;
}

py::dict start() {
    if (session().timeline) {
        throw rt::ProfilerUnavailable(
            rt::ProfilerUnavailable::Why::busy,
            "a timeline is already recording in this process: one at a time (xcuda.timeline() "
            "inside %%cuda_timeline, or a second thread)");
    }
    const rt::PrimaryContext& context = activate();
    const rt::Device& device = context.device();
    auto r = std::make_shared<TimelineRecording>();
    r->on_cpu = device.is_cpu();
    if (r->on_cpu) {
        cpu::set_stream_work_recording(true);
        (void)cpu::take_stream_work();  // what an earlier recording left unread
    } else {
        py::gil_scoped_release released;
        r->trace = std::make_unique<rt::ActivityTrace>();
    }
    session().timeline = std::move(r);
    py::dict info;
    info["device"] = device.name();
    info["on_cpu"] = device.is_cpu();
    info["arch"] = device.arch();
    return info;
}

std::int64_t now() {
    if (session().timeline && !session().timeline->on_cpu) return rt::ActivityTrace::now_ns();
    return monotonic_ns();
}

py::dict stop() {
    if (!session().timeline) throw std::logic_error("_timeline_stop: no timeline is recording");
    const std::shared_ptr<TimelineRecording> r = std::move(session().timeline);
    py::list records;
    py::dict out;
    if (r->on_cpu) {
        // Work still queued is recorded when it ends: wait for it, as a GPU trace's flush does.
        try {
            synchronize_current();
        } catch (...) {
            cpu::set_stream_work_recording(false);
            throw;
        }
        cpu::set_stream_work_recording(false);
        for (const cpu::StreamWork& w : cpu::take_stream_work()) records.append(as_dict(w));
        out["dropped"] = 0;
    } else {
        synchronize_current();
        rt::TraceResult result;
        {
            py::gil_scoped_release released;
            result = r->trace->stop();
        }
        for (const rt::TraceRecord& rec : result.records) records.append(as_dict(rec));
        out["dropped"] = result.dropped;
    }
    out["records"] = records;
    return out;
}

// Ends a recording whose cell failed, without waiting for the device (a fault or an interrupt
// left it unable to) and without reading what it recorded.
void abandon() {
    if (!session().timeline) return;
    const std::shared_ptr<TimelineRecording> r = std::move(session().timeline);
    if (r->on_cpu) {
        cpu::set_stream_work_recording(false);
        (void)cpu::take_stream_work();
    }
    // r.trace's destructor stops CUPTI's recording.
}

}  // namespace

void define_timeline_recording(py::module_& m) {
    m.def("_timeline_start", &start,
          "Starts recording what the selected device runs (see _cuda_timeline.py); returns the device's name.");
    m.def("_timeline_now", &now, "Now, in nanoseconds on the running recording's clock.");
    m.def("_timeline_stop", &stop,
          "Waits for the device, ends the recording and returns {'records': [...], 'dropped': n}.");
    m.def("_timeline_abandon", &abandon, "Ends a recording without waiting for the device or reading it.");
}

}  // namespace xcuda::magics

#include "kernels/debug_session.hpp"

#include <xcuda/cpu/debugger.hpp>

#include <pybind11/stl.h>

#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

using cpu::DebugSession;

py::tuple dims(const cpu::Dim3& d) { return py::make_tuple(d.x, d.y, d.z); }

std::array<int, 3> selector_dims(const std::vector<int>& v, const char* what) {
    if (v.size() > 3) throw py::value_error(std::string(what) + " takes up to 3 indices (x, y, z)");
    std::array<int, 3> out{-1, -1, -1};
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i];
    return out;
}

py::object as_bytes(const std::optional<std::vector<std::byte>>& data) {
    if (!data) return py::none();
    return py::bytes(reinterpret_cast<const char*>(data->data()), data->size());
}

const char* state_name(DebugSession::State s) {
    switch (s) {
        case DebugSession::State::armed: return "armed";
        case DebugSession::State::running: return "running";
        case DebugSession::State::stopped: return "stopped";
        case DebugSession::State::finished: break;
    }
    return "finished";
}

DebugSession::Resume resume_mode(const std::string& how) {
    if (how == "run") return DebugSession::Resume::run;
    if (how == "step_over") return DebugSession::Resume::step_over;
    if (how == "step_in") return DebugSession::Resume::step_in;
    if (how == "step_out") return DebugSession::Resume::step_out;
    throw py::value_error("resume(" + how + "): use 'run', 'step_over', 'step_in' or 'step_out'");
}

cpu::MemorySpace space_named(const std::string& space) {
    if (space == "param") return cpu::MemorySpace::param;
    if (space == "local") return cpu::MemorySpace::local;
    if (space == "shared") return cpu::MemorySpace::shared;
    if (space == "global") return cpu::MemorySpace::global;
    if (space == "const") return cpu::MemorySpace::constant;
    throw py::value_error("read_variable: space " + space + " is not param, local, shared, global or const");
}

const char* space_name(cpu::MemorySpace s) {
    switch (s) {
        case cpu::MemorySpace::shared: return "shared";
        case cpu::MemorySpace::local: return "local";
        case cpu::MemorySpace::param: return "param";
        default: return "global";
    }
}

}  // namespace

void define_debug_session(py::module_& m) {
    py::class_<DebugSession, std::shared_ptr<DebugSession>>(
        m, "_DebugSession",
        "A debugger's hold on the next CPU-device launch of one kernel compiled with -G (xcuda/_kernel_debug.py "
        "drives it): breakpoints, stops, steps, and the stopped thread's registers and memory.")
        .def(py::init<std::string>(), py::arg("kernel"))
        .def_property_readonly("kernel", &DebugSession::kernel)
        .def(
            "add_breakpoint",
            [](DebugSession& s, std::string file, int line, std::vector<int> block, std::vector<int> thread,
               bool every_thread) {
                cpu::ThreadSelector who;
                const auto b = selector_dims(block, "block"), t = selector_dims(thread, "thread");
                for (int i = 0; i < 3; ++i) {
                    who.block[i] = b[static_cast<std::size_t>(i)];
                    who.thread[i] = t[static_cast<std::size_t>(i)];
                }
                return s.add_breakpoint(std::move(file), line, who, every_thread);
            },
            py::arg("file"), py::arg("line"), py::arg("block") = std::vector<int>{},
            py::arg("thread") = std::vector<int>{}, py::arg("every_thread") = false)
        .def("clear_breakpoints", &DebugSession::clear_breakpoints)
        .def(
            "arm", [](const std::shared_ptr<DebugSession>& s) { cpu::arm_debug_session(s); },
            "The next CPU-device launch of the kernel (compiled with -G) runs under this session.")
        .def_static(
            "disarm", [] { cpu::arm_debug_session(nullptr); }, "No launch takes the armed session.")
        .def(
            "wait",
            [](DebugSession& s, int timeout_ms) {
                DebugSession::State state;
                {
                    py::gil_scoped_release released;
                    state = s.wait(timeout_ms);
                }
                return state_name(state);
            },
            py::arg("timeout_ms"),
            "Waits until the launch stops a thread or ends (at most timeout_ms): 'armed', 'running', 'stopped' or "
            "'finished'.")
        .def_property_readonly("state", [](const DebugSession& s) { return state_name(s.state()); })
        .def(
            "resume", [](DebugSession& s, const std::string& how) { s.resume(resume_mode(how)); },
            py::arg("how") = "run")
        .def("follow", &DebugSession::follow, py::arg("lane"))
        .def("abort", &DebugSession::abort)
        .def_property_readonly("pc", &DebugSession::pc)
        .def("hits", &DebugSession::hits, "[(breakpoint id, lane mask)] of the stop; empty for a step.")
        .def("followed_lane", &DebugSession::followed_lane)
        .def(
            "thread",
            [](const DebugSession& s, unsigned lane) {
                const cpu::DebugThread t = s.thread(lane);
                py::dict d;
                d["block"] = dims(t.block);
                d["thread"] = dims(t.thread);
                d["grid_dim"] = dims(t.grid_dim);
                d["block_dim"] = dims(t.block_dim);
                d["warp"] = t.warp;
                d["lane"] = t.lane;
                d["active"] = t.active;
                d["live"] = t.live;
                return d;
            },
            py::arg("lane"))
        .def("frames",
             [](const DebugSession& s) {
                 py::list out;
                 for (const cpu::DebugFrame& f : s.frames())
                     out.append(py::make_tuple(f.function, f.pc, f.where.file, f.where.line, f.where.column));
                 return out;
             })
        .def(
            "read_register",
            [](const DebugSession& s, std::size_t frame, const std::string& name, unsigned lane) {
                return as_bytes(s.read_register(frame, name, lane));
            },
            py::arg("frame"), py::arg("name"), py::arg("lane"))
        .def(
            "read_variable",
            [](const DebugSession& s, const std::string& space, const std::string& symbol, std::uint64_t offset,
               std::size_t bytes, std::size_t frame, unsigned lane) {
                return as_bytes(s.read_variable(space_named(space), symbol, offset, bytes, frame, lane));
            },
            py::arg("space"), py::arg("symbol"), py::arg("offset"), py::arg("bytes"), py::arg("frame"), py::arg("lane"))
        .def(
            "read_memory",
            [](const DebugSession& s, std::uint64_t address, std::size_t bytes, unsigned lane) {
                return as_bytes(s.read_memory(address, bytes, lane));
            },
            py::arg("address"), py::arg("bytes"), py::arg("lane"))
        .def(
            "region_of",
            [](const DebugSession& s, std::uint64_t address, unsigned lane) -> py::object {
                auto r = s.region_of(address, lane);
                if (!r) return py::none();
                return py::make_tuple(r->base, r->size, space_name(r->space));
            },
            py::arg("address"), py::arg("lane"))
        .def("label_pc", &DebugSession::label_pc, py::arg("label"));
}

}  // namespace xcuda::magics

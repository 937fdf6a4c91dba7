#include "profiling/cpu_grading_data.hpp"
#include "display/kernel_check_report.hpp"
#include "kernels/kernel_object.hpp"
#include "session/device_state.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/access_trace.hpp>
#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/device.hpp>

#include <pybind11/numpy.h>

#include <string>
#include <vector>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// The kernel's name as its cell spells it (the mangled name when this session did not launch it).
std::string source_name(const std::string& mangled) {
    const auto& launched = session().cpu_launched;
    if (auto it = launched.find(mangled); it != launched.end()) return it->second.binding->kernel.decl.name;
    return demangled(mangled);
}

// Switches a CPU-device recording on for a scope, and off again however the scope ends.
class Switched {
public:
    Switched(void (*set)(bool)) : set_(set) { set_(true); }
    ~Switched() { set_(false); }
    Switched(const Switched&) = delete;
    Switched& operator=(const Switched&) = delete;

private:
    void (*set_)(bool);
};

template <class T, class Row, class Field>
py::array_t<T> column(const std::vector<Row>& rows, Field field) {
    py::array_t<T> a(static_cast<py::ssize_t>(rows.size()));
    T* out = a.mutable_data();
    for (std::size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<T>(field(rows[i]));
    return a;
}

py::tuple dims(const cpu::Dim3& d) { return py::make_tuple(d.x, d.y, d.z); }

py::list counts_of(const std::vector<std::shared_ptr<const cpu::LineProfile>>& profiles) {
    py::list launches;
    for (const auto& profile : profiles) {
        py::list rows;
        for (const auto& row : profile->rows) {
            const auto& c = row.counts;
            rows.append(py::make_tuple(cell_line_of(row.where), row.instruction, c.executed, c.lanes, c.divergent,
                                       c.requests, c.sectors, c.bank_conflicts));
        }
        py::dict launch;
        launch["kernel"] = source_name(profile->kernel);
        launch["rows"] = rows;
        launches.append(launch);
    }
    return launches;
}

py::dict trace_of(const cpu::AccessTrace& t) {
    using Step = cpu::AccessTrace::Step;
    using Memory = cpu::AccessTrace::Memory;
    py::dict steps;
    steps["block"] = column<std::uint64_t>(t.steps, [](const Step& s) { return s.block; });
    steps["first_thread"] = column<std::uint32_t>(t.steps, [](const Step& s) { return s.first_thread; });
    steps["lanes"] = column<std::uint32_t>(t.steps, [](const Step& s) { return s.lanes; });
    steps["site"] = column<std::uint32_t>(t.steps, [](const Step& s) { return s.site; });
    py::dict accesses;
    accesses["block"] = column<std::uint64_t>(t.accesses, [](const Memory& m) { return m.block; });
    accesses["thread"] = column<std::uint32_t>(t.accesses, [](const Memory& m) { return m.thread; });
    accesses["site"] = column<std::uint32_t>(t.accesses, [](const Memory& m) { return m.site; });
    // 1 read, 2 write, 3 atomic; 1 global, 2 shared: cpu::Access and cpu::MemorySpace's values.
    accesses["access"] = column<std::uint8_t>(t.accesses, [](const Memory& m) { return m.access; });
    accesses["space"] = column<std::uint8_t>(t.accesses, [](const Memory& m) { return m.space; });
    accesses["size"] = column<std::uint8_t>(t.accesses, [](const Memory& m) { return m.size; });
    accesses["parameter"] = column<std::int32_t>(t.accesses, [](const Memory& m) { return m.parameter; });
    accesses["offset"] = column<std::int64_t>(t.accesses, [](const Memory& m) { return m.offset; });
    accesses["shared_variable"] = column<std::int32_t>(t.accesses, [](const Memory& m) { return m.shared_variable; });
    accesses["value"] = column<std::uint64_t>(t.accesses, [](const Memory& m) { return m.value; });
    py::list sites;
    for (const auto& s : t.sites) sites.append(py::make_tuple(cell_line_of(s.where), s.opcode, s.pc));
    py::list shared;
    for (const auto& v : t.shared_variables) shared.append(demangled(v));
    py::dict d;
    d["kernel"] = source_name(t.kernel);
    d["grid"] = dims(t.grid);
    d["block"] = dims(t.block);
    d["truncated"] = t.truncated;
    d["steps"] = steps;
    d["accesses"] = accesses;
    d["sites"] = sites;
    d["shared_variables"] = shared;
    return d;
}

void require_cpu_device(const char* what) {
    if (current_device() != rt::cpu_device_ordinal) {
        throw py::value_error(std::string(what) +
                              " measures on the CPU device: select it first (xcuda.set_device('cpu'))");
    }
}

}  // namespace

void define_cpu_grading_data(py::module_& m) {
    m.def(
        "_cpu_launch_counts",
        [](py::object work) {
            require_cpu_device("_cpu_launch_counts");
            Switched on(&cpu::set_profiling);
            (void)cpu::take_profiles();
            work();
            synchronize_current();
            return counts_of(cpu::take_profiles());
        },
        py::arg("work"),
        "Runs work() on the CPU device and returns, per launch, the kernel's name and its exact counts per PTX "
        "instruction: (cell line, opcode, warp executions, thread executions, divergent branches, global requests, "
        "32-byte sectors, shared-memory bank conflicts).");
    m.def(
        "_cpu_launch_traces",
        [](py::object work) {
            require_cpu_device("_cpu_launch_traces");
            Switched on(&cpu::set_tracing);
            (void)cpu::take_traces();
            work();
            synchronize_current();
            py::list traces;
            for (const auto& t : cpu::take_traces()) traces.append(trace_of(*t));
            return traces;
        },
        py::arg("work"),
        "Runs work() on the CPU device with every launch traced and returns, per launch, what each thread "
        "executed (steps: block, the warp's first thread, its lanes, the site) and which global and shared "
        "memory it read and wrote (accesses, with the values); sites are (cell line, opcode, pc).");
}

}  // namespace xcuda::magics

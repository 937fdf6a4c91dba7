#include "kernels/kernel_check_error.hpp"
#include "display/kernel_check_report.hpp"
#include "kernels/kernel_object.hpp"
#include "kernels/module_object.hpp"
#include "session/errors.hpp"
#include "session/session.hpp"

#include <xcuda/rt/errors.hpp>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const char* kind_name(cpu::FindingKind k) {
    switch (k) {
        case cpu::FindingKind::out_of_bounds: return "out_of_bounds";
        case cpu::FindingKind::misaligned: return "misaligned";
        case cpu::FindingKind::use_after_free: return "use_after_free";
        case cpu::FindingKind::shared_race: return "shared_race";
        case cpu::FindingKind::global_race: return "global_race";
        case cpu::FindingKind::divergent_barrier: return "divergent_barrier";
        case cpu::FindingKind::collective_absent_lanes: return "collective_absent_lanes";
        case cpu::FindingKind::assertion: return "assertion";
        case cpu::FindingKind::trap: return "trap";
        case cpu::FindingKind::unsupported: return "unsupported";
        case cpu::FindingKind::uninitialised_read: return "uninitialised_read";
        case cpu::FindingKind::invalid_free: return "invalid_free";
        case cpu::FindingKind::invalid_operation: break;
    }
    return "invalid_operation";
}

py::tuple dims(const cpu::Dim3& d) { return py::make_tuple(d.x, d.y, d.z); }

// The failure in the cell's terms, with the kernel the session launched under that name.
void raise_kernel_check(const rt::KernelCheckError& e) {
    const cpu::Failure& f = e.failure();
    KernelContext k;
    std::shared_ptr<const KernelBinding> binding;
    std::shared_ptr<ModuleImpl> cell;  // keeps k.decl alive
    auto& launched = session().cpu_launched;
    if (auto it = launched.find(f.kernel); it != launched.end()) {
        binding = it->second.binding;
        k.decl = &binding->kernel.decl;
        if (auto module = it->second.module.lock()) k.cell_source = module->source();
    } else if (auto root = launched.find(f.launched_from); root != launched.end()) {
        // A grid launched from the device: its kernel is in the cell of the kernel the host launched.
        if ((cell = root->second.module.lock())) {
            k.cell_source = cell->source();
            for (const auto& kernel : cell->compiled().kernels) {
                if (kernel.lowered_name == f.kernel) k.decl = &kernel.decl;
            }
        }
    }
    py::object exc = error_classes().kernel_check(kernel_check_message(f, k));
    exc.attr("code") = static_cast<int>(e.code());
    exc.attr("name") = e.name();
    exc.attr("call") = e.call();
    exc.attr("kind") = kind_name(f.finding.kind);
    const int line = kernel_check_line(f), other = kernel_check_other_line(f);
    exc.attr("line") = line > 0 ? py::object(py::int_(line)) : py::none();
    exc.attr("other_line") = other > 0 ? py::object(py::int_(other)) : py::none();
    exc.attr("thread") = dims(f.finding.thread);
    exc.attr("block") = dims(f.finding.block);
    const bool race =
        f.finding.kind == cpu::FindingKind::shared_race || f.finding.kind == cpu::FindingKind::global_race;
    exc.attr("other_thread") = race ? py::object(dims(f.finding.other_thread)) : py::none();
    exc.attr("other_block") = f.finding.kind == cpu::FindingKind::global_race ? py::object(dims(f.finding.other_block))
                              : race                                          ? py::object(dims(f.finding.block))
                                                                              : py::none();
    // The parameter whose array the access was in or beside, else the one it went through (a
    // null or wild pointer argument).
    py::object parameter = py::none();
    const int index = f.finding.region.parameter >= 0                                 ? f.finding.region.parameter
                      : f.finding.pointer.kind == cpu::PointerSource::Kind::parameter ? f.finding.pointer.parameter
                                                                                      : -1;
    if (index >= 0 && k.decl != nullptr && static_cast<std::size_t>(index) < k.decl->params.size()) {
        parameter = py::str(k.decl->params[static_cast<std::size_t>(index)].name);
    }
    exc.attr("parameter") = parameter;
    exc.attr("report") = f.report();
    PyErr_SetObject(error_classes().kernel_check.ptr(), exc.ptr());
}

}  // namespace

void define_kernel_check_error(py::module_&) {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const rt::KernelCheckError& e) {
            raise_kernel_check(e);
        }
    });
}

}  // namespace xcuda::magics

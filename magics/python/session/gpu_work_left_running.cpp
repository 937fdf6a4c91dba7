#include "session/gpu_work_left_running.hpp"
#include "session/launch_detours.hpp"
#include "session/running_cell.hpp"
#include "session/session.hpp"

#include <xcuda/rt/errors.hpp>
#include <xcuda/rt/interrupted_work.hpp>

namespace py = pybind11;

namespace xcuda::magics {

void note_interrupt_of_a_wait() {
    if (!rt::interrupted_work_running()) return;
    const std::string kernel = rt::last_launched_kernel();
    py::object cell = running_cell_number();
    std::string what = kernel.empty() ? std::string("GPU work") : "kernel `" + kernel + "`";
    if (!cell.is_none()) what += ", launched by cell [" + py::str(cell).cast<std::string>() + "] or before";
    session().gpu_work_left_running = what;
    set_launch_detour(detour_gpu_work_left, true);
}

std::optional<std::string> gpu_work_left_running() {
    Session& s = session();
    if (s.gpu_work_left_running.empty()) return std::nullopt;
    if (rt::interrupted_work_running()) return s.gpu_work_left_running;
    s.gpu_work_left_running.clear();
    set_launch_detour(detour_gpu_work_left, false);
    return std::nullopt;
}

void refuse_while_gpu_work_left_running() {
    if (session().gpu_work_left_running.empty()) return;  // the common case: one test, no call
    if (auto what = gpu_work_left_running()) {
        throw rt::InterruptedWorkRunning(
            "the GPU is still running " + *what +
            ": the interrupt stopped the cell, but a GPU cannot stop a running kernel. Until it ends, this "
            "process cannot use the GPU (it would wait for it, maybe forever); Python cells run as usual. Wait "
            "for it to end (xcuda.gpu_work_left_running() is None then), or run %cuda_restart: a new kernel "
            "process, which ends it, with your variables saved and loaded back");
    }
}

}  // namespace xcuda::magics

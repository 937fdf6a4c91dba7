#include "kernels/cpu_launches.hpp"
#include "kernels/kernel_object.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/driver.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

void announce() {
    std::string text = "xcuda: kernels run on the CPU device: emulated sm_90, slower than a GPU, ";
    text += cpu::checks() ? "checks every access" : "checks off (xcuda.cpu_checks(True) turns them on)";
    if (!rt::gpu_available()) text += "; no GPU here (" + rt::gpu_unavailable_reason() + ")";
    py::module_::import("sys").attr("stdout").attr("write")(text + "\n");
}

}  // namespace

void note_cpu_launch(const std::shared_ptr<const KernelBinding>& binding, const std::shared_ptr<ModuleImpl>& module) {
    Session& s = session();
    if (!s.cpu_device_announced) {
        s.cpu_device_announced = true;
        announce();
    }
    auto it = s.cpu_launched.find(binding->kernel.lowered_name);
    if (it != s.cpu_launched.end() && it->second.binding == binding) return;
    s.cpu_launched[binding->kernel.lowered_name] = {binding, module};
}

}  // namespace xcuda::magics

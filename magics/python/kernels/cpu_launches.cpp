#include "kernels/cpu_launches.hpp"
#include "kernels/kernel_object.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/driver.hpp>

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// Said once, at the first launch on the CPU device: where kernels run, in one line. Why there is no
// GPU (the driver's message) is %cuda_info's to say; on a laptop it is only "no driver".
void announce() {
    const std::string checks =
        cpu::checks() ? "every access checked" : "checks off: xcuda.cpu_checks(True) turns them on";
    const std::string text =
        rt::gpu_available()
            ? "xcuda: kernels run on the CPU device (emulated sm_90, slower than a GPU, " + checks +
                  "; %cuda_device 0 goes back to the GPU)"
            : "xcuda: no NVIDIA GPU here: kernels run on the CPU device (emulated sm_90, slower than a GPU, " + checks +
                  "; %cuda_info says more)";
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

#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/gpu_work_left_running.hpp"
#include "session/interrupt.hpp"
#include "session/launch_detours.hpp"
#include "session/session.hpp"

#include <xcuda/rt/driver.hpp>
#include <xcuda/rt/errors.hpp>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// Device printf drops what does not fit its FIFO, without telling anyone. The runtime sizes the
// FIFO before the first launch; when something else launched first (CuPy, PyTorch) that is no
// longer possible, and the user should know that long printf output can be cut.
void warn_if_printf_fifo_small(const rt::PrimaryContext& ctx) {
    const rt::PrintfFifo fifo = ctx.printf_fifo();
    if (fifo.set) return;
    const std::string message = "device printf buffer of device " + std::to_string(ctx.device().ordinal()) +
                                " stays at " + std::to_string(fifo.bytes >> 10) + " KiB (xcuda asked for " +
                                std::to_string(fifo.requested >> 10) + " KiB: " + fifo.why_not +
                                "); printf output beyond it is dropped by the driver. Import xcuda before other "
                                "CUDA libraries launch to get the larger buffer.";
    if (PyErr_WarnEx(PyExc_RuntimeWarning, message.c_str(), 1) != 0) throw py::error_already_set();
}

void choose_device(int ordinal) {
    Session& s = session();
    s.selected_device = ordinal;
    s.device_chosen = true;
    set_launch_detour(detour_device_unchosen, false);
    set_launch_detour(detour_cpu_device, ordinal == rt::cpu_device_ordinal);
}

}  // namespace

int current_device() {
    Session& s = session();
    if (!s.device_chosen) {
        // The device $XCUDA_DEVICE names (a GPU when there is one, else the CPU device). When
        // that one is unusable (XCUDA_DEVICE=none without a GPU), device 0: using it raises the
        // NoDeviceError that says why.
        choose_device(rt::driver_available() ? rt::default_device_ordinal() : 0);
    }
    return s.selected_device;
}

void select_device(int ordinal) {
    if (ordinal == rt::cpu_device_ordinal) {
        choose_device(ordinal);
        return;
    }
    if (!rt::gpu_available()) {
        raise(error_classes().no_device,
              "no GPU " + std::to_string(ordinal) + " here: " + rt::gpu_unavailable_reason() +
                  "; the CPU device runs kernels without one (%cuda_device cpu, xcuda.Device('cpu'))");
    }
    const int count = rt::device_count();
    if (ordinal < 0 || ordinal >= count) {
        raise(PyExc_ValueError, "device " + std::to_string(ordinal) + " does not exist: this machine has " +
                                    std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") + " (valid: " +
                                    (count == 1 ? std::string("0") : "0.." + std::to_string(count - 1)) + ")");
    }
    choose_device(ordinal);
}

const rt::PrimaryContext& activate(int ordinal) {
    // Everything that uses the GPU comes here first: while a kernel an interrupt left running
    // still runs, it fails at once rather than wait for it (the CPU device has nothing left).
    if (ordinal != rt::cpu_device_ordinal) refuse_while_gpu_work_left_running();
    return make_context_current(ordinal);
}

const rt::PrimaryContext& make_context_current(int ordinal) {
    auto& map = session().contexts;
    auto it = map.find(ordinal);
    if (it == map.end()) {
        rt::Device device(ordinal);
        it = map.emplace(ordinal, std::make_unique<rt::PrimaryContext>(device)).first;
        warn_if_printf_fifo_small(*it->second);
    }
    // Another library (CuPy, PyTorch) may have made another context current on this thread.
    it->second->make_current();
    return *it->second;
}

const rt::PrimaryContext& activate() { return activate(current_device()); }

void note_launch() {
    Session& s = session();
    s.launched_since_sync = true;
    ++s.launches;
}

bool launched_since_sync() { return session().launched_since_sync; }
void note_synchronized() { session().launched_since_sync = false; }

void synchronize_current() {
    // Cleared first: a failed or interrupted wait is reported once, not again after every cell.
    note_synchronized();
    const rt::PrimaryContext& ctx = activate();
    wait_without_gil([&] { ctx.synchronize(); });
}

}  // namespace xcuda::magics

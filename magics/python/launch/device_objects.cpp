#include "launch/device_objects.hpp"
#include "launch/launch_config.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/gpu_work_left_running.hpp"
#include "session/interrupt.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

struct DeviceHandle {
    int ordinal = 0;            // rt::cpu_device_ordinal: the CPU device
    std::vector<int> previous;  // for `with Device(n):`
};

// Device(n) / Device("cpu") / set_device(...): a GPU's index or the CPU device's name.
int ordinal_from(py::handle which) {
    if (py::isinstance<py::str>(which)) {
        const std::string name = which.cast<std::string>();
        if (name == "cpu") return rt::cpu_device_ordinal;
        raise(PyExc_ValueError, "no device named '" + name + "': pass a GPU's index (0, 1, ...) or 'cpu'");
    }
    if (PyBool_Check(which.ptr()) || !PyLong_Check(which.ptr())) {
        raise(PyExc_TypeError,
              "a device is a GPU's index (0, 1, ...) or 'cpu', not " + py::repr(which).cast<std::string>());
    }
    return which.cast<int>();
}

// What Python sees of an ordinal: the GPU's index, or "cpu".
py::object ordinal_object(int ordinal) {
    if (ordinal == rt::cpu_device_ordinal) return py::str("cpu");
    return py::int_(ordinal);
}

py::dict properties_dict(const rt::DeviceProperties& p) {
    py::dict d;
    d["name"] = p.name;
    d["compute_capability"] = py::make_tuple(p.major, p.minor);
    d["arch"] = p.arch;
    d["multiprocessor_count"] = p.sm_count;
    d["total_memory"] = p.total_memory;
    d["clock_rate_khz"] = p.clock_khz;
    d["memory_clock_rate_khz"] = p.memory_clock_khz;
    d["memory_bus_width"] = p.memory_bus_width_bits;
    d["l2_cache_size"] = p.l2_cache_bytes;
    d["warp_size"] = p.warp_size;
    d["max_threads_per_block"] = p.max_threads_per_block;
    d["max_block_dim"] = py::make_tuple(p.max_block_dims.x, p.max_block_dims.y, p.max_block_dims.z);
    d["max_grid_dim"] = py::make_tuple(p.max_grid_dims.x, p.max_grid_dims.y, p.max_grid_dims.z);
    d["max_threads_per_multiprocessor"] = p.max_threads_per_sm;
    d["max_blocks_per_multiprocessor"] = p.max_blocks_per_sm;
    d["shared_memory_per_block"] = p.max_shared_per_block;
    d["shared_memory_per_block_optin"] = p.max_shared_per_block_optin;
    d["shared_memory_per_multiprocessor"] = p.max_shared_per_sm;
    d["registers_per_block"] = p.regs_per_block;
    d["registers_per_multiprocessor"] = p.regs_per_sm;
    d["total_constant_memory"] = p.total_constant_bytes;
    d["pci_bus_id"] = p.pci_bus_id;
    d["concurrent_kernels"] = p.concurrent_kernels;
    d["unified_addressing"] = p.unified_addressing;
    d["managed_memory"] = p.managed_memory;
    d["cooperative_launch"] = p.cooperative_launch;
    d["cluster_launch"] = p.cluster_launch;
    d["kernel_exec_timeout"] = p.kernel_exec_timeout;
    return d;
}

class Event {
public:
    explicit Event(bool timing) : device_(current_device()) {
        activate();
        event_ = std::make_unique<rt::Event>(timing);
    }
    void record(py::handle stream) {
        activate(device_);
        event_->record(parse_stream(stream));
    }
    void synchronize() const {
        activate(device_);
        wait_without_gil([&] { event_->synchronize(); });
    }
    bool query() const {
        activate(device_);
        return event_->query();
    }
    float elapsed_time(const Event& end) const {
        activate(device_);
        float ms = 0;
        wait_without_gil([&] { ms = rt::elapsed_ms(*event_, *end.event_); });
        return ms;
    }
    std::uintptr_t handle() const { return reinterpret_cast<std::uintptr_t>(event_->handle()); }

private:
    int device_;
    std::unique_ptr<rt::Event> event_;
};

}  // namespace

Stream::Stream(bool non_blocking) : device_(current_device()) {
    activate();
    stream_ = std::make_unique<rt::Stream>(non_blocking);
}

void Stream::synchronize() const {
    activate(device_);
    wait_without_gil([&] { stream_->synchronize(); });
}

bool Stream::query() const {
    activate(device_);
    return stream_->query();
}

void define_device_objects(py::module_& m) {
    py::class_<DeviceHandle>(m, "Device", "A CUDA device: Device(n).use() or `with Device(n):` selects it.")
        .def(py::init([](py::object which) {
                 const int ordinal = ordinal_from(which);
                 if (ordinal == rt::cpu_device_ordinal) return DeviceHandle{ordinal, {}};
                 const int count = rt::device_count();
                 if (ordinal < 0 || ordinal >= count) {
                     raise(PyExc_ValueError, "device " + std::to_string(ordinal) +
                                                 " does not exist: valid indices are 0.." + std::to_string(count - 1) +
                                                 ", and 'cpu' for the CPU device");
                 }
                 return DeviceHandle{ordinal, {}};
             }),
             py::arg("ordinal") = 0,
             "Device(n): GPU n. Device('cpu'): the CPU device, which runs kernels without a GPU (emulated sm_90, "
             "every access checked).")
        .def_property_readonly(
            "id", [](const DeviceHandle& d) { return ordinal_object(d.ordinal); }, "The GPU's index, or 'cpu'.")
        .def_property_readonly(
            "is_cpu", [](const DeviceHandle& d) { return d.ordinal == rt::cpu_device_ordinal; },
            "True for the CPU device.")
        .def_property_readonly("name", [](const DeviceHandle& d) { return rt::Device(d.ordinal).name(); })
        .def_property_readonly("arch", [](const DeviceHandle& d) { return rt::Device(d.ordinal).arch(); })
        .def_property_readonly("compute_capability",
                               [](const DeviceHandle& d) {
                                   const auto& p = rt::Device(d.ordinal).properties();
                                   return py::make_tuple(p.major, p.minor);
                               })
        .def_property_readonly(
            "properties", [](const DeviceHandle& d) { return properties_dict(rt::Device(d.ordinal).properties()); })
        .def(
            "memory_info",
            [](const DeviceHandle& d) {
                activate(d.ordinal);
                auto [free, total] = rt::Device::memory_info();
                activate();
                return py::make_tuple(free, total);
            },
            "(free, total) bytes of device memory.")
        .def(
            "use", [](const DeviceHandle& d) { select_device(d.ordinal); }, "Selects this device for later launches.")
        .def(
            "synchronize",
            [](const DeviceHandle& d) {
                const rt::PrimaryContext& ctx = activate(d.ordinal);
                wait_without_gil([&] { ctx.synchronize(); });
                activate();
            },
            "Waits (interruptibly) for all work on this device.")
        .def(
            "__enter__",
            [](DeviceHandle& d) {
                d.previous.push_back(current_device());
                select_device(d.ordinal);
                return &d;
            },
            py::return_value_policy::reference,
            "`with xcuda.Device(n):` selects this device for the block; the previous one comes back after it.")
        .def(
            "__exit__",
            [](DeviceHandle& d, py::args) {
                if (!d.previous.empty()) {
                    select_device(d.previous.back());
                    d.previous.pop_back();
                }
            },
            "Selects again the device that was selected before the `with` block.")
        .def("__repr__",
             [](const DeviceHandle& d) {
                 return d.ordinal == rt::cpu_device_ordinal ? std::string("xcuda.Device('cpu')")
                                                            : "xcuda.Device(" + std::to_string(d.ordinal) + ")";
             })
        .def_static("count", &rt::device_count, "Number of CUDA devices (NoDeviceError without a driver).");

    py::class_<Stream>(m, "Stream", "A CUDA stream on the selected device (non-blocking by default).")
        .def(py::init<bool>(), py::arg("non_blocking") = true)
        .def_property_readonly("handle", [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); })
        .def_property_readonly("ptr", [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); })
        .def_property_readonly("device", &Stream::device)
        .def("__cuda_stream__",
             [](const Stream& s) { return py::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.handle())); })
        .def("synchronize", &Stream::synchronize, "Waits (interruptibly) for the stream's work.")
        .def("query", &Stream::query, "True when all work queued so far has finished.")
        .def("__repr__", [](const Stream& s) {
            return "xcuda.Stream(handle=" + std::to_string(reinterpret_cast<std::uintptr_t>(s.handle())) +
                   ", device=" + std::to_string(s.device()) + ")";
        });

    py::class_<Event>(m, "Event", "A CUDA event, for timing and ordering.")
        .def(py::init<bool>(), py::arg("timing") = true)
        .def("record", &Event::record, py::arg("stream") = py::none(),
             "Records the event on `stream` (an xcuda.Stream, a CuPy/PyTorch stream or a handle; None: the legacy "
             "default stream).")
        .def("synchronize", &Event::synchronize, "Waits (interruptibly) until the event has been reached.")
        .def("query", &Event::query, "True when the work before the event's record has finished.")
        .def("elapsed_time", &Event::elapsed_time, py::arg("end"),
             "Milliseconds from this event to `end` (both recorded; waits for `end`).")
        .def_property_readonly("handle", &Event::handle);

    m.def("device_count", &rt::device_count, "Number of GPUs (NoDeviceError without a driver).");
    m.def("driver_available", &rt::gpu_available, "True when NVIDIA's driver and a GPU are usable.");
    m.def("gpu_available", &rt::gpu_available, "True when NVIDIA's driver and a GPU are usable.");
    m.def("driver_unavailable_reason", &rt::gpu_unavailable_reason,
          "Why there is no usable GPU (\"\" when there is one).");
    m.def("device_available", &rt::driver_available,
          "True when kernels can launch: on a GPU, or (without one, or with XCUDA_DEVICE=cpu) on the CPU device. "
          "False only with XCUDA_DEVICE=none and no GPU.");
    m.def(
        "_launch_count", [] { return session().launches; },
        "How many launches this process has made (for %%cuda_check's summary).");
    m.def(
        "gpu_work_left_running",
        []() -> py::object {
            auto what = gpu_work_left_running();
            return what ? py::object(py::str(*what)) : py::object(py::none());
        },
        "What an interrupt left running on the GPU (\"kernel `spin`, launched by cell [5] or before\"), while it "
        "runs; None when nothing does. Until then, what needs the GPU raises KernelStillRunningError.");
    m.def(
        "get_device", [] { return ordinal_object(current_device()); },
        "The selected device: a GPU's index, or 'cpu' for the CPU device.");
    m.def(
        "set_device", [](py::object which) { select_device(ordinal_from(which)); }, py::arg("device"),
        "Selects the device for later launches: a GPU's index, or 'cpu'.");
    m.def(
        "cpu_checks",
        [](py::object on) {
            if (!on.is_none()) cpu::set_checks(on.cast<bool>());
            return cpu::checks();
        },
        py::arg("on") = py::none(),
        "The CPU device's checks of every access, race, barrier and warp collective (on by default; "
        "XCUDA_CPU_CHECKS=0 starts with them off). cpu_checks(False) turns them off for speed (then only accesses "
        "outside device memory are caught), cpu_checks(True) on again; returns whether they are on.");
    m.def("synchronize", &synchronize_current, "Waits (interruptibly) for all work on the selected device.");
}

}  // namespace xcuda::magics

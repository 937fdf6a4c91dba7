#include "kernels/kernel_attributes.hpp"
#include "kernels/kernel_object.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"

#include <xcuda/rt/device.hpp>
#include <xcuda/rt/driver.hpp>

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

struct AttributeInfo {
    const char* name;
    CUfunction_attribute id;
    bool settable;
};

// CUDA's CU_FUNC_ATTRIBUTE_* in lower case; the settable ones as cuFuncSetAttribute documents.
constexpr AttributeInfo attribute_table[] = {
    {"max_threads_per_block", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, false},
    {"shared_size_bytes", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, false},
    {"const_size_bytes", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, false},
    {"local_size_bytes", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, false},
    {"num_regs", CU_FUNC_ATTRIBUTE_NUM_REGS, false},
    {"ptx_version", CU_FUNC_ATTRIBUTE_PTX_VERSION, false},
    {"binary_version", CU_FUNC_ATTRIBUTE_BINARY_VERSION, false},
    {"cache_mode_ca", CU_FUNC_ATTRIBUTE_CACHE_MODE_CA, false},
    {"max_dynamic_shared_size_bytes", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, true},
    {"preferred_shared_memory_carveout", CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, true},
    {"cluster_size_must_be_set", CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, false},
    {"required_cluster_width", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, true},
    {"required_cluster_height", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, true},
    {"required_cluster_depth", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, true},
    {"non_portable_cluster_size_allowed", CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, true},
    {"cluster_scheduling_policy_preference", CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, true},
};

struct KernelAttributes {
    std::shared_ptr<Kernel> kernel;
};

std::string names(bool settable_only) {
    std::string s;
    for (const auto& a : attribute_table) {
        if (!settable_only || a.settable) s += (s.empty() ? "" : ", ") + std::string(a.name);
    }
    return s;
}

const AttributeInfo& info(const std::string& name) {
    for (const auto& a : attribute_table) {
        if (name == a.name) return a;
    }
    raise(PyExc_KeyError, "no kernel attribute '" + name + "'; the attributes are " + names(false));
}

// "sm_90a" -> 90; nullopt for a PTX-only ("compute_90") compile, which the driver finishes.
std::optional<int> sm_number(const std::string& arch) {
    if (arch.rfind("sm_", 0) != 0) return std::nullopt;
    const int n = std::atoi(arch.c_str() + 3);
    return n > 0 ? std::optional<int>(n) : std::nullopt;
}

// ".version 8.8" in the PTX header -> 88.
std::optional<int> ptx_version(const std::string& ptx) {
    const std::size_t at = ptx.find("\n.version ");
    if (at == std::string::npos) return std::nullopt;
    int major = 0, minor = 0;
    if (std::sscanf(ptx.c_str() + at + 10, "%d.%d", &major, &minor) != 2) return std::nullopt;
    return major * 10 + minor;
}

// What the compile says about `a`, for reads without a GPU.
std::optional<long long> from_compile(const Kernel& k, CUfunction_attribute a) {
    const auto& r = k.resources();
    switch (a) {
        case CU_FUNC_ATTRIBUTE_NUM_REGS:
            if (r) return r->registers;
            break;
        case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
            if (r) return static_cast<long long>(r->shared_bytes);
            break;
        case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
            if (r) return static_cast<long long>(r->stack_frame_bytes);
            break;
        case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
            if (auto n = sm_number(k.module()->compiled().arch)) return *n;
            break;
        case CU_FUNC_ATTRIBUTE_PTX_VERSION:
            if (auto n = ptx_version(k.module()->compiled().ptx)) return *n;
            break;
        default: break;
    }
    return std::nullopt;
}

[[noreturn]] void needs_gpu(const std::string& what) {
    raise(error_classes().no_device, what + " needs a GPU (" + rt::driver_unavailable_reason() +
                                         "); without one, num_regs, shared_size_bytes, local_size_bytes, ptx_version "
                                         "and binary_version come from the compile");
}

py::object get(const KernelAttributes& self, const std::string& name) {
    const AttributeInfo& a = info(name);
    if (!rt::driver_available()) {
        if (auto v = from_compile(*self.kernel, a.id)) return py::int_(*v);
        needs_gpu("Kernel.attributes['" + name + "']");
    }
    return py::int_(self.kernel->function().attribute(a.id));
}

void set(const KernelAttributes& self, const std::string& name, py::handle value) {
    const AttributeInfo& a = info(name);
    if (!a.settable) {
        raise(PyExc_TypeError, "kernel attribute '" + name + "' is read-only; the settable ones are " + names(true));
    }
    if (!PyIndex_Check(value.ptr())) {
        raise(PyExc_TypeError,
              "kernel attribute '" + name + "' takes an int, got " + py::repr(value).cast<std::string>());
    }
    const long long v = value.cast<long long>();
    if (v < 0 || v > 0x7fffffffLL) {
        raise(PyExc_ValueError,
              "kernel attribute '" + name + "' = " + std::to_string(v) + ": must be a non-negative int");
    }
    if (!rt::driver_available()) needs_gpu("setting Kernel.attributes['" + name + "']");
    const rt::Function& f = self.kernel->function();
    if (a.id == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
        const long long optin = rt::Device(current_device()).properties().max_shared_per_block_optin;
        const long long most = optin - f.attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        if (v > most) {
            raise(PyExc_ValueError, "max_dynamic_shared_size_bytes = " + std::to_string(v) + " is more than kernel " +
                                        self.kernel->name() + " can have on this device: at most " +
                                        std::to_string(most) + " (the opt-in maximum of " + std::to_string(optin) +
                                        " bytes per block less its static shared memory)");
        }
    }
    f.set_attribute(a.id, static_cast<int>(v));
}

py::list keys() {
    py::list out;
    for (const auto& a : attribute_table) out.append(a.name);
    return out;
}

std::string repr(const KernelAttributes& self) {
    std::string s = "<xcuda.KernelAttributes of " + self.kernel->name();
    const bool gpu = rt::driver_available();
    const char* sep = ": ";
    for (const auto& a : attribute_table) {
        std::optional<long long> v =
            gpu ? std::optional<long long>(self.kernel->function().attribute(a.id)) : from_compile(*self.kernel, a.id);
        if (!v) continue;
        s += sep + std::string(a.name) + "=" + std::to_string(*v);
        sep = ", ";
    }
    return s + (gpu ? "" : " (the others need a GPU)") + ">";
}

}  // namespace

py::object kernel_attributes(const std::shared_ptr<Kernel>& kernel) {
    // With a GPU the function is loaded here, as reading the attributes always did (benchmarks
    // read them to time a compile including the module load).
    if (rt::driver_available()) (void)kernel->function();
    return py::cast(KernelAttributes{kernel});
}

void define_kernel_attributes(py::module_& m) {
    auto cls = py::class_<KernelAttributes>(
        m, "KernelAttributes",
        "A kernel's function attributes by name (CU_FUNC_ATTRIBUTE_* in lower case). Reads come from the driver on "
        "the selected device; max_dynamic_shared_size_bytes, preferred_shared_memory_carveout, required_cluster_width/"
        "height/depth, non_portable_cluster_size_allowed and cluster_scheduling_policy_preference can be set.");
    cls.def("__getitem__", &get)
        .def("__setitem__", &set)
        .def("__contains__",
             [](const KernelAttributes&, py::handle key) {
                 if (!py::isinstance<py::str>(key)) return false;
                 const std::string k = key.cast<std::string>();
                 for (const auto& a : attribute_table)
                     if (k == a.name) return true;
                 return false;
             })
        .def("__len__", [](const KernelAttributes&) { return std::size(attribute_table); })
        .def("__iter__", [](const KernelAttributes&) { return py::iter(keys()); })
        .def("keys", [](const KernelAttributes&) { return keys(); })
        .def("values",
             [](const KernelAttributes& self) {
                 py::list out;
                 for (const auto& a : attribute_table) out.append(get(self, a.name));
                 return out;
             })
        .def("items",
             [](const KernelAttributes& self) {
                 py::list out;
                 for (const auto& a : attribute_table) out.append(py::make_tuple(a.name, get(self, a.name)));
                 return out;
             })
        .def(
            "get",
            [](const KernelAttributes& self, const std::string& key, py::object fallback) -> py::object {
                for (const auto& a : attribute_table)
                    if (key == a.name) return get(self, key);
                return fallback;
            },
            py::arg("key"), py::arg("default") = py::none())
        .def_property_readonly_static("settable",
                                      [](py::handle) {
                                          py::list out;
                                          for (const auto& a : attribute_table)
                                              if (a.settable) out.append(a.name);
                                          return out;
                                      })
        .def("__repr__", &repr);
    py::module_::import("collections.abc").attr("Mapping").attr("register")(cls);
}

}  // namespace xcuda::magics

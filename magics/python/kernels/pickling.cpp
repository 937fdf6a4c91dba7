#include "kernels/pickling.hpp"
#include "kernels/kernel_object.hpp"
#include "launch/device_array.hpp"
#include "session/errors.hpp"
#include "session/session.hpp"

#include <xcuda/compile/cell_options.hpp>
#include <xcuda/compile/sha256.hpp>

#include <pybind11/stl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// Bumped when the state's keys change; a worker with another xcuda says so instead of guessing.
// 2: the options are keyed by their xcuda.compile() keyword (nvrtc_extra became options).
constexpr int state_version = 2;

// The options that decide what is compiled (those xcuda.compile() takes, not the display ones:
// --ptx, --sass, ...), by keyword.
py::dict options_state(const compile::CellOptions& o) {
    py::dict d;
    for (const auto& option : compile::cell_option_table()) {
        if (!option.keyword.empty()) d[py::str(option.keyword)] = option.get(o);
    }
    return d;
}

compile::CellOptions options_from_state(const py::dict& d) {
    compile::CellOptions o;
    for (const auto& option : compile::cell_option_table()) {
        if (!option.keyword.empty()) option.set(o, d[py::str(option.keyword)].cast<compile::OptionValue>());
    }
    return o;
}

py::dict module_state(const ModuleImpl& m) {
    const compile::CompiledModule& c = m.compiled();
    std::vector<std::pair<std::string, std::string>> lowered;
    for (const auto& k : c.kernels) {
        if (!k.name_expression.empty()) lowered.emplace_back(k.name_expression, k.lowered_name);
    }
    for (const auto& g : c.globals) {
        if (!g.name_expression.empty()) lowered.emplace_back(g.name_expression, g.lowered_name);
    }
    py::dict d;
    d["version"] = state_version;
    d["source"] = m.source();
    d["options"] = options_state(m.recipe().options);
    d["headers"] = m.recipe().headers;
    d["label"] = m.label();
    d["arch"] = c.arch;
    d["cubin"] = py::bytes(c.cubin);
    // bytes, not str: nothing makes NVRTC's PTX or log UTF-8
    d["ptx"] = py::bytes(c.ptx);
    d["log"] = py::bytes(c.log);
    d["lowered_names"] = lowered;
    return d;
}

// "sm_90a" -> "sm_90": the family a CUBIN loads on.
std::string base_arch(std::string arch) {
    if (!arch.empty() && (arch.back() == 'a' || arch.back() == 'f')) arch.pop_back();
    return arch;
}

// A CUBIN is kept when this process has no GPU to recompile for (it shows signatures and
// resources as compiled) or when its GPU is of the CUBIN's arch; PTX (--arch compute_XX) is
// always kept, the driver compiles it for the device.
bool keeps_payload(const std::string& pickled_arch, bool has_cubin) {
    if (!has_cubin) return true;
    compile::ArchSource source = compile::ArchSource::fallback;
    const std::string here = session().compiler().default_arch(&source);
    return source == compile::ArchSource::fallback || base_arch(here) == base_arch(pickled_arch);
}

// Modules already rebuilt in this process, by a digest of what was pickled: every task that
// unpickles a kernel of one module shares that module (loaded once per device).
std::shared_ptr<ModuleImpl> find_rebuilt(const std::string& digest) {
    const auto& modules = session().rebuilt_modules;
    auto it = modules.find(digest);
    return it == modules.end() ? nullptr : it->second.lock();
}

void add_rebuilt(const std::string& digest, const std::shared_ptr<ModuleImpl>& module) {
    auto& modules = session().rebuilt_modules;
    for (auto it = modules.begin(); it != modules.end();) {
        it = it->second.expired() ? modules.erase(it) : std::next(it);
    }
    modules[digest] = module;
}

std::string state_digest(const py::dict& state) {
    compile::Sha256 h;
    for (const char* key : {"source", "arch", "cubin", "ptx"}) h.field(state[key].cast<std::string>());
    h.field(py::repr(state["options"]).cast<std::string>());
    h.field(py::repr(state["headers"]).cast<std::string>());
    return compile::to_hex(h.finish());
}

void check_version(const py::dict& state) {
    const py::object version = state.contains("version") ? py::object(state["version"]) : py::none();
    if (!version.is_none() && version.cast<int>() == state_version) return;
    raise(PyExc_ValueError, "cannot unpickle this xcuda.Module: it was written in pickle format " +
                                py::repr(version).cast<std::string>() + " and this xcuda reads format " +
                                std::to_string(state_version) +
                                ". Install the same xcuda version where it is pickled and where it is unpickled "
                                "(the notebook's kernel and every Dask worker)");
}

// The module a pickled state stands for, in this process: its CUBIN/PTX bound as they are when
// keeps_payload() says so, else its source compiled again for this GPU (through this process's
// cache, with the headers the cell included).
std::shared_ptr<ModuleImpl> module_from_state(const py::dict& state) {
    check_version(state);
    const std::string digest = state_digest(state);
    if (auto known = find_rebuilt(digest)) return known;
    ModuleRecipe recipe{state["source"].cast<std::string>(), options_from_state(state["options"]),
                        state["headers"].cast<std::vector<std::pair<std::string, std::string>>>()};
    compile::HeaderRegistry headers;
    for (const auto& [name, text] : recipe.headers) headers.set(name, text);
    const std::string arch = state["arch"].cast<std::string>();
    const std::string label = state["label"].cast<std::string>();
    compile::CachePayload payload{state["cubin"].cast<std::string>(), state["ptx"].cast<std::string>(),
                                  state["log"].cast<std::string>(),
                                  state["lowered_names"].cast<std::vector<std::pair<std::string, std::string>>>()};
    std::shared_ptr<ModuleImpl> impl;
    if (keeps_payload(arch, !payload.cubin.empty())) {
        auto outcome = translate_compile_errors([&] {
            return session().compiler().adopt_cell(recipe.source, recipe.options, headers, arch, payload, label);
        });
        impl = std::make_shared<ModuleImpl>(outcome.module, std::move(recipe), label, outcome.cache, true);
    } else {
        compile::CellOptions options = recipe.options;
        options.arch.clear();  // this GPU's arch
        impl = compile_to_module(recipe.source, options, label, headers).impl;
    }
    add_rebuilt(digest, impl);
    return impl;
}

ModuleHandle module_handle(const std::shared_ptr<ModuleImpl>& impl) {
    return module_object(impl, impl->recipe().options.name).cast<ModuleHandle>();
}

std::shared_ptr<Kernel> kernel_from_state(const py::tuple& state) {
    const ModuleHandle handle = module_handle(module_from_state(state[0]));
    const std::string lowered = state[1].cast<std::string>();
    for (auto item : handle.kernels) {
        if (py::isinstance<Kernel>(item.second)) {
            auto k = item.second.cast<std::shared_ptr<Kernel>>();
            if (k->lowered_name() == lowered) return k;
            continue;
        }
        for (const auto& [args, k] : item.second.cast<std::shared_ptr<KernelTemplate>>()->by_args) {
            if (k->lowered_name() == lowered) return k;
        }
    }
    raise(PyExc_ValueError, "cannot unpickle xcuda.Kernel " + lowered +
                                ": its module, compiled again here, does not define it; check that the cell's "
                                "headers and --instantiate options are the same in both processes");
}

std::shared_ptr<KernelTemplate> template_from_state(const py::tuple& state) {
    const ModuleHandle handle = module_handle(module_from_state(state[0]));
    const std::string name = state[1].cast<std::string>();
    if (!handle.kernels.contains(name) || !py::isinstance<KernelTemplate>(handle.kernels[py::str(name)])) {
        raise(PyExc_ValueError, "cannot unpickle xcuda.KernelTemplate " + name +
                                    ": its module, compiled again here, has no template kernel of that name");
    }
    return handle.kernels[py::str(name)].cast<std::shared_ptr<KernelTemplate>>();
}

// Streams and events are handles in one process's CUDA context: what to do instead.
void refuse(py::handle cls, const std::string& type, const std::string& instead) {
    py::setattr(cls, "__reduce__",
                py::cpp_function(
                    [type, instead](py::handle) {
                        raise(PyExc_TypeError, "cannot pickle an xcuda." + type + ": a CUDA " +
                                                   (type == "Stream" ? "stream" : "event") +
                                                   " belongs to the process that made it. " + instead);
                    },
                    py::is_method(cls)));
}

template <typename T, typename Holder = std::shared_ptr<T>>
py::class_<T, Holder> class_of(py::module_& m, const char* name) {
    return py::reinterpret_borrow<py::class_<T, Holder>>(m.attr(name));
}

}  // namespace

void define_pickling(py::module_& m) {
    class_of<ModuleHandle, std::unique_ptr<ModuleHandle>>(m, "Module")
        .def(py::pickle([](const ModuleHandle& h) { return module_state(*h.impl); },
                        [](const py::dict& state) { return module_handle(module_from_state(state)); }));
    class_of<Kernel>(m, "Kernel")
        .def(py::pickle([](const Kernel& k) { return py::make_tuple(module_state(*k.module()), k.lowered_name()); },
                        [](const py::tuple& state) { return kernel_from_state(state); }))
        // The cell's options as xcuda.compile() keywords, as a pickle keeps them: Kernel.autotune
        // compiles the cell again with other -D values or template arguments.
        .def_property_readonly(
            "compile_options", [](const Kernel& k) { return options_state(k.module()->recipe().options); },
            "The options the kernel's cell was compiled with, as xcuda.compile() keywords "
            "(xcuda.compile(kernel.source, **kernel.compile_options) compiles the cell again).");
    class_of<KernelTemplate>(m, "KernelTemplate")
        .def(py::pickle(
            [](const KernelTemplate& t) {
                return py::make_tuple(module_state(*t.by_args.begin()->second->module()), t.name);
            },
            [](const py::tuple& state) { return template_from_state(state); }));
    // By value: the array is copied to the host and, unpickled, to the receiving process's
    // selected device.
    class_of<DeviceArray>(m, "DeviceArray")
        .def(py::pickle([](py::object self) { return self.attr("get")(); },
                        [](py::object host) {
                            py::object copy = py::type::of<DeviceArray>().attr("to_device")(host);
                            return copy.cast<std::shared_ptr<DeviceArray>>();
                        }));
    refuse(m.attr("Stream"), "Stream",
           "Make the stream inside the function that runs there (xcuda.Stream()), or launch on the default "
           "stream (stream=None)");
    refuse(m.attr("Event"), "Event", "Make and record events inside the function that runs there (xcuda.Event())");
}

}  // namespace xcuda::magics

#include "kernels/device_globals.hpp"
#include "kernels/kernel_object.hpp"
#include "launch/device_array.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"

#include <xcuda/compile/global_decls.hpp>

#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

struct GlobalsView {
    std::shared_ptr<ModuleImpl> module;
};

const compile::CompiledGlobal* find_global(const ModuleImpl& module, const std::string& key) {
    const std::string wanted = normalise_template_args(key);
    for (const auto& g : module.compiled().globals) {
        if (normalise_template_args(g.decl.key()) == wanted) return &g;
    }
    return nullptr;
}

std::string listing(const ModuleImpl& module) {
    std::string names;
    for (const auto& g : module.compiled().globals) names += (names.empty() ? "" : ", ") + g.decl.key();
    return names;
}

struct Layout {
    std::vector<std::int64_t> shape;
    ElemType dtype;
};

// Raw bytes: what a type the declaration does not describe (a struct, a template, bfloat16,
// which numpy lacks) or a size that disagrees with it is shown as.
Layout bytes_of(std::size_t bytes) { return {{static_cast<std::int64_t>(bytes)}, ElemType{'u', 1}}; }

// Shape and dtype from the declaration, checked against the size the driver reports. Vector
// types get a trailing axis of their components (float2 v[4] -> (4, 2) float32); a scalar
// variable is 0-d; a bound the scanner cannot evaluate (a macro, a constexpr) is inferred from
// the size when it is the only one.
Layout layout_of(const compile::GlobalDecl& decl, std::size_t bytes) {
    const compile::ElementLayout element = compile::element_layout(decl.type);
    const ElemType scalar = elem_type_of(element.scalar);
    if (element.components == 0 || scalar.kind == 'V' || scalar.kind == 'B') return bytes_of(bytes);
    const std::size_t element_bytes =
        static_cast<std::size_t>(scalar.bytes) * static_cast<std::size_t>(element.components);
    if (bytes == 0 || bytes % element_bytes != 0) return bytes_of(bytes);
    const auto count = static_cast<std::int64_t>(bytes / element_bytes);
    Layout out{{}, scalar};
    std::int64_t known = 1;
    std::optional<std::size_t> unknown;
    for (std::size_t i = 0; i < decl.extents.size(); ++i) {
        if (auto n = compile::literal_extent(decl.extents[i])) {
            out.shape.push_back(*n);
            known *= *n;
        } else if (!unknown) {
            unknown = i;
            out.shape.push_back(0);
        } else {
            out.shape = {count};
            known = count;
            unknown.reset();
            break;
        }
    }
    if (unknown && known > 0 && count % known == 0) {
        out.shape[*unknown] = count / known;
        known = count;
    }
    if (known != count) out.shape = {count};  // the declaration and the module disagree: trust the module
    if (element.components > 1) out.shape.push_back(element.components);
    return out;
}

}  // namespace

py::object device_global(const std::shared_ptr<ModuleImpl>& module, const std::string& key) {
    const compile::CompiledGlobal* g = find_global(*module, key);
    if (g == nullptr) {
        const std::string names = listing(*module);
        raise(PyExc_KeyError, "module has no __constant__ or __device__ variable `" + key + "`; " +
                                  (names.empty() ? std::string("the cell defines none at namespace scope")
                                                 : "its variables: " + names) +
                                  " (template variables need --instantiate 'name<args>' on the %%cuda line)");
    }
    const int device = current_device();
    activate(device);
    const rt::DeviceSymbol symbol = module->loaded(device).global(g->lowered_name);
    const Layout layout = layout_of(g->decl, symbol.bytes);
    // The capsule holds the module: its memory stays loaded while a view of it lives.
    py::capsule owner(new std::shared_ptr<ModuleImpl>(module),
                      [](void* p) { delete static_cast<std::shared_ptr<ModuleImpl>*>(p); });
    return py::cast(std::make_shared<DeviceArray>(symbol.ptr, layout.shape, layout.dtype, device, std::move(owner)));
}

py::object globals_view(const std::shared_ptr<ModuleImpl>& module) { return py::cast(GlobalsView{module}); }

void define_device_globals(py::module_& m) {
    auto cls = py::class_<GlobalsView>(m, "ModuleGlobals",
                                       "The cell's __constant__/__device__ variables by C++ name (read-only mapping); "
                                       "each value is an xcuda.DeviceArray view of the variable.");
    cls.def("__getitem__", [](const GlobalsView& v, const std::string& key) { return device_global(v.module, key); })
        .def("__contains__",
             [](const GlobalsView& v, py::handle key) {
                 return py::isinstance<py::str>(key) && find_global(*v.module, key.cast<std::string>()) != nullptr;
             })
        .def("__len__", [](const GlobalsView& v) { return v.module->compiled().globals.size(); })
        .def("keys",
             [](const GlobalsView& v) {
                 py::list out;
                 for (const auto& g : v.module->compiled().globals) out.append(g.decl.key());
                 return out;
             })
        .def("__iter__",
             [](const GlobalsView& v) {
                 py::list out;
                 for (const auto& g : v.module->compiled().globals) out.append(g.decl.key());
                 return py::iter(out);
             })
        .def("values",
             [](const GlobalsView& v) {
                 py::list out;
                 for (const auto& g : v.module->compiled().globals) out.append(device_global(v.module, g.decl.key()));
                 return out;
             })
        .def("items",
             [](const GlobalsView& v) {
                 py::list out;
                 for (const auto& g : v.module->compiled().globals)
                     out.append(py::make_tuple(g.decl.key(), device_global(v.module, g.decl.key())));
                 return out;
             })
        .def(
            "get",
            [](const GlobalsView& v, const std::string& key, py::object fallback) -> py::object {
                if (find_global(*v.module, key) == nullptr) return fallback;
                return device_global(v.module, key);
            },
            py::arg("key"), py::arg("default") = py::none())
        .def(
            "declarations",
            [](const GlobalsView& v) {
                py::dict out;
                for (const auto& g : v.module->compiled().globals) out[py::str(g.decl.key())] = g.decl.declaration;
                return out;
            },
            "Each variable's declaration as the cell wrote it (no GPU needed).")
        .def("__repr__", [](const GlobalsView& v) {
            std::string s = "<xcuda.ModuleGlobals";
            const char* sep = ": ";
            for (const auto& g : v.module->compiled().globals) {
                s += sep + g.decl.declaration;
                sep = ", ";
            }
            return s + ">";
        });
    py::module_::import("collections.abc").attr("Mapping").attr("register")(cls);
}

}  // namespace xcuda::magics

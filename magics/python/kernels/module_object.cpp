#include "kernels/module_object.hpp"
#include "display/rich_output.hpp"
#include "display/sass.hpp"
#include "kernels/device_globals.hpp"
#include "kernels/kernel_object.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/session.hpp"

#include <xcuda/compile/cell_options.hpp>
#include <xcuda/compile/diagnostics.hpp>
#include <xcuda/compile/option_parser.hpp>

#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

const char* cache_name(compile::CacheLevel c) {
    switch (c) {
        case compile::CacheLevel::memory: return "memory";
        case compile::CacheLevel::disk: return "disk";
        case compile::CacheLevel::none: break;
    }
    return "none";
}

// A keyword's Python value as its option's type (the table in compile/cell_options.hpp): a flag
// takes what converts to bool; a text a str, or True/False/None where the magic's value is
// optional (fast_compile=True is --fast-compile); a list a str, an iterable, or a dict
// {NAME: VALUE or None} for NAME[=VALUE] items.
compile::OptionValue option_value(const compile::CellOption& option, py::handle v) {
    auto wrong_type = [&]() -> compile::OptionValue {
        raise(PyExc_TypeError, option.keyword + "=" + py::repr(v).cast<std::string>() + " has the wrong type; pass " +
                                   option.python_type);
    };
    if (option.is_flag()) {
        try {
            return v.cast<bool>();
        } catch (const py::cast_error&) {
            return wrong_type();
        }
    }
    if (py::isinstance<py::str>(v)) {
        std::string s = v.cast<std::string>();
        if (option.is_list()) return std::vector<std::string>{std::move(s)};
        return s;
    }
    if (!option.is_list()) {
        if (!option.spec.value_optional() || !(v.is_none() || PyBool_Check(v.ptr()))) return wrong_type();
        return v.ptr() == Py_True ? option.spec.implicit_value : std::string();
    }
    std::vector<std::string> items;
    if (py::isinstance<py::dict>(v)) {
        for (auto d : v.cast<py::dict>()) {
            items.push_back(py::str(d.first).cast<std::string>() +
                            (d.second.is_none() ? "" : "=" + py::str(d.second).cast<std::string>()));
        }
    } else if (py::isinstance<py::iterable>(v)) {
        for (py::handle x : v) items.push_back(py::str(x).cast<std::string>());
    } else {
        return wrong_type();
    }
    return items;
}

compile::CellOptions options_from_kwargs(const py::kwargs& kw) {
    compile::CellOptions o;
    for (auto item : kw) {
        const std::string key = item.first.cast<std::string>();
        const compile::CellOption* option = compile::find_keyword(key);
        if (!option) raise(PyExc_TypeError, compile::unknown_keyword_message(key));
        // None is the option's default, as for any Python keyword (callers pass arch=None).
        if (item.second.is_none()) continue;
        try {
            option->set(o, option_value(*option, item.second));
        } catch (const compile::ParseError& e) {
            raise(PyExc_ValueError, e.what());  // the message %%cuda gives for the same value
        }
    }
    return o;
}

}  // namespace

ModuleImpl::ModuleImpl(std::shared_ptr<const compile::CompiledModule> compiled, ModuleRecipe recipe, std::string label,
                       compile::CacheLevel cache, bool unpickled)
    : compiled_(std::move(compiled)),
      recipe_(std::move(recipe)),
      label_(std::move(label)),
      cache_(cache),
      unpickled_(unpickled) {}

const rt::Module& ModuleImpl::loaded(int device) {
    auto it = loaded_.find(device);
    if (it == loaded_.end()) {
        // A GPU runs the CUBIN (the driver JIT-compiles the PTX of an --arch compute_XX cell); the
        // CPU device runs the PTX, with line information so its findings name the cell's lines.
        const compile::CompiledModule& image = device == rt::cpu_device_ordinal ? with_line_info() : *compiled_;
        it = loaded_.emplace(device, rt::Module::from_image(image.ptx, image.cubin)).first;
    }
    return it->second;
}

const compile::CompiledModule& ModuleImpl::with_line_info() {
    if (compiled_->ptx.find("\t.loc\t") != std::string::npos) return *compiled_;
    if (!lined_) {
        compile::CellOptions options = recipe_.options;
        options.lineinfo = true;
        compile::HeaderRegistry headers;
        for (const auto& [name, text] : recipe_.headers) headers.set(name, text);
        lined_ = translate_compile_errors([&] {
                     return session().compiler().compile_cell(recipe_.source, options, headers, label_);
                 }).module;
    }
    return *lined_;
}

std::shared_ptr<ModuleImpl> ModuleImpl::lined(const std::shared_ptr<ModuleImpl>& self) {
    const compile::CompiledModule& image = self->with_line_info();
    if (&image == self->compiled_.get()) return self;
    ModuleRecipe recipe = self->recipe_;
    recipe.options.lineinfo = true;
    return std::make_shared<ModuleImpl>(self->lined_, std::move(recipe), self->label_, self->cache_);
}

std::shared_ptr<ModuleImpl> ModuleImpl::debugged(const std::shared_ptr<ModuleImpl>& self) {
    const auto& extra = self->recipe_.options.nvrtc_extra;
    if (std::find(extra.begin(), extra.end(), "-G") != extra.end()) return self;
    if (!self->debugged_) {
        ModuleRecipe recipe = self->recipe_;
        std::vector<std::string> words = extra;
        words.push_back("-G");
        recipe.options.set_nvrtc_extra(std::move(words));
        recipe.options.lineinfo = false;  // -G has line information, and NVRTC ignores -lineinfo with it
        compile::HeaderRegistry headers;
        for (const auto& [name, text] : recipe.headers) headers.set(name, text);
        auto compiled =
            translate_compile_errors([&] {
                return session().compiler().compile_cell(recipe.source, recipe.options, headers, self->label_);
            }).module;
        self->debugged_ =
            std::make_shared<ModuleImpl>(std::move(compiled), std::move(recipe), self->label_, self->cache_);
    }
    return self->debugged_;
}

namespace {

// The bindings of `compiled`'s kernels, made once per compiled module: a re-run cell gets the
// memory cache's same module, and its new Kernels share these. The most recent modules are
// remembered by weak reference (the cache decides how long a module lives). GIL held.
const std::vector<std::shared_ptr<const KernelBinding>>& kernel_bindings(
    const std::shared_ptr<const compile::CompiledModule>& compiled) {
    constexpr std::size_t kept = 32;
    auto* recent = &session().recent_bindings;
    for (auto it = recent->begin(); it != recent->end(); ++it) {
        if (!it->module.owner_before(compiled) && !compiled.owner_before(it->module)) {
            recent->splice(recent->begin(), *recent, it);
            return recent->front().bindings;
        }
    }
    Session::RecentBindings made{compiled, {}};
    for (const auto& k : compiled->kernels) made.bindings.push_back(std::make_shared<const KernelBinding>(k));
    recent->push_front(std::move(made));
    if (recent->size() > kept) recent->pop_back();
    return recent->front().bindings;
}

}  // namespace

compile::CompileOutcome translate_compile_errors(const std::function<compile::CompileOutcome()>& compile) {
    try {
        return compile();
    } catch (const compile::CellCompileError& e) {
        CompileErrorInfo info;
        info.message = e.what();
        info.log = e.log();
        info.line = e.line();
        info.column = e.column();
        for (const auto& d : e.diagnostics()) {
            if (d.severity == compile::Severity::error) {
                info.source_line = d.source_line;
                break;
            }
        }
        raise_compile_error(info);
    } catch (const compile::ParseError& e) {
        raise(PyExc_ValueError, e.what());
    } catch (const std::invalid_argument& e) {
        raise(PyExc_ValueError, e.what());
    }
}

py::object module_object(const std::shared_ptr<ModuleImpl>& impl, const std::string& name) {
    ModuleHandle handle{impl, py::dict(), name};
    std::map<std::string, std::shared_ptr<KernelTemplate>> templates;
    for (const auto& binding : kernel_bindings(impl->compiled_shared())) {
        const compile::CompiledKernel& k = binding->kernel;
        auto kernel = std::make_shared<Kernel>(impl, binding);
        if (k.instantiation.empty()) {
            handle.kernels[binding->name] = py::cast(kernel);
            continue;
        }
        auto& t = templates[k.decl.name];
        if (!t) {
            t = std::make_shared<KernelTemplate>();
            t->name = k.decl.name;
            handle.kernels[binding->name] = py::cast(t);
        }
        // As written (axpy<float>), and with the defaults spelled out (axpy<float, 128>).
        t->by_args[normalise_template_args(k.instantiation)] = kernel;
        std::string full;
        for (const auto& a : k.decl.template_args) full += (full.empty() ? "" : ", ") + a;
        t->by_args.emplace(normalise_template_args(full), kernel);
        t->written.push_back(k.instantiation);
    }
    return py::cast(std::move(handle));
}

CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& options,
                                       const std::string& label) {
    return compile_to_module(source, options, label, session().headers);
}

CompiledPythonModule compile_to_module(const std::string& source, const compile::CellOptions& given,
                                       const std::string& label, const compile::HeaderRegistry& headers) {
    // For the CPU device, PTX with line information: its findings and profiles name the cell's
    // lines. (It changes no machine code: the same kernels run on a GPU.)
    compile::CellOptions options = given;
    if (current_device() == rt::cpu_device_ordinal) options.lineinfo = true;
    compile::CompileOutcome outcome =
        translate_compile_errors([&] { return session().compiler().compile_cell(source, options, headers, label); });
    if (!outcome.cache_warning.empty()) {
        py::print(outcome.cache_warning, py::arg("file") = py::module_::import("sys").attr("stderr"));
    }
    ModuleRecipe recipe{source, options, {}};
    for (const auto& name : outcome.module->headers_used) {
        if (auto text = headers.get(name)) recipe.headers.emplace_back(name, std::move(*text));
    }
    auto impl = std::make_shared<ModuleImpl>(outcome.module, std::move(recipe), label, outcome.cache);
    return {module_object(impl, options.name), impl, outcome.milliseconds};
}

void define_module_objects(py::module_& m) {
    py::class_<ModuleHandle>(m, "Module",
                             "A compiled cell: its kernels, PTX, CUBIN and compiler log. Pickles (for Dask workers) "
                             "as its source, options and included headers with its CUBIN/PTX; loaded where the "
                             "GPU's arch differs, the source is compiled again for it.")
        .def_readonly("kernels", &ModuleHandle::kernels)
        .def_readonly("name", &ModuleHandle::name)
        .def_property_readonly("ptx", [](const ModuleHandle& h) { return h.impl->compiled().ptx; })
        .def_property_readonly("cubin", [](const ModuleHandle& h) { return py::bytes(h.impl->compiled().cubin); })
        .def_property_readonly("log", [](const ModuleHandle& h) { return h.impl->compiled().log; })
        .def_property_readonly("arch", [](const ModuleHandle& h) { return h.impl->compiled().arch; })
        .def_property_readonly("options", [](const ModuleHandle& h) { return h.impl->compiled().nvrtc_options; })
        .def_property_readonly("notes", [](const ModuleHandle& h) { return h.impl->compiled().notes; })
        .def_property_readonly(
            "cache", [](const ModuleHandle& h) { return h.impl->unpickled() ? "pickle" : cache_name(h.impl->cache()); },
            "Where the compile came from: 'memory', 'disk', 'none' (compiled now) or 'pickle' "
            "(the CUBIN/PTX of an unpickled module, for this process's GPU or for none).")
        .def(
            "sass", [](const ModuleHandle& h) { return rich_object(sass_report(h.impl->compiled().cubin)); },
            "SASS of the CUBIN (needs cuobjdump or nvdisasm).")
        .def(
            "get_global", [](const ModuleHandle& h, const std::string& name) { return device_global(h.impl, name); },
            py::arg("name"),
            "The __constant__/__device__ variable `name` (its C++ name: 'coeffs', 'ns::table', 'lut<float>') as an "
            "xcuda.DeviceArray view of the module's memory on the selected device: read it with .get(), write it "
            "with .set(host) before launches. Shaped from the declaration (float c[16] -> (16,) float32, int n -> "
            "(), float2 v[4] -> (4, 2) float32); other types are the variable's bytes (uint8). The view keeps the "
            "module loaded.")
        .def_property_readonly(
            "globals", [](const ModuleHandle& h) { return globals_view(h.impl); },
            "The cell's __constant__/__device__ variables: a read-only mapping from C++ name to "
            "get_global(name).")
        .def(
            "__getattr__",
            [](const ModuleHandle& h, const std::string& name) -> py::object {
                if (h.kernels.contains(name)) return h.kernels[py::str(name)];
                raise(PyExc_AttributeError, "module has no kernel `" + name + "`");
            },
            "module.saxpy: the kernel (or KernelTemplate) of that name.")
        .def(
            "__getitem__",
            [](const ModuleHandle& h, const std::string& name) -> py::object {
                if (h.kernels.contains(name)) return h.kernels[py::str(name)];
                raise(PyExc_KeyError, "module has no kernel `" + name + "`");
            },
            "module['saxpy']: the kernel (or KernelTemplate) of that name.")
        .def("__repr__", [](const ModuleHandle& h) {
            std::string names;
            for (auto item : h.kernels) names += (names.empty() ? "" : ", ") + py::str(item.first).cast<std::string>();
            return "<xcuda.Module " + (h.name.empty() ? std::string() : h.name + " ") + h.impl->compiled().arch + ": " +
                   names + ">";
        });

    static const std::string compile_doc =
        "Compiles CUDA C++ with NVRTC (cached) and returns an xcuda.Module. Options, each the %%cuda option of the "
        "same meaning (None or leaving one out gives its default):\n" +
        compile::keyword_help();
    m.def(
        "compile",
        [](const std::string& source, py::kwargs kwargs) {
            return compile_to_module(source, options_from_kwargs(kwargs), "source").module;
        },
        py::arg("source"), compile_doc.c_str());
}

}  // namespace xcuda::magics

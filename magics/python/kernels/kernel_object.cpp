#include "kernels/kernel_object.hpp"
#include "kernels/cpu_launches.hpp"
#include "kernels/device_globals.hpp"
#include "kernels/graph_capture.hpp"
#include "kernels/kernel_attributes.hpp"
#include "kernels/kernel_benchmark.hpp"
#include "kernels/launch_recorder.hpp"
#include "kernels/launch_slots.hpp"
#include "launch/device_objects.hpp"
#include "launch/launch_config.hpp"
#include "launch/launch_diverter.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"
#include "session/launch_detours.hpp"
#include "session/session.hpp"

#include <xcuda/cpu/argument_extents.hpp>
#include <xcuda/rt/device.hpp>
#include <xcuda/rt/launch.hpp>
#include <xcuda/rt/stream.hpp>

#include <pybind11/stl.h>

#include <Python.h>

#include <cctype>
#include <optional>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

std::string launch_shape(const Launcher& l) {
    std::string s = "[" + l.grid.str() + ", " + l.block.str() + "]";
    if (l.options.cooperative) s += " cooperative";
    if (l.options.cluster) s += " cluster=" + l.options.cluster->str();
    return s;
}

// The stream of kernel[grid, block, shared_mem, stream]: launching in a loop on one
// xcuda.Stream skips pybind11's two type-registry lookups per call by remembering the last
// one. Its handle is fixed for the object's lifetime, and the reference held in the Session
// keeps the address from being reused by another object.
CUstream launch_stream(py::handle value) {
    Session& s = session();
    if (value.ptr() == s.last_stream) return s.last_stream_handle;
    const CUstream handle = parse_stream(value);
    if (py::isinstance<Stream>(value)) {
        Py_XDECREF(s.last_stream);
        s.last_stream = value.inc_ref().ptr();
        s.last_stream_handle = handle;
    }
    return handle;
}

Launcher make_launcher(const std::shared_ptr<Kernel>& k, py::handle config) {
    Launcher l;
    l.kernel = k;
    if (!PyTuple_Check(config.ptr()) || PyTuple_GET_SIZE(config.ptr()) < 2 || PyTuple_GET_SIZE(config.ptr()) > 4) {
        raise(PyExc_TypeError,
              "launch with kernel[grid, block] or kernel[grid, block, shared_mem, stream], got kernel[" +
                  py::repr(config).cast<std::string>() + "]");
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(config.ptr());
    l.grid = parse_dim3(PyTuple_GET_ITEM(config.ptr(), 0), "grid");
    l.block = parse_dim3(PyTuple_GET_ITEM(config.ptr(), 1), "block");
    if (n > 2) l.shared_mem = parse_shared_mem(PyTuple_GET_ITEM(config.ptr(), 2));
    if (n > 3) {
        l.stream_ref = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(config.ptr(), 3));
        l.stream = launch_stream(l.stream_ref);
    }
    return l;
}

// A config item whose meaning cannot change while it is referenced: ints, tuples of ints,
// None and xcuda.Stream objects (their handle is fixed for their lifetime).
bool immutable_config_item(PyObject* item) {
    if (PyLong_CheckExact(item) || item == Py_None) return true;
    if (PyTuple_CheckExact(item)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(item); ++i) {
            if (!PyLong_CheckExact(PyTuple_GET_ITEM(item, i))) return false;
        }
        return true;
    }
    return py::isinstance<Stream>(item);
}

const char* packer_kind_name(ParamPacker::Kind k) {
    switch (k) {
        case ParamPacker::Kind::scalar: return "scalar";
        case ParamPacker::Kind::pointer: return "pointer";
        case ParamPacker::Kind::vector: return "vector";
        case ParamPacker::Kind::complex: return "complex";
        case ParamPacker::Kind::sized_integer: return "integer";
        case ParamPacker::Kind::bytes: return "struct";
        case ParamPacker::Kind::unsupported: break;
    }
    return "unsupported";
}

std::size_t packed_size(const ParamPacker& p) {
    if (p.size > 0) return p.size;
    if (p.kind == ParamPacker::Kind::pointer) return sizeof(void*);
    return compile::scalar_size(p.scalar);
}

py::list parameter_table(const Kernel& k) {
    py::list out;
    for (const ParamPacker& p : k.packer().params()) {
        py::dict d;
        d["name"] = p.name;
        d["type"] = p.type;
        d["kind"] = packer_kind_name(p.kind);
        d["size"] = packed_size(p);
        d["align"] = p.align ? p.align : packed_size(p);
        if (p.kind == ParamPacker::Kind::vector || p.kind == ParamPacker::Kind::complex) {
            d["element"] = compile::scalar_name(p.scalar);
            d["components"] = p.components;
        }
        if (!p.default_text.empty()) d["default"] = p.default_text;
        out.append(d);
    }
    return out;
}

py::list packed_argument_bytes(const Kernel& k, py::args args) {
    PackedArgs packed;
    k.packer().pack(args, nullptr, packed);
    py::list out;
    const auto& params = k.packer().params();
    for (std::size_t i = 0; i < params.size(); ++i) {
        out.append(py::bytes(static_cast<const char*>(packed.params()[i]), packed_size(params[i])));
    }
    return out;
}

}  // namespace

// The cache holds the config tuple, so the objects compared by identity stay alive.
py::object launcher_for(const std::shared_ptr<Kernel>& k, py::handle config) {
    Session::LastLauncher* last = &session().last_launcher;
    PyObject* c = config.ptr();
    if (last->launcher && last->kernel == k.get() && PyTuple_CheckExact(c) &&
        PyTuple_GET_SIZE(c) == PyTuple_GET_SIZE(last->config.ptr())) {
        bool same = true;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(c) && same; ++i) {
            same = PyTuple_GET_ITEM(c, i) == PyTuple_GET_ITEM(last->config.ptr(), i);
        }
        if (same) return last->launcher;
    }
    Kernel* kernel = k.get();
    py::object launcher = py::cast(make_launcher(k, config));
    bool cacheable = PyTuple_CheckExact(c);
    for (Py_ssize_t i = 0; cacheable && i < PyTuple_GET_SIZE(c); ++i) {
        cacheable = immutable_config_item(PyTuple_GET_ITEM(c, i));
    }
    if (cacheable) {
        last->kernel = kernel;
        last->config = py::reinterpret_borrow<py::object>(config);
        last->launcher = launcher;
    }
    return launcher;
}

namespace {

py::dict resources_dict(const rt::KernelResources& r) {
    py::dict d;
    d["arch"] = r.arch;
    d["registers"] = r.registers;
    d["barriers"] = r.barriers;
    d["stack_frame_bytes"] = r.stack_frame_bytes;
    d["spill_store_bytes"] = r.spill_store_bytes;
    d["spill_load_bytes"] = r.spill_load_bytes;
    d["shared_bytes"] = r.shared_bytes;
    d["constant_bytes"] = r.constant_bytes;
    return d;
}

std::string kernel_repr(const Kernel& k) {
    return "<xcuda.Kernel " + k.decl().signature + (k.instantiation().empty() ? "" : " [" + k.instantiation() + "]") +
           ">";
}

// One item of a template key as the C++ template argument it stands for: Python's True/False
// (and numpy's, whose str() is the same) are C++'s true/false; an int or a string is what str()
// writes ("float", 256).
std::string template_arg(py::handle item) {
    if (PyBool_Check(item.ptr())) return item.ptr() == Py_True ? "true" : "false";
    std::string s = py::str(item).cast<std::string>();
    if (!py::isinstance<py::str>(item) && (s == "True" || s == "False")) return s == "True" ? "true" : "false";
    return s;
}

py::object lookup_instantiation(const KernelTemplate& t, py::handle key) {
    std::string args;
    if (PyTuple_Check(key.ptr())) {
        for (py::handle item : key) args += (args.empty() ? "" : ", ") + template_arg(item);
    } else {
        args = template_arg(key);
    }
    auto it = t.by_args.find(normalise_template_args(args));
    if (it == t.by_args.end()) {
        std::string known;
        for (const auto& w : t.written) known += (known.empty() ? "" : ", ") + ("'" + w + "'");
        raise(PyExc_KeyError, t.name + "[" + py::repr(key).cast<std::string>() + "] was not instantiated; " +
                                  (known.empty() ? std::string("none were") : "instantiated: " + known) +
                                  ". Add --instantiate '" + t.name + "<" + args + ">' to the %%cuda line");
    }
    return py::cast(it->second);
}

}  // namespace

std::string normalise_template_args(const std::string& args) {
    std::string out;
    for (char c : args) {
        if (!std::isspace(static_cast<unsigned char>(c))) out += c;
    }
    return out;
}

KernelBinding::KernelBinding(const compile::CompiledKernel& k)
    : kernel(k),
      packer(k.decl, k.layouts),
      description("kernel `" + k.decl.name + (k.instantiation.empty() ? "" : "<" + k.instantiation + ">") + "`"),
      name(k.decl.name) {}

Kernel::Kernel(std::shared_ptr<ModuleImpl> module, std::shared_ptr<const KernelBinding> binding)
    : module_(std::move(module)), binding_(std::move(binding)) {}

const rt::Function& Kernel::function() {
    const int device = current_device();
    activate(device);
    return loaded_function(device);
}

const rt::Function& Kernel::loaded_function(int device) {
    if (function_device_ != device || !function_) {
        function_ = module_->loaded(device).function(binding_->kernel.lowered_name);
        function_device_ = device;
    }
    return *function_;
}

void Kernel::launch(py::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem, CUstream stream,
                    const rt::LaunchOptions& options, CUfunction* validated) {
    // One test for every reason a launch leaves the plain path (the diverter, a recorder, a graph
    // capture, the CPU device, GPU work an interrupt left): the hooks cost a plain launch no more.
    if (session().launch_detours != 0) {
        launch_detoured(args, grid, block, shared_mem, stream, options, validated);
        return;
    }
    PackedArgs packed;
    binding_->packer.pack(args, stream, packed);
    launch_packed<false>(packed, args, grid, block, shared_mem, stream, options, validated);
}

void Kernel::launch_detoured(py::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem, CUstream stream,
                             const rt::LaunchOptions& options, CUfunction* validated) {
    if (PyObject* diverter = active_launch_diverter()) {
        divert_launch(diverter, args, grid, block, shared_mem, stream, options);
        return;
    }
    GraphCapture* capture = active_graph_capture();
    if (capture != nullptr) stream = capture->stream_for(stream);
    const bool captured = capture != nullptr && stream == capture->stream();
    PackedArgs packed;
    binding_->packer.pack(args, stream, packed);
    if (captured) refuse_host_arrays_in_graphs(*this, packed);  // so nothing is staged to copy back
    launch_packed<true>(packed, args, grid, block, shared_mem, stream, options, validated);
    if (captured) capture->record(shared_from_this(), args, grid, block);
}

template <bool Detoured>
void Kernel::launch_packed(PackedArgs& packed, py::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem,
                           CUstream stream, const rt::LaunchOptions& options, CUfunction* validated) {
    // A plain launch's device is chosen, a GPU, and no interrupt left work on it.
    const int device = Detoured ? current_device() : session().selected_device;
    if (packed.required_device >= 0 && packed.required_device != device) {
        raise(PyExc_ValueError, binding_->description + " would run on device " + std::to_string(device) +
                                    " but its array arguments are on device " + std::to_string(packed.required_device) +
                                    ": select that device (xcuda.Device(" + std::to_string(packed.required_device) +
                                    ").use()) or copy the arrays");
    }
    if constexpr (Detoured) {
        activate(device);
    } else {
        make_context_current(device);
    }
    const rt::Function& f = loaded_function(device);
    const bool cpu_device = Detoured && device == rt::cpu_device_ordinal;
    if (cpu_device) note_cpu_launch(binding_, module_);
    for (CUstream producer : packed.producer_streams) {
        wait_without_gil([&] { rt::synchronize_stream(producer); });
    }
    stage_host_arrays(packed, stream, device);
    // The CPU device checks each array argument against its own extent, not the buffer it lies in.
    std::optional<cpu::LaunchArgumentExtents> extents;
    if (cpu_device) extents.emplace(argument_extents(packed, binding_->packer.count()));
    LaunchRecorder* recorder = Detoured ? active_launch_recorder() : nullptr;
    if (recorder != nullptr) {
        recorder->launch(*this, f, args, grid, block, shared_mem, stream, packed.params(), options);
    } else if (validated && *validated == f.handle()) {
        rt::launch_validated(f, grid, block, shared_mem, stream, packed.params(), options);
    } else {
        rt::launch(f, grid, block, shared_mem, stream, packed.params(), options);
        if (validated) *validated = f.handle();
    }
    note_launch();
    unstage_host_arrays(packed, stream, device);
}

const std::string& Kernel::source() const { return module_->source(); }

std::shared_ptr<Kernel> Kernel::with_line_info() {
    auto lined = ModuleImpl::lined(module_);
    if (lined == module_) return shared_from_this();
    return std::make_shared<Kernel>(std::move(lined), binding_);
}

std::shared_ptr<Kernel> Kernel::with_debug_info() {
    auto debugged = ModuleImpl::debugged(module_);
    if (debugged == module_) return shared_from_this();
    return std::make_shared<Kernel>(std::move(debugged), binding_);
}

void Kernel::divert_launch(PyObject* diverter, py::handle args, rt::Dim3 grid, rt::Dim3 block, std::size_t shared_mem,
                           CUstream stream, const rt::LaunchOptions& options) {
    py::dict extra;
    if (options.cooperative) extra["cooperative"] = true;
    if (options.cluster) extra["cluster"] = py::make_tuple(options.cluster->x, options.cluster->y, options.cluster->z);
    py::reinterpret_borrow<py::object>(diverter)(
        py::cast(shared_from_this()), args, py::make_tuple(grid.x, grid.y, grid.z),
        py::make_tuple(block.x, block.y, block.z), shared_mem, reinterpret_cast<std::uintptr_t>(stream), extra);
    note_launch();
}

void define_kernel_objects(py::module_& m) {
    define_benchmark_result(m);
    define_kernel_attributes(m);
    define_device_globals(m);
    auto launcher_type =
        py::class_<Launcher>(m, "Launcher",
                             "A kernel with its launch configuration; call it with the kernel's arguments.")
            .def(
                "__call__",
                [](Launcher& l, py::args args) {
                    l.kernel->launch(args, l.grid, l.block, l.shared_mem, l.stream, l.options, &l.validated);
                },
                "__call__(*args)\n\n"
                "Launches the kernel on `args` (its parameters in order) with the grid, block, shared_mem and stream "
                "given in kernel[...] and the options of .with_options(). Device arrays (xcuda, CuPy, PyTorch, "
                "anything "
                "with __cuda_array_interface__ or DLPack) are passed by pointer; numpy arrays are copied to the device "
                "and back; Python numbers become the parameter's C++ type. Returns None; the launch is asynchronous.")
            .def(
                "with_options",
                [](const Launcher& l, py::kwargs kwargs) {
                    Launcher copy = l;
                    copy.validated = nullptr;
                    LaunchKeywords given;
                    given.options = l.options;
                    for (auto item : kwargs) {
                        const std::string key = item.first.cast<std::string>();
                        if (!given.take(key, item.second, /*options_only=*/true)) {
                            raise(PyExc_TypeError, "with_options() got an unexpected keyword argument '" + key +
                                                       "'; the launch options are " +
                                                       launch_keywords_text(false, true, " and "));
                        }
                    }
                    copy.options = given.options;
                    return copy;
                },
                "with_options(cooperative=False, cluster=None): this launcher with launch options. cooperative=True "
                "launches all blocks co-resident so the kernel may call cooperative_groups::this_grid().sync() (the "
                "grid must fit on the device at once); cluster=(x, y, z) launches thread block clusters (sm_90+; the "
                "grid must be a multiple of it).")
            .def_property_readonly(
                "cooperative", [](const Launcher& l) { return l.options.cooperative; },
                "True when all blocks launch co-resident (with_options(cooperative=True)).")
            .def_property_readonly(
                "cluster",
                [](const Launcher& l) -> py::object {
                    if (!l.options.cluster) return py::none();
                    return py::make_tuple(l.options.cluster->x, l.options.cluster->y, l.options.cluster->z);
                },
                "The thread block cluster shape (x, y, z), or None (with_options(cluster=...)).")
            .def("__repr__",
                 [](const Launcher& l) { return "<xcuda.Launcher " + l.kernel->name() + launch_shape(l) + ">"; });

    auto kernel_type = py::class_<Kernel, std::shared_ptr<Kernel>>(
        m, "Kernel", "A __global__ function of a compiled cell. Pickles with its module.");
    kernel_type.def_property_readonly("name", &Kernel::name, "The __global__ function's name as the source writes it.")
        .def("_with_line_info", &Kernel::with_line_info,
             "This kernel from the same cell compiled with -lineinfo (itself when it was): pickled into the child "
             "that %%cuda_check runs under compute-sanitizer, so that its findings name the cell's lines.")
        .def("_with_debug_info", &Kernel::with_debug_info,
             "This kernel from the same cell compiled with -G (itself when it was): what Kernel.debug and the "
             "notebook's debugger run on the CPU device.")
        .def_property_readonly(
            "_ptx", [](const Kernel& k) { return k.module()->compiled().ptx; },
            "The PTX of the kernel's module (with -G, the DWARF the debugger reads).")
        .def_property_readonly("source", &Kernel::source,
                               "The CUDA C++ of the kernel's cell: what Kernel.autotune compiles again, and "
                               "what %%cuda_check's findings quote.")
        .def_property_readonly(
            "_globals", [](const Kernel& k) { return globals_view(k.module()); },
            "The __constant__/__device__ variables of the kernel's module as loaded here (Module.globals): what "
            "%%cuda_check carries into its checking process, so the kernel reads there what it reads here.")
        .def_property_readonly(
            "_template_params",
            [](const Kernel& k) {
                py::list names;
                for (const auto& p : k.decl().template_params) names.append(p.name);
                return py::make_tuple(k.decl().qualified_name, names);
            },
            "(qualified name, template parameter names): what Kernel.autotune instantiates with other arguments.")
        .def_property_readonly(
            "signature", [](const Kernel& k) { return k.decl().signature; },
            "The __global__ function's declaration as the source writes it.")
        .def_property_readonly("lowered_name", &Kernel::lowered_name, "The symbol in the module (mangled for C++).")
        .def_property_readonly("instantiation", &Kernel::instantiation,
                               "The template arguments of a template's instantiation ('float, 4'); '' otherwise.")
        .def_property_readonly(
            "parameters",
            [](const Kernel& k) {
                py::list out;
                for (const auto& p : k.decl().params) out.append(py::make_tuple(p.name, p.type));
                return out;
            },
            "The parameters as (name, C++ type) pairs, in order.")
        .def_property_readonly(
            "resources",
            [](const Kernel& k) -> py::object {
                if (!k.resources()) return py::none();
                return resources_dict(*k.resources());
            },
            "Registers, spills and memory per ptxas (no GPU needed); None when ptxas gave none.")
        .def_property_readonly("attributes", &kernel_attributes,
                               "The function's attributes (a mapping; see xcuda.KernelAttributes): read from the "
                               "driver on the selected device, settable ones written to it.")
        .def(
            "occupancy",
            [](Kernel& k, int block, std::size_t shared_mem) {
                const rt::Function& f = k.function();
                const auto& props = rt::Device(current_device()).properties();
                const int blocks = f.max_active_blocks_per_sm(block, shared_mem);
                const int warps_per_block = (block + props.warp_size - 1) / props.warp_size;
                const int max_warps = props.max_threads_per_sm / props.warp_size;
                py::dict d;
                d["block_size"] = block;
                d["active_blocks_per_sm"] = blocks;
                d["active_warps_per_sm"] = blocks * warps_per_block;
                d["max_warps_per_sm"] = max_warps;
                d["occupancy"] = max_warps ? double(blocks * warps_per_block) / max_warps : 0.0;
                return d;
            },
            py::arg("block"), py::arg("shared_mem") = 0,
            "Theoretical occupancy from the driver for this block size and dynamic shared memory.")
        .def_property_readonly("parameter_layout", &parameter_table,
                               "Each parameter as the launch passes it: name, C++ type, how a Python value is "
                               "read (scalar, pointer, vector, complex, integer, struct), and its size and "
                               "alignment in bytes as the compiled code lays it out.")
        .def("_packed_arguments", &packed_argument_bytes,
             "The bytes each parameter would receive for these arguments (numpy arrays are not staged: their "
             "pointers read 0). For tests and debugging.")
        .def(
            "__getitem__", [](const std::shared_ptr<Kernel>& k, py::handle config) { return launcher_for(k, config); },
            "kernel[grid, block] or kernel[grid, block, shared_mem, stream] -> Launcher\n\n"
            "The kernel with a launch configuration; call the result with the kernel's arguments: "
            "kernel[grid, block](x, y, n). grid and block are an int or a tuple of up to three ints (x, y, z); "
            "shared_mem is the dynamic shared memory in bytes (default 0); stream is an xcuda.Stream, a CuPy or "
            "PyTorch stream, a handle, or None for the legacy default stream. Launch options: "
            ".with_options(cooperative=, cluster=) on the result.")
        .def(
            "__call__",
            [](Kernel& k, py::args args, py::kwargs kwargs) {
                LaunchKeywords launch;
                for (auto item : kwargs) {
                    const std::string key = item.first.cast<std::string>();
                    if (!launch.take(key, item.second))
                        raise(PyExc_TypeError, k.name() + "() got an unexpected keyword argument '" + key +
                                                   "'; launch options are " + launch_keywords_text(false));
                }
                if (!launch.grid || !launch.block) {
                    raise(PyExc_TypeError, k.name() + "(...) needs grid= and block= (or launch with " + k.name() +
                                               "[grid, block](...))");
                }
                k.launch(args, parse_dim3(launch.grid, "grid"), parse_dim3(launch.block, "block"),
                         parse_shared_mem(launch.shared_mem), parse_stream(launch.stream), launch.options);
            },
            "__call__(*args, grid, block, shared_mem=0, stream=None, cooperative=False, cluster=None)\n\n"
            "Launches the kernel on `args` (its parameters in order) with the launch configuration as keywords, "
            "the same as kernel[grid, block, shared_mem, stream].with_options(cooperative=, cluster=)(*args). grid "
            "and block are an int or a tuple of up to three ints (x, y, z); shared_mem is the dynamic shared memory "
            "in bytes; stream is an xcuda.Stream, a CuPy or PyTorch stream, a handle, or None for the legacy "
            "default stream; cooperative=True launches all blocks co-resident; cluster=(x, y, z) launches thread "
            "block clusters (sm_90+). Device arrays are passed by pointer, numpy arrays are copied to the device "
            "and back. Returns None; the launch is asynchronous.")
        .def("benchmark", &benchmark_kernel, benchmark_docstring())
        .def("__repr__", &kernel_repr);

    py::class_<KernelTemplate, std::shared_ptr<KernelTemplate>>(
        m, "KernelTemplate", "A __global__ template: index it with the template arguments, e.g. axpy['float'].")
        .def_readonly("name", &KernelTemplate::name)
        .def_property_readonly(
            "instantiations", [](const KernelTemplate& t) { return t.written; },
            "The template arguments instantiated (--instantiate), as written.")
        .def("__getitem__", &lookup_instantiation,
             "template['float'] or template['float', 4] -> Kernel: the instantiation with these template "
             "arguments (KeyError naming the instantiated ones when it was not instantiated).")
        .def("__repr__", [](const KernelTemplate& t) {
            std::string s = "<xcuda.KernelTemplate " + t.name + ": ";
            for (std::size_t i = 0; i < t.written.size(); ++i) s += (i ? ", " : "") + ("'" + t.written[i] + "'");
            return s + ">";
        });

    define_module_objects(m);

    install_launch_slots(m, kernel_type, launcher_type);
}

}  // namespace xcuda::magics

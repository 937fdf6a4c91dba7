#include "launch/launch_args.hpp"
#include "launch/cpp_literal.hpp"
#include "launch/device_array.hpp"
#include "launch/scalar_convert.hpp"
#include "launch/value_convert.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"
#include "session/staging_pool.hpp"

#include <xcuda/rt/memory.hpp>
#include <xcuda/rt/staged_copy.hpp>
#include <xcuda/rt/stream.hpp>

#include <Python.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

using compile::ParamKind;
using compile::ScalarType;

std::string plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// The expression a user would write to convert their array, for messages.
std::string astype_hint(py::handle value, const std::string& name, const ElemType& want) {
    const std::string module = py::str(py::type::handle_of(value).attr("__module__")).cast<std::string>();
    const std::string dtype = elem_type_name(want);
    if (module.rfind("torch", 0) == 0) return "pass " + name + ".to(torch." + dtype + ")";
    if (module.rfind("cupy", 0) == 0) return "pass " + name + ".astype(cupy." + dtype + ")";
    if (want.kind == 'B') return "pass a bfloat16 array";
    return "pass " + name + ".astype(np." + dtype + ")";
}

}  // namespace

void PackedArgs::reset(std::size_t n, std::size_t wide_bytes) {
    known_arrays = KnownArrayLaunch{};
    if (n > inline_params) {
        heap_slots_.assign(n, 0);
        heap_ptrs_.assign(n, nullptr);
        heap_extents_.assign(n, no_extent);
        slots_ = heap_slots_.data();
        ptrs_ = heap_ptrs_.data();
        extents_ = heap_extents_.data();
    }
    if (wide_bytes > sizeof inline_wide_) {
        heap_wide_.resize((wide_bytes + sizeof(WideChunk) - 1) / sizeof(WideChunk));
        wide_ = heap_wide_[0].bytes;
    }
    for (std::size_t i = 0; i < n; ++i) {
        ptrs_[i] = slots_ + i;
        extents_[i] = no_extent;
    }
}

namespace {

// The element types a pointer to a vector or complex type accepts: its components' (a float32
// array for float2*), and for two-component float types the matching complex dtype.
void vector_pointee(const compile::Param& src, ParamPacker& p) {
    if (src.pointer_depth != 1) return;
    bool is_complex = false;
    auto [element, components] = compile::vector_type(src.pointee, &is_complex);
    if (element == ScalarType::none) return;
    const ElemType component = elem_type_of(element);
    const bool complex_pair = components == 2 && (element == ScalarType::float32 || element == ScalarType::float64);
    const ElemType as_complex{'c', component.bytes * 2};
    p.pointee = is_complex ? as_complex : component;
    p.pointee_alt = complex_pair ? (is_complex ? component : as_complex) : ElemType{};
}

void apply_layout(const compile::ValueLayout& layout, ParamPacker& p) {
    using L = compile::ValueLayout::Kind;
    p.size = layout.size;
    p.align = layout.align;
    switch (layout.kind) {
        case L::declared:
        case L::unknown: return;
        case L::vector:
            p.kind = ParamPacker::Kind::vector;
            p.scalar = layout.element;
            p.components = layout.components;
            return;
        case L::complex:
            p.kind = ParamPacker::Kind::complex;
            p.scalar = layout.element;
            p.components = 2;
            return;
        case L::integer: p.kind = ParamPacker::Kind::sized_integer; return;
        case L::floating:
            p.kind = ParamPacker::Kind::scalar;
            p.scalar = layout.size == 8 ? ScalarType::float64 : ScalarType::float32;
            return;
        case L::bytes: p.kind = ParamPacker::Kind::bytes; return;
    }
}

}  // namespace

ArgumentPacker::ArgumentPacker(const compile::KernelDecl& decl, const std::vector<compile::ValueLayout>& layouts)
    : signature_(decl.signature) {
    params_.reserve(decl.params.size());
    required_ = decl.params.size();
    for (std::size_t i = 0; i < decl.params.size(); ++i) {
        const compile::Param& src = decl.params[i];
        ParamPacker p;
        p.name = src.name.empty() ? "#" + std::to_string(i + 1) : src.name;
        p.type = src.type;
        p.what = "argument `" + p.name + "` (" + src.type + ")";
        p.scalar = src.scalar;
        if (src.kind == ParamKind::scalar && src.scalar != ScalarType::none) {
            p.kind = ParamPacker::Kind::scalar;
        } else if (src.kind == ParamKind::pointer) {
            p.kind = ParamPacker::Kind::pointer;
            p.pointee_const = src.pointee_const;
            // void*, struct pointers and pointers to pointers take any element type.
            p.pointee = src.pointer_depth == 1 ? elem_type_of(src.scalar) : ElemType{};
            vector_pointee(src, p);
        }
        if (i < layouts.size()) apply_layout(layouts[i], p);
        if (p.size > sizeof(std::uint64_t)) {
            const std::size_t align = std::max<std::size_t>(p.align, 1);
            p.wide_offset = (wide_bytes_ + align - 1) / align * align;
            wide_bytes_ = p.wide_offset + p.size;
        }
        if (!src.default_value.empty()) {
            p.default_text = src.default_value;
            p.default_value = python_value_of_cpp_literal(src.default_value);
            if (p.default_value && p.default_value.is_none() && p.kind != ParamPacker::Kind::pointer) {
                p.default_value = py::object();  // NULL for a number is not a value we can pass
            }
            if (p.default_value && p.kind == ParamPacker::Kind::pointer && !p.default_value.is_none()) {
                // `T* p = 0`: a null pointer
                p.default_value = PyLong_Check(p.default_value.ptr()) && PyLong_AsLong(p.default_value.ptr()) == 0
                                      ? py::none()
                                      : py::object();
            }
            if (required_ == decl.params.size()) required_ = i;
        } else {
            required_ = decl.params.size();  // a default followed by a parameter without one
        }
        params_.push_back(std::move(p));
    }
}

void ArgumentPacker::wrong_count(std::size_t got) const {
    const std::string takes = required_ == params_.size()
                                  ? plural(params_.size(), "argument")
                                  : std::to_string(required_) + " to " + plural(params_.size(), "argument");
    std::string msg = signature_ + " takes " + takes + ", got " + std::to_string(got);
    if (got < required_) {
        msg += ": missing ";
        for (std::size_t i = got; i < required_; ++i) {
            msg += (i > got ? ", `" : "`") + params_[i].name + "` (" + params_[i].type + ")";
        }
    }
    raise(PyExc_TypeError, msg);
}

void ArgumentPacker::pack(py::handle args, CUstream stream, PackedArgs& out) const {
    const auto n = static_cast<std::size_t>(PyTuple_GET_SIZE(args.ptr()));
    if (n != params_.size() && (n < required_ || n > params_.size())) wrong_count(n);
    out.reset(params_.size(), wide_bytes_);
    for (std::size_t i = 0; i < params_.size(); ++i) {
        const ParamPacker& p = params_[i];
        py::handle value;
        if (i < n) {
            value = PyTuple_GET_ITEM(args.ptr(), static_cast<Py_ssize_t>(i));
        } else if (p.default_value) {
            value = p.default_value;
        } else {
            raise(PyExc_TypeError, p.what + " was left out, and its default `" + p.default_text +
                                       "` is not a literal xcuda can read from Python: pass it");
        }
        switch (p.kind) {
            case ParamPacker::Kind::scalar: convert_scalar(p.scalar, value, p.what, out.slot(i)); break;
            case ParamPacker::Kind::pointer: pack_pointer(p, i, value, stream, out); break;
            case ParamPacker::Kind::unsupported:
                raise(PyExc_TypeError, p.what +
                                           ": xcuda cannot pass a parameter of this type from Python (the "
                                           "compiled code does not say its size); pass a pointer to it instead");
            default: pack_value(p, i, value, out);
        }
    }
}

void ArgumentPacker::pack_value(const ParamPacker& p, std::size_t index, py::handle value, PackedArgs& out) const {
    std::uint8_t* dst;
    if (p.size > sizeof(std::uint64_t)) {
        dst = out.wide() + p.wide_offset;
        out.params()[index] = dst;
    } else {
        *out.slot(index) = 0;
        dst = reinterpret_cast<std::uint8_t*>(out.slot(index));
    }
    switch (p.kind) {
        case ParamPacker::Kind::vector: return convert_vector(p.scalar, p.components, value, p.what, dst);
        case ParamPacker::Kind::complex: return convert_complex(p.scalar, value, p.what, dst);
        case ParamPacker::Kind::sized_integer: return convert_sized_integer(p.size, value, p.what, dst);
        case ParamPacker::Kind::bytes: return convert_struct_bytes(value, p.size, p.align, p.what, p.type, dst);
        default: return;
    }
}

void ArgumentPacker::pack_pointer(const ParamPacker& p, std::size_t index, py::handle value, CUstream stream,
                                  PackedArgs& out) const {
    std::uint64_t* slot = out.slot(index);
    PyObject* obj = value.ptr();
    if (obj == Py_None) {
        *slot = 0;
        return;
    }
    auto check_type = [&](const ElemType& got, const char* what_kind) {
        if (p.pointee.kind != 'V' && got != p.pointee && (p.pointee_alt.kind == 'V' || got != p.pointee_alt)) {
            raise(PyExc_TypeError, "argument `" + p.name + "` expects " + p.type + ": got a " + elem_type_name(got) +
                                       " " + what_kind + "; " + astype_hint(value, p.name, p.pointee));
        }
    };
    auto check_device = [&](int device) {
        if (device < 0) return;
        if (out.required_device >= 0 && out.required_device != device) {
            raise(PyExc_ValueError, "argument `" + p.name + "` is on device " + std::to_string(device) +
                                        " but an earlier argument is on device " + std::to_string(out.required_device) +
                                        ": copy them to one device");
        }
        out.required_device = device;
    };

    if (Py_TYPE(obj) == device_array_type()) {
        const DeviceArray& a = device_array_of(value);
        check_type(a.dtype(), "DeviceArray");
        check_device(a.device());
        a.mark_contents_defined();  // the kernel may write it
        *slot = a.ptr();
        out.set_extent(index, a.nbytes());
        return;
    }
    ArrayDescription d;
    if (is_numpy_array(value)) {
        read_array_interface(value, d, p.what);
        check_type(d.dtype, "array");
        if (!d.contiguous) {
            raise(PyExc_TypeError, p.what + " got a non-contiguous numpy array: pass np.ascontiguousarray(" + p.name +
                                       ") (and copy the result back yourself if the kernel writes it)");
        }
        const bool copy_back = !p.pointee_const;
        if (copy_back && d.readonly) {
            raise(PyExc_TypeError, p.what + " got a read-only numpy array, but the kernel may write through `" +
                                       p.name + "`: pass a writable copy, or declare the parameter const");
        }
        HostStaging s;
        s.param = index;
        s.host = reinterpret_cast<void*>(d.ptr);
        s.bytes = static_cast<std::size_t>(d.size()) * static_cast<std::size_t>(d.dtype.bytes);
        s.copy_back = copy_back;
        out.staging.push_back(std::move(s));
        out.keepalive.push_back(py::reinterpret_borrow<py::object>(value));
        return;
    }
    // CuPy arrays and torch tensors: their attributes, not a CAI dict built per access.
    bool found = read_known_array(obj, d, out.known_arrays);
    if (!found) {
        try {
            found = read_cuda_array_interface(value, d, p.what);
        } catch (const py::error_already_set&) {
            // PyTorch refuses CAI for tensors that require grad or are bfloat16; DLPack may work.
            if (!PyObject_HasAttr(obj, protocol_names().dlpack.ptr())) throw;
        }
    }
    if (!found && !read_dlpack(value, d, stream, p.what)) {
        std::string fix = p.pointee.kind == 'V'
                              ? std::string("a device array")
                              : "np.asarray(" + p.name + ", dtype=np." + elem_type_name(p.pointee) + ")";
        raise(PyExc_TypeError, p.what + " got " + Py_TYPE(obj)->tp_name + ": pass a numpy array (" + fix +
                                   "), an xcuda.DeviceArray, or a CuPy/PyTorch/Numba device array");
    }
    check_type(d.dtype, "array");
    if (!d.contiguous) {
        raise(PyExc_TypeError, p.what + " got a non-contiguous device array: pass a contiguous copy (" + p.name +
                                   ".contiguous() in PyTorch, cupy.ascontiguousarray(" + p.name + ") in CuPy)");
    }
    if (d.readonly && !p.pointee_const) {
        raise(PyExc_TypeError, p.what +
                                   " got a read-only device array, but the kernel may write through it: declare "
                                   "the parameter const or pass a writable array");
    }
    check_device(d.device);
    *slot = d.ptr;
    out.set_extent(index, static_cast<std::uint64_t>(d.size()) * static_cast<std::uint64_t>(d.dtype.bytes));
    if (d.sync_stream && d.stream != stream) out.producer_streams.push_back(d.stream);
    if (d.keepalive) out.keepalive.push_back(std::move(d.keepalive));
}

namespace {

// An interrupted (or failed) wait leaves the kernel running with the staging buffers: freeing
// them as the arguments unwind would block in cuMemFree until it ends.
void abandon_staging(PackedArgs& args) {
    for (HostStaging& s : args.staging) {
        if (s.device.size() > 0) abandon_staging_buffer(std::move(s.device));
    }
}

bool is_large(const HostStaging& s) { return s.bytes > rt::staged_copy_min_bytes; }

// The arrays the pinned pipeline copies (in, or back: only those not const).
std::vector<rt::HostDeviceSpan> large_spans(const PackedArgs& args, bool back) {
    std::vector<rt::HostDeviceSpan> spans;
    for (const HostStaging& s : args.staging) {
        if (is_large(s) && (!back || s.copy_back)) spans.push_back({s.host, s.device.get(), s.bytes});
    }
    return spans;
}

}  // namespace

void stage_host_arrays(PackedArgs& args, CUstream stream, int device) {
    if (args.staging.empty()) return;
    for (HostStaging& s : args.staging) {
        s.device = take_staging_buffer(device, s.bytes);
        *args.slot(s.param) = s.device.get();
        args.set_extent(s.param, s.bytes);  // the array's bytes, not the pooled buffer's
    }
    // The copies go on the launch stream, so the launch is ordered after them whatever kind of
    // stream it is (a synchronous copy returns before its DMA is done, and a non-blocking stream
    // would not wait for it). From pageable memory the driver first waits for the stream, in a
    // wait nobody can interrupt: the stream is polled idle here first. Large arrays go through
    // the pinned pipeline (rt/staged_copy.hpp), all in one so their copies overlap.
    try {
        wait_without_gil([&] {
            rt::synchronize_stream(stream);
            const std::vector<rt::HostDeviceSpan> large = large_spans(args, false);
            const bool staged = !large.empty() && rt::copy_to_device_staged(large, stream);
            for (const HostStaging& s : args.staging) {
                if (s.bytes > 0 && !(staged && is_large(s))) {
                    rt::copy_to_device_async(s.device.get(), s.host, s.bytes, stream);
                }
            }
        });
    } catch (...) {
        abandon_staging(args);
        throw;
    }
}

void unstage_host_arrays(PackedArgs& args, CUstream stream, int device) {
    if (args.staging.empty()) return;
    try {
        wait_without_gil([&] {
            const std::vector<rt::HostDeviceSpan> large = large_spans(args, true);
            const bool staged = !large.empty() && rt::copy_to_host_staged(large, stream);
            rt::synchronize_stream(stream);  // also when nothing is copied back: the buffers go back to the pool
            for (const HostStaging& s : args.staging) {
                if (s.copy_back && s.bytes > 0 && !(staged && is_large(s))) {
                    rt::copy_to_host_after(s.host, s.device.get(), s.bytes, stream);
                }
            }
        });
    } catch (...) {
        abandon_staging(args);
        throw;
    }
    for (HostStaging& s : args.staging) give_back_staging_buffer(device, std::move(s.device));
}

std::vector<cpu::ArgumentExtent> argument_extents(const PackedArgs& args, std::size_t count) {
    std::vector<cpu::ArgumentExtent> out;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t bytes = args.extent(i);
        if (bytes != PackedArgs::no_extent) out.push_back({args.slot_value(i), bytes});
    }
    return out;
}

}  // namespace xcuda::magics

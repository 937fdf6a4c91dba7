#include "launch/known_arrays.hpp"
#include "launch/fast_attr.hpp"
#include "session/session.hpp"

#include <Python.h>

#include <array>
#include <string_view>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

struct FastNames {
    PyObject *data = interned("data"), *ptr = interned("ptr"), *dtype = interned("dtype"), *str = interned("str"),
             *size = interned("size"), *c_contiguous = interned("_c_contiguous"),
             *cai = interned("__cuda_array_interface__"),
             *export_version = interned("CUDA_ARRAY_INTERFACE_EXPORT_VERSION"), *is_cuda = interned("is_cuda"),
             *requires_grad = interned("requires_grad"), *layout = interned("layout"),
             *is_contiguous = interned("is_contiguous"), *data_ptr = interned("data_ptr");
};
const FastNames& fast_names() {
    static auto* n = new FastNames();
    return *n;
}

// An attribute of an already imported module (nullptr, no error, when either is missing):
// xcuda never imports CuPy or PyTorch itself.
PyObject* loaded_module_attr(const char* module, const char* name) {
    PyObject* m = PyDict_GetItemString(PyImport_GetModuleDict(), module);
    if (!m) return nullptr;
    PyObject* a = PyObject_GetAttrString(m, name);
    if (!a) PyErr_Clear();
    return a;
}

// Owned references to what CuPy's __cuda_array_interface__ itself consults, set up on the first
// CuPy array; `usable` false when any of it is missing (a CuPy this code does not know).
struct CupyState {
    bool usable = false;
    PyObject* util = nullptr;  // cupy._util: CUDA_ARRAY_INTERFACE_EXPORT_VERSION, read per call as CuPy does
    PyObject* get_current_stream = nullptr;  // cupy.cuda.stream.get_current_stream
    // The same module's C function that CuPy's own __cuda_array_interface__ calls, from the
    // module's Cython C-API table when it has the signature expected here: the Python call
    // and the Stream object's .ptr cost 150-300 ns a launch on the H200 machine.
    std::intptr_t (*current_stream_ptr)() = nullptr;
    std::uintptr_t default_stream = 1;  // what CuPy reports for stream 0: legacy (1) or per-thread (2)
};

// cupy.cuda.stream's exported `cdef intptr_t get_current_stream_ptr()`, or nullptr (no error
// set) when the module exports none with exactly that signature.
std::intptr_t (*cupy_current_stream_ptr())() {
    constexpr const char* signature = "intptr_t (void)";  // Cython names each capsule by its C signature
    PyObject* capi = loaded_module_attr("cupy.cuda.stream", "__pyx_capi__");
    if (!capi) return nullptr;
    PyObject* capsule = PyDict_Check(capi) ? PyDict_GetItemString(capi, "get_current_stream_ptr") : nullptr;
    void* f = capsule && PyCapsule_IsValid(capsule, signature) ? PyCapsule_GetPointer(capsule, signature) : nullptr;
    Py_DECREF(capi);
    if (!f) PyErr_Clear();
    return reinterpret_cast<std::intptr_t (*)()>(f);
}

// torch dtypes whose typestr torch's __cuda_array_interface__ gives (others go the generic way).
struct TorchState {
    bool usable = false;
    PyObject* strided = nullptr;
    std::vector<std::pair<PyObject*, ElemType>> dtypes;
};

}  // namespace

// Which launch path an array type takes. Outside the anonymous namespace: KnownArrayTypes, which
// Session holds, remembers it (GCC warns of a type from an anonymous namespace in a struct with
// linkage once this file is part of a unity batch).
enum class Family : std::uint8_t { generic, cupy, torch };

namespace {

CupyState& cupy_state() {
    static CupyState state;
    static bool tried = false;
    if (tried) return state;
    tried = true;
    PyObject* util = PyDict_GetItemString(PyImport_GetModuleDict(), "cupy._util");
    if (!util || !PyObject_HasAttr(util, fast_names().export_version)) return state;
    PyObject* get_stream = loaded_module_attr("cupy.cuda.stream", "get_current_stream");
    PyObject* default_ptr = loaded_module_attr("cupy_backends.cuda.stream", "get_default_stream_ptr");
    if (!util || !get_stream || !default_ptr) {
        Py_XDECREF(get_stream);
        Py_XDECREF(default_ptr);
        return state;
    }
    PyObject* d = PyObject_CallNoArgs(default_ptr);
    Py_DECREF(default_ptr);
    if (!d) {
        PyErr_Clear();
        Py_DECREF(get_stream);
        return state;
    }
    state.default_stream = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(d));
    Py_DECREF(d);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        Py_DECREF(get_stream);
        return state;
    }
    Py_INCREF(util);
    state.util = util;
    state.get_current_stream = get_stream;
    state.current_stream_ptr = cupy_current_stream_ptr();
    state.usable = true;
    return state;
}

TorchState& torch_state() {
    static TorchState state;
    static bool tried = false;
    if (tried) return state;
    tried = true;
    state.strided = loaded_module_attr("torch", "strided");
    if (!state.strided) return state;
    // As torch's _dtype_to_typestr has them.
    static const std::pair<const char*, const char*> known[] = {
        {"float32", "<f4"},     {"float64", "<f8"}, {"float16", "<f2"}, {"complex64", "<c8"},
        {"complex128", "<c16"}, {"uint8", "|u1"},   {"int8", "|i1"},    {"int16", "<i2"},
        {"int32", "<i4"},       {"int64", "<i8"},   {"bool", "|b1"}};
    for (const auto& [name, typestr] : known) {
        if (PyObject* dt = loaded_module_attr("torch", name))
            state.dtypes.emplace_back(dt, elem_type_from_typestr(typestr));
    }
    state.usable = !state.dtypes.empty();
    return state;
}

// A CuPy array type qualifies when it inherits every attribute read here unchanged from CuPy's
// base class (so a subclass overriding __cuda_array_interface__ keeps its own).
bool is_plain_cupy_type(PyTypeObject* type) {
    PyObject* base = loaded_module_attr("cupy._core.core", "_ndarray_base");
    if (!base) base = loaded_module_attr("cupy._core.core", "ndarray");  // CuPy before 13
    if (!base) return false;
    bool ok = PyType_Check(base) && PyType_IsSubtype(type, reinterpret_cast<PyTypeObject*>(base));
    const FastNames& n = fast_names();
    for (PyObject* name : {n.cai, n.data, n.dtype, n.size, n.c_contiguous}) {
        if (!ok) break;
        PyObject* mine = PyObject_GetAttr(reinterpret_cast<PyObject*>(type), name);
        PyObject* theirs = PyObject_GetAttr(base, name);
        ok = mine && theirs && mine == theirs;
        Py_XDECREF(mine);
        Py_XDECREF(theirs);
    }
    PyErr_Clear();
    Py_DECREF(base);
    return ok && cupy_state().usable;
}

bool is_torch_tensor_type(PyTypeObject* type) {
    PyObject* tensor = loaded_module_attr("torch", "Tensor");
    if (!tensor) return false;
    const bool exact = tensor == reinterpret_cast<PyObject*>(type);  // subclasses may override anything
    Py_DECREF(tensor);
    return exact && torch_state().usable;
}

}  // namespace

// What family_of and the CuPy dtype reader remember (held by the Session, made on first use).
// Few types and dtypes reach a launch, so a short array searched in order beats a map.
struct KnownArrayTypes {
    struct Entry {
        PyTypeObject* type;
        Family family;
    };
    std::array<Entry, 64> families{};  // each type held so its address is not reused
    std::size_t family_count = 0;
    std::array<std::pair<PyObject*, ElemType>, 32> dtypes{};  // numpy dtype objects CuPy arrays carry
    std::size_t dtype_count = 0;
};

namespace {

KnownArrayTypes& known_types() {
    auto& known = session().known_array_types;
    if (!known) known = std::make_shared<KnownArrayTypes>();
    return *known;
}

// Types seen on the launch path and what they are.
Family family_of(PyTypeObject* type) {
    KnownArrayTypes& known = known_types();
    for (std::size_t i = 0; i < known.family_count; ++i) {
        if (known.families[i].type == type) return known.families[i].family;
    }
    const Family f = is_torch_tensor_type(type) ? Family::torch
                     : is_plain_cupy_type(type) ? Family::cupy
                                                : Family::generic;
    if (known.family_count < known.families.size()) {
        Py_INCREF(type);
        known.families[known.family_count++] = {type, f};
    }
    return f;
}

// A new reference, or nullptr with no error left set.
PyObject* attr_or_null(PyObject* obj, PyObject* name) {
    PyObject* v = PyObject_GetAttr(obj, name);
    if (!v) PyErr_Clear();
    return v;
}

// CuPy's current stream handle as its own CAI reads it (0: its default stream): through the C
// function when it was found, else the Python function and the Stream's .ptr. False when it
// cannot be read.
bool cupy_current_stream(const CupyState& cupy, std::uintptr_t& stream) {
    if (cupy.current_stream_ptr) {
        const std::intptr_t p = cupy.current_stream_ptr();
        if (p == -1 && PyErr_Occurred()) {  // Cython 3 lets a cdef function raise
            PyErr_Clear();
            return false;
        }
        stream = static_cast<std::uintptr_t>(p);
        return true;
    }
    py::object s = py::reinterpret_steal<py::object>(PyObject_CallNoArgs(cupy.get_current_stream));
    if (!s) {
        PyErr_Clear();
        return false;
    }
    py::object sp = py::reinterpret_steal<py::object>(attr_or_null(s.ptr(), fast_names().ptr));
    if (!sp || !PyLong_Check(sp.ptr())) return false;
    stream = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(sp.ptr()));
    return true;
}

// CuPy's CAI export version and, for v3, its current stream (0 reported as CuPy's default
// stream), as its __cuda_array_interface__ would put them. False when they cannot be read.
bool read_cupy_launch(KnownArrayLaunch& launch) {
    const FastNames& n = fast_names();
    const CupyState& cupy = cupy_state();
    py::object version = py::reinterpret_steal<py::object>(attr_or_null(cupy.util, n.export_version));
    if (!version || !PyLong_Check(version.ptr())) return false;
    const long ver = PyLong_AsLong(version.ptr());
    if (ver != 2 && ver != 3) return false;  // CuPy's own CAI raises the ValueError that explains it
    std::uintptr_t stream = 0;
    if (ver == 3) {
        if (!cupy_current_stream(cupy, stream)) return false;
        if (stream == 0) stream = cupy.default_stream;
    }
    launch.cupy_read = true;
    launch.cupy_version = ver;
    launch.cupy_stream = stream;
    return true;
}

// A new reference, or nullptr with no error left set.
PyObject* read_or_null(const FastAttr& attr, PyObject* obj) {
    PyObject* v = attr(obj);
    if (!v) PyErr_Clear();
    return v;
}

// CuPy's attributes resolved for the array type last seen, and `ptr` for its MemoryPointer type.
struct CupyReaders {
    PyTypeObject* array_type = nullptr;
    FastAttr dtype, contiguous, size, data;
    PyTypeObject* pointer_type = nullptr;
    FastAttr ptr;
};

bool read_cupy(PyObject* obj, ArrayDescription& out, KnownArrayLaunch& launch) {
    const FastNames& n = fast_names();
    if (!launch.cupy_read && !read_cupy_launch(launch)) return false;
    static CupyReaders r;
    if (r.array_type != Py_TYPE(obj)) {
        PyTypeObject* t = Py_TYPE(obj);
        r.array_type = t;
        r.dtype = FastAttr(t, n.dtype);
        r.contiguous = FastAttr(t, n.c_contiguous);
        r.size = FastAttr(t, n.size);
        r.data = FastAttr(t, n.data);
    }
    py::object dtype = py::reinterpret_steal<py::object>(read_or_null(r.dtype, obj));
    py::object contiguous = py::reinterpret_steal<py::object>(read_or_null(r.contiguous, obj));
    py::object size = py::reinterpret_steal<py::object>(read_or_null(r.size, obj));
    py::object data = py::reinterpret_steal<py::object>(read_or_null(r.data, obj));
    if (!dtype || !contiguous || !size || !data) return false;
    // The dtype's typestr is what the CAI reports; numpy dtypes are few, so remember them.
    KnownArrayTypes& types = known_types();
    bool known = false;
    for (std::size_t i = 0; i < types.dtype_count && !known; ++i) {
        if (types.dtypes[i].first == dtype.ptr()) {
            out.dtype = types.dtypes[i].second;
            known = true;
        }
    }
    if (!known) {
        py::object str = py::reinterpret_steal<py::object>(attr_or_null(dtype.ptr(), n.str));
        if (!str || !PyUnicode_Check(str.ptr())) return false;
        Py_ssize_t len = 0;
        const char* ts = PyUnicode_AsUTF8AndSize(str.ptr(), &len);
        if (!ts) {
            PyErr_Clear();
            return false;
        }
        out.dtype = elem_type_from_typestr(std::string_view(ts, static_cast<std::size_t>(len)));
        if (types.dtype_count < types.dtypes.size()) {
            types.dtypes[types.dtype_count++] = {dtype.inc_ref().ptr(), out.dtype};
        }
    }
    const Py_ssize_t elements = PyLong_AsSsize_t(size.ptr());
    if (elements == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    std::uintptr_t ptr = 0;
    if (elements > 0) {
        if (r.pointer_type != Py_TYPE(data.ptr())) {
            r.pointer_type = Py_TYPE(data.ptr());
            r.ptr = FastAttr(r.pointer_type, n.ptr);
        }
        py::object p = py::reinterpret_steal<py::object>(read_or_null(r.ptr, data.ptr()));
        if (!p || !PyLong_Check(p.ptr())) return false;
        ptr = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(p.ptr()));
    }
    const std::uintptr_t stream = launch.cupy_stream;
    out.ptr = ptr;
    out.contiguous = contiguous.ptr() == Py_True;
    out.readonly = false;
    out.device = -1;  // as from the CAI, which names no device
    out.sync_stream = launch.cupy_version == 3;
    // 1 is the legacy default stream, which xcuda names nullptr (as read_cuda_array_interface).
    out.stream = stream == 1 ? nullptr : reinterpret_cast<CUstream>(stream);
    return true;
}

// torch.Tensor's attributes and methods, resolved once (the fast path takes the exact type only).
struct TorchReaders {
    FastAttr is_cuda, requires_grad, layout, dtype;
    FastMethod is_contiguous, data_ptr;
};

bool read_torch(PyObject* obj, ArrayDescription& out) {
    const FastNames& n = fast_names();
    const TorchState& torch = torch_state();
    static const TorchReaders r{FastAttr(Py_TYPE(obj), n.is_cuda),         FastAttr(Py_TYPE(obj), n.requires_grad),
                                FastAttr(Py_TYPE(obj), n.layout),          FastAttr(Py_TYPE(obj), n.dtype),
                                FastMethod(Py_TYPE(obj), n.is_contiguous), FastMethod(Py_TYPE(obj), n.data_ptr)};
    // CPU tensors, tensors requiring grad and sparse ones: the generic path gives torch's own
    // refusal (or DLPack's) and the message that goes with it.
    py::object is_cuda = py::reinterpret_steal<py::object>(read_or_null(r.is_cuda, obj));
    if (!is_cuda || is_cuda.ptr() != Py_True) return false;
    py::object grad = py::reinterpret_steal<py::object>(read_or_null(r.requires_grad, obj));
    if (!grad || grad.ptr() != Py_False) return false;
    py::object layout = py::reinterpret_steal<py::object>(read_or_null(r.layout, obj));
    if (!layout || layout.ptr() != torch.strided) return false;
    py::object dtype = py::reinterpret_steal<py::object>(read_or_null(r.dtype, obj));
    if (!dtype) return false;
    bool known = false;
    for (const auto& [dt, elem] : torch.dtypes) {
        if (dt == dtype.ptr()) {
            out.dtype = elem;
            known = true;
            break;
        }
    }
    if (!known) return false;  // e.g. bfloat16: torch's CAI refuses it, DLPack takes it
    py::object contiguous = py::reinterpret_steal<py::object>(r.is_contiguous(obj));
    py::object ptr = py::reinterpret_steal<py::object>(r.data_ptr(obj));
    if (!contiguous || !ptr || !PyLong_Check(ptr.ptr())) {
        PyErr_Clear();
        return false;
    }
    out.ptr = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(ptr.ptr()));
    out.contiguous = contiguous.ptr() == Py_True;
    out.readonly = false;
    out.device = -1;          // torch's CAI (v2) names no device
    out.sync_stream = false;  // and no stream
    return true;
}

}  // namespace

bool read_known_array(PyObject* obj, ArrayDescription& out, KnownArrayLaunch& launch) {
    switch (family_of(Py_TYPE(obj))) {
        case Family::cupy: return read_cupy(obj, out, launch);
        case Family::torch: return read_torch(obj, out);
        case Family::generic: break;
    }
    return false;
}

}  // namespace xcuda::magics

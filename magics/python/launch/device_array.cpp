#include "launch/device_array.hpp"
#include "launch/array_protocols.hpp"
#include "launch/dlpack_abi.hpp"
#include "launch/launch_config.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"

#include <xcuda/rt/stream.hpp>

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

PyTypeObject* array_type = nullptr;

std::vector<std::int64_t> shape_from(py::handle shape) {
    std::vector<std::int64_t> out;
    if (PyLong_Check(shape.ptr())) {
        out.push_back(shape.cast<std::int64_t>());
    } else {
        for (py::handle d : shape) out.push_back(d.cast<std::int64_t>());
    }
    for (auto d : out) {
        if (d < 0) raise(PyExc_ValueError, "negative dimension " + std::to_string(d) + " in shape");
    }
    return out;
}

py::module_ numpy() { return py::module_::import("numpy"); }

ElemType dtype_from(py::handle dtype) {
    py::object dt = numpy().attr("dtype")(dtype);
    ElemType t = elem_type_from_typestr(dt.attr("str").cast<std::string>());
    if (t.kind == 'V') {
        raise(PyExc_TypeError, "dtype " + py::str(dt).cast<std::string>() +
                                   " is not supported on the device: use a bool, integer, float or complex dtype");
    }
    return t;
}

// numpy's dtype objects for the few element types, made once: read-backs compare against them.
py::object numpy_dtype(const ElemType& t) {
    static auto* made = new std::vector<std::pair<ElemType, py::object>>();
    for (const auto& [type, dtype] : *made) {
        if (type == t) return dtype;
    }
    py::object dtype = numpy().attr("dtype")(elem_type_typestr(t));
    made->emplace_back(t, dtype);
    return dtype;
}

py::tuple shape_tuple(const std::vector<std::int64_t>& shape) {
    py::tuple t(shape.size());
    for (std::size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
    return t;
}

std::shared_ptr<DeviceArray> to_device(py::handle source) {
    py::object arr = numpy().attr("ascontiguousarray")(source);
    ArrayDescription d;
    read_array_interface(arr, d, "to_device()");
    if (d.dtype.kind == 'V') {
        raise(PyExc_TypeError, "to_device(): dtype " + py::str(arr.attr("dtype")).cast<std::string>() +
                                   " is not supported on the device");
    }
    auto out = std::make_shared<DeviceArray>(d.shape, d.dtype);
    if (out->nbytes() > 0) {
        const void* src = reinterpret_cast<const void*>(d.ptr);
        const CUdeviceptr dst = out->ptr();
        const std::size_t bytes = out->nbytes();
        wait_without_gil([&] { rt::copy_to_device(dst, src, bytes); });
    }
    return out;
}

// Where get() writes: `out` or a new numpy array, held through the buffer protocol for the copy
// (a pointer, shape and writability without building an __array_interface__ dict per call).
class HostDestination {
public:
    HostDestination(const DeviceArray& a, py::handle out) {
        if (out.is_none()) {
            array_ = numpy().attr("empty")(shape_tuple(a.shape()), numpy_dtype(a.dtype()));
        } else {
            if (!is_numpy_array(out)) {
                raise(PyExc_TypeError,
                      std::string("get(out=...) needs a numpy array, got ") + Py_TYPE(out.ptr())->tp_name);
            }
            array_ = py::reinterpret_borrow<py::object>(out);
            check_matches(a);
        }
        if (PyObject_GetBuffer(array_.ptr(), &view_, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
            PyErr_Clear();
            raise(PyExc_ValueError, "get(out=...) needs a writable C-contiguous numpy array");
        }
    }
    ~HostDestination() { PyBuffer_Release(&view_); }
    HostDestination(const HostDestination&) = delete;
    HostDestination& operator=(const HostDestination&) = delete;

    void* data() const { return view_.buf; }
    const py::object& array() const { return array_; }

private:
    void check_matches(const DeviceArray& a) const {
        py::object dtype = array_.attr("dtype");
        const py::object want = numpy_dtype(a.dtype());
        bool same = dtype.is(want) || dtype.equal(want);
        if (same) {
            const py::tuple shape = array_.attr("shape");
            same = shape.size() == a.shape().size();
            for (std::size_t i = 0; same && i < a.shape().size(); ++i)
                same = shape[i].cast<std::int64_t>() == a.shape()[i];
        }
        if (!same) {
            const std::string want_shape = py::str(shape_tuple(a.shape())).cast<std::string>();
            raise(PyExc_ValueError, "get(out=...) got an array of shape " +
                                        py::str(array_.attr("shape")).cast<std::string>() + " and dtype " +
                                        py::str(dtype).cast<std::string>() + "; this DeviceArray has shape " +
                                        want_shape + " and dtype " + elem_type_name(a.dtype()) + ": pass np.empty(" +
                                        want_shape + ", np." + elem_type_name(a.dtype()) + ")");
        }
    }

    py::object array_;
    Py_buffer view_{};
};

py::object get(const DeviceArray& a, py::handle stream, py::handle out) {
    HostDestination dst(a, out);
    if (a.nbytes() > 0) {
        const bool after_stream = !stream.is_none();
        const CUstream s = after_stream ? parse_stream(stream) : nullptr;
        activate(a.device());
        void* host = dst.data();
        const CUdeviceptr src = a.ptr();
        const std::size_t bytes = a.nbytes();
        wait_without_gil([&] {
            if (after_stream)
                rt::copy_to_host_after(host, src, bytes, s);
            else
                rt::copy_to_host(host, src, bytes);
        });
        activate();
    }
    return dst.array();
}

// Host data into the array: numpy's broadcasting and a same-kind cast (a Python list of floats
// fills a float32 array; floats do not silently become ints).
void set(const DeviceArray& a, py::handle source) {
    a.mark_contents_defined();
    py::module_ np = numpy();
    const py::object dtype = numpy_dtype(a.dtype());
    py::object src = np.attr("asarray")(source);
    if (!np.attr("can_cast")(src.attr("dtype"), dtype, "same_kind").cast<bool>()) {
        raise(PyExc_TypeError, "set(): cannot store " + py::str(src.attr("dtype")).cast<std::string>() +
                                   " values in a " + elem_type_name(a.dtype()) + " DeviceArray; pass " +
                                   elem_type_name(a.dtype()) + " data (x.astype(np." + elem_type_name(a.dtype()) +
                                   "))");
    }
    const py::tuple shape = shape_tuple(a.shape());
    try {
        src = np.attr("broadcast_to")(src.attr("astype")(dtype, py::arg("copy") = false), shape);
    } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_ValueError)) throw;
        raise(PyExc_ValueError, "set(): an array of shape " + py::str(src.attr("shape")).cast<std::string>() +
                                    " cannot fill this DeviceArray of shape " +
                                    py::str(py::handle(shape)).cast<std::string>() +
                                    "; pass that shape (or one that broadcasts to it, such as a scalar)");
    }
    src = np.attr("ascontiguousarray")(src);
    if (a.nbytes() == 0) return;
    ArrayDescription d;
    read_array_interface(src, d, "set()");
    activate(a.device());
    const void* host = reinterpret_cast<const void*>(d.ptr);
    const CUdeviceptr dst = a.ptr();
    const std::size_t bytes = a.nbytes();
    wait_without_gil([&] { rt::copy_to_device(dst, host, bytes); });
    activate();
}

// An array of the CPU device lives in host memory: offering it as CUDA memory would have CuPy or
// PyTorch hand its host address to a GPU.
void refuse_cuda_export(const DeviceArray& a, const char* what) {
    if (a.device() != rt::cpu_device_ordinal) return;
    raise(PyExc_AttributeError, std::string(what) +
                                    ": this array is on the CPU device, whose memory is no GPU's; .get() copies it "
                                    "to numpy (np.from_dlpack(array) views it without a copy)");
}

py::dict cuda_array_interface(const DeviceArray& a) {
    refuse_cuda_export(a, "__cuda_array_interface__");
    a.mark_contents_defined();  // whoever takes the address may write
    py::dict d;
    d["shape"] = shape_tuple(a.shape());
    d["typestr"] = elem_type_typestr(a.dtype());
    d["data"] = py::make_tuple(py::int_(a.ptr()), false);
    d["strides"] = py::none();
    d["version"] = 3;
    // xcuda's own copies and default launches run on the legacy default stream.
    d["stream"] = 1;
    return d;
}

// The DLPack export: the managed tensor keeps a reference to the DeviceArray.
struct ExportContext {
    py::object array;
    std::vector<std::int64_t> shape;
};

void delete_managed(dlpack::ManagedTensor* self) {
    PyGILState_STATE gil = PyGILState_Ensure();
    delete static_cast<ExportContext*>(self->manager_ctx);
    delete self;
    PyGILState_Release(gil);
}

void capsule_destructor(PyObject* capsule) {
    // Consumed capsules are renamed by their consumer, who then owns the tensor.
    if (!PyCapsule_IsValid(capsule, dlpack::capsule_name)) return;
    auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
    if (managed && managed->deleter) managed->deleter(managed);
}

dlpack::DataType dlpack_dtype(const ElemType& t) {
    const auto bits = static_cast<std::uint8_t>(t.bytes * 8);
    switch (t.kind) {
        case 'i': return {dlpack::int_, bits, 1};
        case 'u': return {dlpack::uint_, bits, 1};
        case 'f': return {dlpack::float_, bits, 1};
        case 'B': return {dlpack::bfloat, bits, 1};
        case 'c': return {dlpack::complex, bits, 1};
        case 'b': return {dlpack::bool_, bits, 1};
        default: return {dlpack::opaque, bits, 1};
    }
}

py::object to_dlpack(py::object self, py::object stream, py::object /*max_version*/, py::object /*dl_device*/,
                     py::object /*copy*/) {
    const auto& a = self.cast<const DeviceArray&>();
    a.mark_contents_defined();  // whoever takes the address may write
    // The consumer will use the array on `stream`; our work is on the legacy default stream.
    if (!stream.is_none()) {
        const auto s = stream.cast<std::intptr_t>();
        if (s != 1 && s != -1) {
            activate(a.device());
            wait_without_gil([] { rt::synchronize_stream(nullptr); });
        }
    }
    auto* ctx = new ExportContext{self, a.shape()};
    auto* managed = new dlpack::ManagedTensor{};
    managed->dl_tensor.data = reinterpret_cast<void*>(a.ptr());
    // The CPU device's memory is host memory, which numpy (and any DLPack consumer) reads as such.
    managed->dl_tensor.device = a.device() == rt::cpu_device_ordinal ? dlpack::Device{dlpack::cpu, 0}
                                                                     : dlpack::Device{dlpack::cuda, a.device()};
    managed->dl_tensor.ndim = static_cast<std::int32_t>(ctx->shape.size());
    managed->dl_tensor.dtype = dlpack_dtype(a.dtype());
    managed->dl_tensor.shape = ctx->shape.data();
    managed->dl_tensor.strides = nullptr;
    managed->dl_tensor.byte_offset = 0;
    managed->manager_ctx = ctx;
    managed->deleter = delete_managed;
    PyObject* capsule = PyCapsule_New(managed, dlpack::capsule_name, capsule_destructor);
    if (!capsule) {
        delete_managed(managed);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(capsule);
}

std::shared_ptr<DeviceArray> from_dlpack(py::handle obj) {
    ArrayDescription d;
    if (!read_dlpack(obj, d, nullptr, "from_dlpack()")) {
        raise(PyExc_TypeError, std::string("from_dlpack() needs an object with __dlpack__ (a PyTorch tensor, a CuPy "
                                           "array, ...), got ") +
                                   Py_TYPE(obj.ptr())->tp_name);
    }
    if (!d.contiguous) {
        raise(PyExc_ValueError,
              "from_dlpack(): the tensor is not C-contiguous; pass x.contiguous() (PyTorch) or "
              "cupy.ascontiguousarray(x)");
    }
    return std::make_shared<DeviceArray>(d.ptr, d.shape, d.dtype, d.device < 0 ? current_device() : d.device,
                                         std::move(d.keepalive));
}

// Plain string building, no std::ostream: on the GPU machine (GCC 13 toolchain) the module's
// ostream inserted an integer through a locale facet of another libstdc++ and crashed (SIGSEGV
// in num_put, seen with cuda-gdb on the H200).
std::string repr(const DeviceArray& a) {
    std::string s = "xcuda.DeviceArray(shape=(";
    for (std::size_t i = 0; i < a.shape().size(); ++i) s += (i ? ", " : "") + std::to_string(a.shape()[i]);
    if (a.shape().size() == 1) s += ",";
    s += "), dtype=" + elem_type_name(a.dtype()) +
         ", device=" + (a.device() == rt::cpu_device_ordinal ? std::string("'cpu'") : std::to_string(a.device())) + ")";
    return s;
}

}  // namespace

DeviceArray::DeviceArray(std::vector<std::int64_t> shape, ElemType dtype)
    : shape_(std::move(shape)), dtype_(dtype), device_(current_device()) {
    activate();
    buffer_ = std::make_unique<rt::DeviceBuffer>(nbytes());
    ptr_ = buffer_->get();
}

DeviceArray::DeviceArray(std::uintptr_t ptr, std::vector<std::int64_t> shape, ElemType dtype, int device,
                         py::object owner)
    : owner_(std::move(owner)), ptr_(ptr), shape_(std::move(shape)), dtype_(dtype), device_(device) {}

std::int64_t DeviceArray::size() const {
    std::int64_t n = 1;
    for (auto d : shape_) n *= d;
    return n;
}

PyTypeObject* device_array_type() { return array_type; }

const DeviceArray& device_array_of(py::handle obj) {
    static const py::detail::type_info* info = py::detail::get_type_info(typeid(DeviceArray));
    auto* inst = reinterpret_cast<py::detail::instance*>(obj.ptr());
    const DeviceArray* value = inst->get_value_and_holder(info).value_ptr<DeviceArray>();
    if (!value) raise(PyExc_ValueError, "an uninitialised xcuda.DeviceArray was passed");
    return *value;
}

void define_device_array(py::module_& m) {
    auto cls = py::class_<DeviceArray, std::shared_ptr<DeviceArray>>(
        m, "DeviceArray",
        "A C-contiguous array in device memory (CAI v3 and DLPack both ways). Pickles by value: copied to the "
        "host, and when loaded to the receiving process's selected device.");
    cls.def_static("to_device", &to_device, py::arg("array"), "Copies a host array (numpy) to the selected device.")
        .def_static(
            "empty",
            [](py::handle shape, py::handle dtype) {
                auto a = std::make_shared<DeviceArray>(shape_from(shape), dtype_from(dtype));
                a->mark_contents_undefined();
                return a;
            },
            py::arg("shape"), py::arg("dtype") = "float32",
            "A new array of `shape` (an int or a tuple) and `dtype` on the selected device, not initialised.")
        .def_static(
            "zeros",
            [](py::handle shape, py::handle dtype) {
                auto a = std::make_shared<DeviceArray>(shape_from(shape), dtype_from(dtype));
                if (a->nbytes() > 0) rt::memset_d8(a->ptr(), 0, a->nbytes());
                return a;
            },
            py::arg("shape"), py::arg("dtype") = "float32",
            "A new array of `shape` (an int or a tuple) and `dtype` on the selected device, filled with zeros.")
        .def_static("from_dlpack", &from_dlpack, py::arg("tensor"), "Zero-copy view of a DLPack device tensor.")
        .def("get", &get, py::arg("stream") = py::none(), py::arg("out") = py::none(),
             "Copies the array to the host: into `out` (a numpy array of the same shape and dtype) or a new numpy "
             "array. Without `stream` the copy follows the legacy default stream (and every blocking stream); with "
             "one (an xcuda.Stream, a CuPy/PyTorch stream or a handle) it follows that stream's work.")
        .def("set", &set, py::arg("array"),
             "Copies host data (a numpy array, a list or a scalar, broadcast to this shape and cast within its kind) "
             "into the array, after the legacy default stream's work.")
        .def_property_readonly("shape", [](const DeviceArray& a) { return shape_tuple(a.shape()); })
        .def_property_readonly("dtype", [](const DeviceArray& a) { return numpy_dtype(a.dtype()); })
        .def_property_readonly("size", &DeviceArray::size)
        .def_property_readonly("nbytes", &DeviceArray::nbytes)
        .def_property_readonly("ndim", [](const DeviceArray& a) { return a.shape().size(); })
        .def_property_readonly(
            "device",
            [](const DeviceArray& a) -> py::object {
                if (a.device() == rt::cpu_device_ordinal) return py::str("cpu");
                return py::int_(a.device());
            },
            "The device the array lives on: a GPU's index, or 'cpu'.")
        .def_property_readonly("ptr",
                               [](const DeviceArray& a) {
                                   a.mark_contents_defined();  // whoever takes the address may write
                                   return a.ptr();
                               })
        .def_property_readonly("_contents_defined", &DeviceArray::contents_defined,
                               "False for an array from empty() nothing may have written yet (%%cuda_check's "
                               "initcheck gives it to the checked launch uninitialised).")
        .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
        .def("__dlpack__", &to_dlpack, py::arg("stream") = py::none(), py::kw_only(),
             py::arg("max_version") = py::none(), py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
        .def("__dlpack_device__",
             [](const DeviceArray& a) {
                 if (a.device() == rt::cpu_device_ordinal) return py::make_tuple(int(dlpack::cpu), 0);
                 return py::make_tuple(int(dlpack::cuda), a.device());
             })
        .def("__len__",
             [](const DeviceArray& a) {
                 if (a.shape().empty()) raise(PyExc_TypeError, "len() of a 0-d DeviceArray");
                 return a.shape()[0];
             })
        .def("__repr__", &repr);
    array_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    m.attr("to_device") = cls.attr("to_device");
    m.attr("empty") = cls.attr("empty");
    m.attr("zeros") = cls.attr("zeros");
    m.attr("from_dlpack") = cls.attr("from_dlpack");
}

}  // namespace xcuda::magics

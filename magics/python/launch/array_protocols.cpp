#include "launch/array_protocols.hpp"
#include "launch/dlpack_abi.hpp"
#include "session/device_state.hpp"
#include "session/errors.hpp"

#include <xcuda/cpu/cpu_device.hpp>
#include <xcuda/rt/device.hpp>

#include <Python.h>

#include <string_view>
#include <utility>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

bool c_contiguous(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& byte_strides,
                  std::int64_t itemsize) {
    std::int64_t expected = itemsize;
    for (std::size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 0) return true;
        if (shape[i] != 1 && byte_strides[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

std::vector<std::int64_t> int_tuple(py::handle t, const std::string& what, const char* field) {
    std::vector<std::int64_t> out;
    if (!PyTuple_Check(t.ptr())) raise(PyExc_TypeError, what + ": the array interface's " + field + " is not a tuple");
    const Py_ssize_t n = PyTuple_GET_SIZE(t.ptr());
    out.reserve(static_cast<std::size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
        long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(t.ptr(), i));
        if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
        out.push_back(v);
    }
    return out;
}

// dict[key] (borrowed), or nullptr where it is missing. PyDict_GetItem would also save and restore
// the error indicator on every call (callgrind: ~15 instructions each, six calls per array) to
// swallow errors that a str key cannot raise; this raises them instead.
PyObject* dict_item(py::handle dict, const py::str& key) {
    PyObject* item = PyDict_GetItemWithError(dict.ptr(), key.ptr());
    if (!item && PyErr_Occurred()) throw py::error_already_set();
    return item;
}

// The common part of __cuda_array_interface__ and __array_interface__.
void read_interface_dict(py::handle dict, ArrayDescription& out, const std::string& what) {
    const ProtocolNames& n = protocol_names();
    if (!PyDict_Check(dict.ptr())) raise(PyExc_TypeError, what + ": the array interface is not a dict");
    PyObject* data = dict_item(dict, n.data);
    PyObject* typestr = dict_item(dict, n.typestr);
    PyObject* shape = dict_item(dict, n.shape);
    if (!data || !typestr || !shape || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        raise(PyExc_TypeError, what + ": the array interface lacks data=(ptr, readonly), typestr or shape");
    }
    out.ptr = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(PyTuple_GET_ITEM(data, 0)));
    if (PyErr_Occurred()) throw py::error_already_set();
    out.readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1)) == 1;
    Py_ssize_t len = 0;
    const char* ts = PyUnicode_AsUTF8AndSize(typestr, &len);
    if (!ts) throw py::error_already_set();
    out.dtype = elem_type_from_typestr(std::string_view(ts, static_cast<std::size_t>(len)));
    out.shape = int_tuple(shape, what, "shape");
    PyObject* mask = dict_item(dict, n.mask);
    if (mask && mask != Py_None) raise(PyExc_TypeError, what + ": masked arrays cannot be passed to a kernel");
    PyObject* strides = dict_item(dict, n.strides);
    out.contiguous = true;
    if (strides && strides != Py_None) {
        std::vector<std::int64_t> s = int_tuple(strides, what, "strides");
        out.contiguous = s.size() == out.shape.size() && c_contiguous(out.shape, s, out.dtype.bytes);
    }
}

ElemType elem_type_from_dlpack(const dlpack::DataType& t) {
    if (t.lanes != 1) return {};
    const int bytes = t.bits / 8;
    switch (t.code) {
        case dlpack::int_: return {'i', bytes};
        case dlpack::uint_: return {'u', bytes};
        case dlpack::float_: return {'f', bytes};
        case dlpack::bfloat: return {'B', bytes};
        case dlpack::complex: return {'c', bytes};
        case dlpack::bool_: return {'b', bytes};
        default: return {'V', bytes};
    }
}

}  // namespace

PyObject* interned(const char* s) {
    PyObject* o = PyUnicode_InternFromString(s);
    if (!o) throw py::error_already_set();
    return o;  // kept for the life of the process, like every interned name
}

std::int64_t ArrayDescription::size() const {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
}

// Interned, as the keys of a dict that Python code or Cython builds are: a lookup then matches
// the key by identity, without comparing the text (callgrind: ~1,000 fewer instructions per launch
// with three CAI arguments).
namespace {
py::str interned_name(const char* s) { return py::reinterpret_steal<py::str>(interned(s)); }
}  // namespace

const ProtocolNames& protocol_names() {
    static auto* names = new ProtocolNames{interned_name("__cuda_array_interface__"),
                                           interned_name("__array_interface__"),
                                           interned_name("__dlpack__"),
                                           interned_name("__dlpack_device__"),
                                           interned_name("data"),
                                           interned_name("typestr"),
                                           interned_name("shape"),
                                           interned_name("strides"),
                                           interned_name("stream"),
                                           interned_name("mask"),
                                           interned_name("version")};
    return *names;
}

bool read_cuda_array_interface(py::handle obj, ArrayDescription& out, const std::string& what) {
    PyObject* cai = PyObject_GetAttr(obj.ptr(), protocol_names().cuda_array_interface.ptr());
    if (!cai) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
        PyErr_Clear();
        return false;
    }
    py::object dict = py::reinterpret_steal<py::object>(cai);
    read_interface_dict(dict, out, what);
    PyObject* stream = dict_item(dict, protocol_names().stream);
    out.sync_stream = stream && stream != Py_None;
    if (out.sync_stream) {
        const auto handle = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLongMask(stream));
        if (PyErr_Occurred()) throw py::error_already_set();
        // 1 is the legacy default stream, which xcuda names nullptr.
        out.stream = handle == 1 ? nullptr : reinterpret_cast<CUstream>(handle);
    }
    return true;
}

bool read_array_interface(py::handle obj, ArrayDescription& out, const std::string& what) {
    PyObject* ai = PyObject_GetAttr(obj.ptr(), protocol_names().array_interface.ptr());
    if (!ai) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
        PyErr_Clear();
        return false;
    }
    read_interface_dict(py::reinterpret_steal<py::object>(ai), out, what);
    return true;
}

namespace {

// On the CPU device, device memory is host memory of its arena: a host tensor that views it (what
// torch.from_dlpack gives of an xcuda.DeviceArray there, or a slice of that) is device memory too.
bool cpu_device_tensor(int type) { return type == dlpack::cpu && current_device() == rt::cpu_device_ordinal; }

}  // namespace

bool read_dlpack(py::handle obj, ArrayDescription& out, CUstream consumer_stream, const std::string& what) {
    const ProtocolNames& n = protocol_names();
    if (!PyObject_HasAttr(obj.ptr(), n.dlpack.ptr())) return false;
    bool host = false;
    if (PyObject_HasAttr(obj.ptr(), n.dlpack_device.ptr())) {
        py::tuple dev = obj.attr(n.dlpack_device)();
        const int type = dev[0].cast<int>();
        host = cpu_device_tensor(type);
        if (type != dlpack::cuda && type != dlpack::cuda_managed && !host) {
            raise(PyExc_TypeError, what + " got a tensor in host memory (DLPack device type " + std::to_string(type) +
                                       "): move it to the GPU first (e.g. x.cuda()) or pass a numpy array");
        }
    }
    // The DLPack stream convention: 1 is the legacy default stream (our nullptr); host tensors take none.
    const std::uintptr_t s = reinterpret_cast<std::uintptr_t>(consumer_stream);
    py::object capsule = host ? obj.attr(n.dlpack)() : obj.attr(n.dlpack)(py::arg("stream") = s == 0 ? 1 : s);
    auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::capsule_name));
    if (!managed) throw py::error_already_set();
    const dlpack::Tensor& t = managed->dl_tensor;
    if (cpu_device_tensor(t.device.device_type)) {
        const auto data = reinterpret_cast<std::uint64_t>(t.data) + t.byte_offset;
        if (!cpu::is_device_memory(data)) {
            raise(PyExc_TypeError, what +
                                       " got a tensor in host memory that is not the CPU device's memory: pass a "
                                       "numpy array (it is copied in), or an xcuda.DeviceArray");
        }
    } else if (t.device.device_type != dlpack::cuda && t.device.device_type != dlpack::cuda_managed) {
        raise(PyExc_TypeError, what + " got a DLPack tensor that is not in CUDA device memory (device type " +
                                   std::to_string(t.device.device_type) + ")");
    }
    out.ptr = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
    out.dtype = elem_type_from_dlpack(t.dtype);
    out.shape.assign(t.shape, t.shape + t.ndim);
    out.contiguous = true;
    if (t.strides) {
        std::vector<std::int64_t> bytes(t.strides, t.strides + t.ndim);
        for (auto& b : bytes) b *= out.dtype.bytes;
        out.contiguous = c_contiguous(out.shape, bytes, out.dtype.bytes);
    }
    out.device = cpu_device_tensor(t.device.device_type) ? rt::cpu_device_ordinal : t.device.device_id;
    out.readonly = false;
    // Left unconsumed: the capsule's destructor gives the tensor back to its producer, and the
    // capsule lives as long as the launch (or the DeviceArray) needs the memory.
    out.keepalive = std::move(capsule);
    return true;
}

bool is_numpy_array(py::handle obj) {
    static PyTypeObject* ndarray = nullptr;
    if (!ndarray) {
        PyObject* numpy = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
        if (!numpy) return false;
        PyObject* type = PyObject_GetAttrString(numpy, "ndarray");
        if (!type) {
            PyErr_Clear();
            return false;
        }
        ndarray = reinterpret_cast<PyTypeObject*>(type);  // kept: numpy is never unloaded
    }
    return PyObject_TypeCheck(obj.ptr(), ndarray);
}

}  // namespace xcuda::magics

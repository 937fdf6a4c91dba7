#pragma once
// Reading arrays that other libraries hand over: __cuda_array_interface__ (v2/v3) and
// __dlpack__/__dlpack_device__ for device memory, __array_interface__ for host (numpy) arrays.
// Zero-copy: only pointers, shapes and types are read.
#include "elem_type.hpp"

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace xcuda::magics {

struct ArrayDescription {
    std::uintptr_t ptr = 0;
    ElemType dtype;
    std::vector<std::int64_t> shape;
    bool contiguous = true;       // C order (dimensions of extent 1 and empty arrays ignored)
    bool readonly = false;
    int device = -1;              // DLPack device id; -1 when the protocol does not say (CAI)
    bool sync_stream = false;     // CAI v3: the consumer must order its work after `stream`
    CUstream stream = nullptr;    // nullptr: legacy default stream; 2: per-thread default; else a handle
    pybind11::object keepalive;   // DLPack: the capsule owning the memory while it is used

    std::int64_t size() const;
};

// Interned attribute names, created once per interpreter.
struct ProtocolNames {
    pybind11::str cuda_array_interface, array_interface, dlpack, dlpack_device, data, typestr, shape, strides,
        stream, mask, version;
};
const ProtocolNames& protocol_names();

// The CAI of `obj`, if it has one. Returns false when it has none; raises TypeError (naming
// `what`) for a CAI that cannot be used (masked, malformed); a property that raises (PyTorch
// for a tensor requiring grad) propagates.
bool read_cuda_array_interface(pybind11::handle obj, ArrayDescription& out, const std::string& what);

// DLPack import of a device tensor. Returns false when `obj` has no __dlpack__. `consumer_stream`
// is passed to the producer as the stream our work will run on, so it orders its work first.
bool read_dlpack(pybind11::handle obj, ArrayDescription& out, CUstream consumer_stream, const std::string& what);

// numpy's (or any host array's) __array_interface__.
bool read_array_interface(pybind11::handle obj, ArrayDescription& out, const std::string& what);

// The launch path's shortcut for array types whose attributes are known: cupy.ndarray (and
// subclasses that override none of what is read here) and torch.Tensor (exactly). Reads the
// pointer, dtype and C-contiguity straight from the object instead of building its
// __cuda_array_interface__ dict, with the same outcome as that dict: CuPy's stream
// (CAI v3: its current stream, or none under CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION=2),
// no stream and no device for torch (its CAI is v2). Returns false, leaving nothing raised,
// whenever the generic protocols must decide (other types, a CPU tensor, one that requires
// grad, a dtype torch's CAI refuses, any attribute that is not what it should be); the
// generic path then gives the usual result or error. The type is classified once and
// remembered. Never imports CuPy or PyTorch: it only reads modules the object's type came from.
// What read_known_array reads once per launch rather than once per argument: CuPy's CAI
// version setting and current stream cannot change between the arguments of one call.
struct KnownArrayLaunch {
    bool cupy_read = false;
    long cupy_version = 0;
    std::uintptr_t cupy_stream = 0;
};
bool read_known_array(PyObject* obj, ArrayDescription& out, KnownArrayLaunch& launch);

// True for numpy.ndarray (and subclasses) without importing numpy when nobody else has.
bool is_numpy_array(pybind11::handle obj);

}  // namespace xcuda::magics

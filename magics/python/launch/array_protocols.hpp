#pragma once
// Reading arrays that other libraries hand over: __cuda_array_interface__ (v2/v3) and
// __dlpack__/__dlpack_device__ for device memory, __array_interface__ for host (numpy) arrays.
// Zero-copy: only pointers, shapes and types are read.
#include "launch/elem_type.hpp"

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <cstdint>
#include <vector>

namespace xcuda::magics {

struct ArrayDescription {
    std::uintptr_t ptr = 0;
    ElemType dtype;
    std::vector<std::int64_t> shape;
    bool contiguous = true;  // C order (dimensions of extent 1 and empty arrays ignored)
    bool readonly = false;
    int device = -1;             // DLPack device id; -1 when the protocol does not say (CAI)
    bool sync_stream = false;    // CAI v3: the consumer must order its work after `stream`
    CUstream stream = nullptr;   // nullptr: legacy default stream; 2: per-thread default; else a handle
    pybind11::object keepalive;  // DLPack: the capsule owning the memory while it is used

    std::int64_t size() const;
};

// Interned attribute names, created once per interpreter.
struct ProtocolNames {
    pybind11::str cuda_array_interface, array_interface, dlpack, dlpack_device, data, typestr, shape, strides, stream,
        mask, version;
};
const ProtocolNames& protocol_names();

// The interned str `s`: a new reference, kept for the life of the process like every interned name.
PyObject* interned(const char* s);

// The CAI of `obj`, if it has one. Returns false when it has none; raises TypeError (naming
// `what`) for a CAI that cannot be used (masked, malformed); a property that raises (PyTorch
// for a tensor requiring grad) propagates.
bool read_cuda_array_interface(pybind11::handle obj, ArrayDescription& out, const std::string& what);

// DLPack import of a device tensor. Returns false when `obj` has no __dlpack__. `consumer_stream`
// is passed to the producer as the stream our work will run on, so it orders its work first.
bool read_dlpack(pybind11::handle obj, ArrayDescription& out, CUstream consumer_stream, const std::string& what);

// numpy's (or any host array's) __array_interface__.
bool read_array_interface(pybind11::handle obj, ArrayDescription& out, const std::string& what);

// True for numpy.ndarray (and subclasses) without importing numpy when nobody else has.
bool is_numpy_array(pybind11::handle obj);

}  // namespace xcuda::magics

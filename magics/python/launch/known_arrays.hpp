#pragma once
// The launch path's shortcut for CuPy arrays and PyTorch tensors: their pointer, dtype and
// C-contiguity read straight from the object instead of through the standard protocols
// (array_protocols.hpp), with the same outcome.
#include "launch/array_protocols.hpp"

#include <Python.h>

#include <cstdint>

namespace xcuda::magics {

// What read_known_array reads once per launch rather than once per argument: CuPy's CAI
// version setting and current stream cannot change between the arguments of one call.
struct KnownArrayLaunch {
    bool cupy_read = false;
    long cupy_version = 0;
    std::uintptr_t cupy_stream = 0;
};

// The shortcut for array types whose attributes are known: cupy.ndarray (and subclasses that
// override none of what is read here) and torch.Tensor (exactly). Reads the pointer, dtype and
// C-contiguity straight from the object instead of building its __cuda_array_interface__ dict,
// with the same outcome as that dict: CuPy's stream (CAI v3: its current stream, or none under
// CUPY_CUDA_ARRAY_INTERFACE_EXPORT_VERSION=2), no stream and no device for torch (its CAI is
// v2). Returns false, leaving nothing raised, whenever the generic protocols must decide (other
// types, a CPU tensor, one that requires grad, a dtype torch's CAI refuses, any attribute that is
// not what it should be); the generic path then gives the usual result or error. The type is
// classified once and remembered. Never imports CuPy or PyTorch: it only reads modules the
// object's type came from.
bool read_known_array(PyObject* obj, ArrayDescription& out, KnownArrayLaunch& launch);

}  // namespace xcuda::magics

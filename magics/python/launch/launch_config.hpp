#pragma once
// Grid, block and stream as Python users write them.
#include <xcuda/rt/dim3.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <optional>

namespace xcuda::magics {

// An int or a tuple/list of 1 to 3 positive ints. `what` is "grid" or "block" for messages.
rt::Dim3 parse_dim3(pybind11::handle value, const char* what);

// None (the legacy default stream), an xcuda.Stream, an int handle, or a foreign stream:
// `__cuda_stream__()` (CUDA Python), `.cuda_stream` (PyTorch) or `.ptr` (CuPy, Numba).
CUstream parse_stream(pybind11::handle value);

// A non-negative int of bytes.
std::size_t parse_shared_mem(pybind11::handle value);

// cooperative=: True or False.
bool parse_cooperative(pybind11::handle value);

// cluster=: None (no clusters), or an int or tuple of up to 3 positive ints (blocks per cluster).
std::optional<rt::Dim3> parse_cluster(pybind11::handle value);

}  // namespace xcuda::magics

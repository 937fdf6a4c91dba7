#pragma once
// Grid, block and stream as Python users write them.
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/launch.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <optional>
#include <string>

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

// The launch configuration given as keywords (kernel(*args, grid=, block=, ...) and
// kernel.benchmark(...)), read as it comes and parsed by the caller once all are in.
struct LaunchKeywords {
    pybind11::object grid, block, shared_mem = pybind11::int_(0), stream = pybind11::none();
    rt::LaunchOptions options;

    // Takes `key` when it is one of grid, block, shared_mem, stream, cooperative, cluster
    // (cooperative and cluster checked here); false for any other keyword.
    bool take(const std::string& key, pybind11::handle value);
};

}  // namespace xcuda::magics

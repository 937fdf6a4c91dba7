#pragma once
// Grid, block and stream as Python users write them.
#include <xcuda/rt/dim3.hpp>
#include <xcuda/rt/launch.hpp>

#include <pybind11/pybind11.h>

#include <cuda.h>

#include <optional>
#include <string>
#include <vector>

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

    // Takes `key` when it is one of launch_keywords() (the options checked here); false for any
    // other keyword. With `options_only`, only the launch options (.with_options()).
    bool take(const std::string& key, pybind11::handle value, bool options_only = false);
};

// The keywords of a launch: the one list that LaunchKeywords reads and that the errors and the
// docs of kernel(...), .benchmark() and .with_options() are written from.
struct LaunchKeyword {
    const char* name;
    const char* shown_default;  // as the docs show it ("0", "None"); nullptr where one is required
    bool option;                // a launch option (.with_options()), not the configuration
    void (*take)(LaunchKeywords& into, pybind11::handle value);
};
const std::vector<LaunchKeyword>& launch_keywords();

// "grid=, block=, shared_mem=, stream=, cooperative=, cluster=": every keyword, or with
// `options_only` the launch options; with `defaults`, "shared_mem=0" and so on. `separator`
// goes between them (", " or " and ").
std::string launch_keywords_text(bool defaults, bool options_only = false, const char* separator = ", ");

}  // namespace xcuda::magics

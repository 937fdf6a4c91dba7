#pragma once
// Where NVRTC and its companions come from, between the package's Python finder (xcuda._toolkit,
// which knows site-packages) and the C++ loader (rt/toolkit.hpp), which opens them on first use.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// xcuda._core._set_toolkit_places(list of (origin, cuda_major, nvrtc, include_dir, cccl_dir,
// nvjitlink, cupti)) and xcuda._core._toolkit_in_use() -> dict.
void define_toolkit_places(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// The per-launch hook behind %%cuda_check on a GPU: while a diverter is set, Kernel::launch
// hands it the launch instead of making it (the diverter runs it in a child process under
// compute-sanitizer, so a wrong kernel never touches the notebook's context). With none set, a
// launch pays one null-pointer test.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// The diverter, or nullptr. It is called as diverter(kernel, args, grid, block, shared_mem,
// stream, options): grid and block as (x, y, z), stream the CUstream as an int, options a dict
// of the launch's non-default options ({} for most launches).
PyObject* active_launch_diverter() noexcept;

// xcuda._core._divert_launches(fn or None): sets the diverter; returns the one it replaces.
void define_launch_diverter(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// xcuda._core._DebugSession: the CPU device's hold on one launch (xcuda/cpu/debugger.hpp) as the
// Python debugger drives it (xcuda/_kernel_debug.py): breakpoints, waits that release the GIL,
// resume and step, and the stopped thread's frames, registers and memory as bytes.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_debug_session(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// kernel[config] and launcher(*args) through CPython's own type slots. pybind11's dispatcher
// (argument loaders, overload resolution, holder casts, a new args tuple) cost about as much as
// the rest of a launch's host work together; these two calls are the hot path of every launch
// loop. Everything else about Kernel and Launcher stays defined through pybind11.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// Points the types' mp_subscript (Kernel) and tp_call (Launcher) at the fast versions. Call
// after the classes are complete: a later attribute assignment could reset the slots.
void install_launch_slots(pybind11::module_& m, pybind11::handle kernel_type, pybind11::handle launcher_type);

}  // namespace xcuda::magics

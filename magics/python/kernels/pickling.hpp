#pragma once
// pickle support: xcuda.Module, Kernel and KernelTemplate travel as their cell (source, options,
// included headers) with its CUBIN/PTX; DeviceArray by value; Stream and Event refuse.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// Adds __reduce__ to the classes defined by define_kernel_objects, define_device_objects and
// define_device_array (call after them).
void define_pickling(pybind11::module_& m);

}  // namespace xcuda::magics

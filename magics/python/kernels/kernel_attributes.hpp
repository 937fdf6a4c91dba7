#pragma once
// Kernel.attributes: the function's attributes as a mapping. Reads go to cuFuncGetAttribute (the
// values on the selected device); writes of the settable ones to cuFuncSetAttribute. Without a
// GPU, what the compile knows (registers, static shared and local memory, PTX and binary
// versions) is read from it and the rest raise NoDeviceError.
#include <pybind11/pybind11.h>

#include <memory>

namespace xcuda::magics {

class Kernel;

pybind11::object kernel_attributes(const std::shared_ptr<Kernel>& kernel);

void define_kernel_attributes(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// Module.get_global / Module.globals: a cell's __constant__, __device__ and __managed__ variables
// as xcuda.DeviceArray views of the loaded module's memory (no copy; the view keeps the module
// loaded), shaped and typed from their declarations.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

namespace xcuda::magics {

class ModuleImpl;

// The variable `key` ("coeffs", "ns::table", "lut<float>"; spaces ignored) on the selected
// device. KeyError listing the variables there are; NoDeviceError without a GPU.
pybind11::object device_global(const std::shared_ptr<ModuleImpl>& module, const std::string& key);

// The read-only mapping Module.globals: name -> DeviceArray (values need a GPU, names do not).
pybind11::object globals_view(const std::shared_ptr<ModuleImpl>& module);

void define_device_globals(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// The `xcuda` Python module: kernels, modules, device arrays, devices, streams, events, the
// exception tree and the IPython extension (`load_ipython_extension`) that registers the
// %%cuda magics. The kernel embeds it (PYBIND11_EMBEDDED_MODULE); the extension module
// build exposes the same definitions to any Python 3 (PYBIND11_MODULE).
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_module(pybind11::module_& m);

}  // namespace xcuda::magics

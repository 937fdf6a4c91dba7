#pragma once
// The `xcuda` Python module: kernels, modules, device arrays, devices, streams, events, the
// exception tree and the IPython extension (`load_ipython_extension`) that registers the
// %%cuda magics: the extension module xcuda._core (PYBIND11_MODULE), which the package's
// __init__.py re-exports, for any Python 3 (the xcuda kernel's, ipykernel's).
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_module(pybind11::module_& m);

}  // namespace xcuda::magics

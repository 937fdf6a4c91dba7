// xcuda._core: the magics and the CUDA API, for any Python 3 (the xcuda kernel's, ipykernel's,
// the GPU machine's); the package's __init__.py re-exports it as `xcuda`.
#include <xcuda/magics/module.hpp>

PYBIND11_MODULE(_core, m) {
    m.attr("__version__") = XCUDA_VERSION;
    xcuda::magics::define_module(m);
}

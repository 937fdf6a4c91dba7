// `import xcuda` from any Python 3 (ipykernel, the GPU machine's Python): the same module the
// xcuda kernel embeds.
#include <xcuda/magics/module.hpp>

PYBIND11_MODULE(xcuda, m) { xcuda::magics::define_module(m); }

#include <xcuda/magics/module.hpp>

namespace xcuda::magics {

void define_module(pybind11::module_& m) {
    m.doc() = "CUDA kernels compiled with NVRTC and launched through the driver API";
}

}  // namespace xcuda::magics

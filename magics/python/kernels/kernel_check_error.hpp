#pragma once
// KernelCheckError in the cell's terms: the CPU device's failure (rt::KernelCheckError) told with
// the kernel's parameter names and the cell's lines, which the kernel this session launched under
// that name knows. Registered after define_errors, so its translator is tried first.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_kernel_check_error(pybind11::module_& m);

}  // namespace xcuda::magics

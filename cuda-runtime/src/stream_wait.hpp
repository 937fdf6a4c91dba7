// poll_until (rt/wait.hpp) for a wait on a known stream: an interrupt marks that stream too,
// even one this library did not create (CuPy's, PyTorch's).
#pragma once

#include <cuda.h>

#include <functional>

namespace xcuda::rt::detail {

void poll_until(const std::function<bool()>& ready, const char* what, CUstream waited);

}  // namespace xcuda::rt::detail

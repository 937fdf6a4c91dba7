#pragma once
// The IPython extension: `%load_ext xcuda` (or the xcuda kernel at start-up) registers the
// magics and the post-cell synchronisation.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

void define_extension(pybind11::module_& m);

}  // namespace xcuda::magics

#pragma once
// The number of the cell that runs now, as the notebook shows it (In [5]).
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// IPython's own count, or None outside IPython.
pybind11::object running_cell_number();

}  // namespace xcuda::magics

#pragma once
// Reports as Python sees them: one display_data bundle {text/plain, text/html, image/svg+xml}.
#include <xcuda/report/rich.hpp>

#include <pybind11/pybind11.h>

namespace xcuda::magics {

// An xcuda.Report object (has _repr_mimebundle_, str() is the plain text).
pybind11::object rich_object(const report::Rich& rich);

// Shows the report in the current cell through IPython.display (prints the plain text when
// IPython is not there).
void display_rich(const report::Rich& rich);

void define_rich_output(pybind11::module_& m);

}  // namespace xcuda::magics

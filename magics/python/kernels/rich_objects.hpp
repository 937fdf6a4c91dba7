#pragma once
// JupyterLab shows xcuda's own objects (Kernel, Module, DeviceArray, Device) as small tables:
// `_repr_html_` on each class, built from the objects' public attributes (text/plain stays
// their repr). A value that cannot be read (no GPU for a Device's properties) says why in its
// row instead of failing the display.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// Call after the classes are defined in `m`.
void define_rich_reprs(pybind11::module_& m);

}  // namespace xcuda::magics

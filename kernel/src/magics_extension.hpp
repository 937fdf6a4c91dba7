#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace xcuda::kernel
{
    // Loads the embedded `xcuda` module (the %%cuda magics) into the IPython shell as an
    // IPython extension. Returns what went wrong, or an empty string; never throws, since a kernel
    // without magics still runs Python.
    std::string load_magics_extension(pybind11::object shell);
}

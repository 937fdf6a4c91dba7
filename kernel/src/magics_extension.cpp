#include "magics_extension.hpp"

#include <pybind11/embed.h>

#include <xcuda/magics/module.hpp>

namespace py = pybind11;

// Built into the executable: `import xcuda` in the kernel finds this module before any
// `xcuda` extension module on sys.path, so the magics always match the kernel.
PYBIND11_EMBEDDED_MODULE(xcuda, m)
{
    xcuda::magics::define_module(m);
}

namespace xcuda::kernel
{
    std::string load_magics_extension(py::object shell)
    {
        try
        {
            py::object result = shell.attr("extension_manager").attr("load_extension")("xcuda");
            // IPython returns a string instead of raising for "already loaded" and
            // "no load_ipython_extension".
            if (!result.is_none())
            {
                return "xcuda: the %%cuda magics were not loaded: " + py::str(result).cast<std::string>();
            }
            return {};
        }
        catch (const std::exception& e)
        {
            return std::string("xcuda: the %%cuda magics failed to load, Python cells still work: ") + e.what();
        }
    }
}

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
            // What %load_ext does, without IPython's ExtensionManager.load_extension: it
            // reads the module's __file__, which a built-in (embedded) module lacks.
            py::module_ xcuda = py::module_::import("xcuda");
            xcuda.attr("load_ipython_extension")(shell);
            // So a later `%load_ext xcuda` says "already loaded" instead of loading twice.
            shell.attr("extension_manager").attr("loaded").attr("add")("xcuda");
            return {};
        }
        catch (const std::exception& e)
        {
            return std::string("xcuda: the %%cuda magics failed to load, Python cells still work: ") + e.what();
        }
    }
}

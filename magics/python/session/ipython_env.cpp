#include "session/ipython_env.hpp"
#include "session/errors.hpp"
#include "session/running_cell.hpp"

namespace py = pybind11;

namespace xcuda::magics {

py::object ipython_shell() { return py::module_::import("IPython").attr("get_ipython")(); }

py::object compile_user_code(const std::string& source, const char* fallback) {
    py::object builtins = py::module_::import("builtins");
    std::string name = fallback;
    // Only where IPython runs already: importing it for xcuda.cuda_profile() in a script would cost 0.3 s.
    if (py::module_::import("sys").attr("modules").contains("IPython")) {
        py::object ip = ipython_shell();
        py::object number = running_cell_number();
        if (!ip.is_none()) {
            name =
                ip.attr("compile").attr("cache")(source, number.is_none() ? py::int_(0) : number).cast<std::string>();
        }
    }
    return builtins.attr("compile")(source, name, "exec");
}

void usage_error(const std::string& message) {
    raise(py::module_::import("IPython.core.error").attr("UsageError"), message);
}

void profiling_usage_error(const std::string& message) {
    PyObject* ipython = PyImport_GetModule(py::str("IPython").ptr());  // loaded, not imported here
    if (ipython == nullptr) {
        PyErr_Clear();
        raise(PyExc_ValueError, message);
    }
    Py_DECREF(ipython);
    usage_error(message);
}

}  // namespace xcuda::magics

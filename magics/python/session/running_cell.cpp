#include "session/running_cell.hpp"

namespace py = pybind11;

namespace xcuda::magics {

py::object running_cell_number() {
    py::object ip = py::module_::import("IPython").attr("get_ipython")();
    if (ip.is_none()) return py::none();
    // IPython 9 advances execution_count before the cell runs (8.5 after), while the
    // displayhook's result of the running cell holds its own number on both (None on 8.5 for a
    // cell not stored in history, where execution_count is the same number).
    py::object count = ip.attr("execution_count");
    py::object result = py::getattr(ip.attr("displayhook"), "exec_result", py::none());
    if (!result.is_none()) {
        py::object own = py::getattr(result, "execution_count", py::none());
        if (!own.is_none()) count = own;
    }
    return count;
}

}  // namespace xcuda::magics

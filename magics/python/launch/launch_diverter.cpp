#include "launch/launch_diverter.hpp"
#include "session/launch_detours.hpp"

namespace py = pybind11;

namespace xcuda::magics {
namespace {

// A strong reference, or nullptr. Read and written with the GIL held (launches hold it).
PyObject* diverter = nullptr;

}  // namespace

PyObject* active_launch_diverter() noexcept { return diverter; }

void define_launch_diverter(py::module_& m) {
    m.def(
        "_divert_launches",
        [](py::object fn) -> py::object {
            py::object previous = diverter ? py::reinterpret_steal<py::object>(diverter) : py::none();
            diverter = fn.is_none() ? nullptr : fn.release().ptr();
            set_launch_detour(detour_divert, diverter != nullptr);
            return previous;
        },
        py::arg("fn"),
        "_divert_launches(fn or None) -> previous: while set, every kernel launch calls fn(kernel, args, grid, "
        "block, shared_mem, stream, options) instead of launching (%%cuda_check on a GPU).");
}

}  // namespace xcuda::magics

#include "display/rich_output.hpp"

namespace py = pybind11;

namespace xcuda::magics {
namespace {

py::dict bundle(const report::Rich& r) {
    py::dict d;
    d["text/plain"] = r.plain;
    if (!r.html.empty()) d["text/html"] = r.html;
    if (!r.svg.empty()) d["image/svg+xml"] = r.svg;
    return d;
}

}  // namespace

py::object rich_object(const report::Rich& rich) { return py::cast(rich); }

void display_rich(const report::Rich& rich) {
    py::object display;
    try {
        display = py::module_::import("IPython.display").attr("display");
    } catch (const py::error_already_set&) {
        py::print(rich.plain);
        return;
    }
    display(bundle(rich), py::arg("raw") = true);
}

void define_rich_output(py::module_& m) {
    py::class_<report::Rich>(m, "Report", "A report with text/plain, text/html and (for charts) image/svg+xml forms.")
        .def_readonly("plain", &report::Rich::plain)
        .def_readonly("html", &report::Rich::html)
        .def_readonly("svg", &report::Rich::svg)
        .def("_repr_mimebundle_", [](const report::Rich& r, py::args, py::kwargs) { return bundle(r); })
        .def("__str__", [](const report::Rich& r) { return r.plain; })
        .def("__repr__", [](const report::Rich& r) { return r.plain; });
}

}  // namespace xcuda::magics

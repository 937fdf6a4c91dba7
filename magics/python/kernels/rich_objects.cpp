#include "kernels/rich_objects.hpp"
#include "launch/launch_config.hpp"

#include <xcuda/report/html.hpp>
#include <xcuda/report/units.hpp>

#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace xcuda::magics {
namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

std::string text_of(py::handle value) { return py::str(value).cast<std::string>(); }

// The attribute as text, or why it could not be read (a property that needs a GPU).
std::string attribute_text(py::handle obj, const char* name) {
    try {
        return text_of(obj.attr(name));
    } catch (py::error_already_set& e) {
        return "(" + std::string(py::str(e.value()).cast<std::string>()) + ")";
    }
}

std::string table_html(const std::string& caption, const Rows& rows) {
    report::Table table({{"", report::Align::left}, {"", report::Align::left}}, caption);
    for (const auto& [key, value] : rows) table.add_row({key, value});
    return report::wrap_report(table.html());
}

std::string kernel_html(py::handle k) {
    Rows rows{{"signature", attribute_text(k, "signature")}};
    const std::string instantiation = attribute_text(k, "instantiation");
    if (!instantiation.empty()) rows.push_back({"instantiation", instantiation});
    rows.push_back({"symbol", attribute_text(k, "lowered_name")});
    for (py::handle p : k.attr("parameter_layout")) {
        py::dict d = py::reinterpret_borrow<py::dict>(p);
        std::string text = text_of(d["type"]) + " (" + text_of(d["kind"]) + ", " + text_of(d["size"]) + " bytes";
        if (d.contains("default")) text += ", default " + text_of(d["default"]);
        rows.push_back({"parameter " + text_of(d["name"]), text + ")"});
    }
    py::object r = k.attr("resources");
    if (!r.is_none()) {
        py::dict res = r.cast<py::dict>();
        std::string text;
        for (auto item : res) text += (text.empty() ? "" : ", ") + text_of(item.first) + " " + text_of(item.second);
        rows.push_back({"resources (ptxas)", text});
    }
    rows.push_back({"launch", text_of(k.attr("name")) + "[grid, block](" + "...)  or  " + text_of(k.attr("name")) +
                                  "(..., grid=, block=, shared_mem=, stream=)"});
    return table_html("xcuda.Kernel " + text_of(k.attr("name")), rows);
}

// What `saxpy?` shows (IPython's inspector asks an object's getdoc() first): the CUDA
// signature, how to launch it, each parameter as it is passed, the resources when known.
std::string kernel_doc(py::handle k) {
    const std::string name = text_of(k.attr("name"));
    std::string args;
    for (py::handle p : k.attr("parameter_layout")) {
        py::dict d = py::reinterpret_borrow<py::dict>(p);
        args += (args.empty() ? "" : ", ") + text_of(d["name"]);
    }
    std::string doc = attribute_text(k, "signature") + "\n\nLaunch:\n    " + name + "[grid, block](" + args +
                      ")\n    " + name + "[grid, block, shared_mem, stream](" + args + ")\n    " + name + "(" + args +
                      (args.empty() ? "" : ", ") + launch_keywords_text(true) + ")\n\nParameters:\n";
    for (py::handle p : k.attr("parameter_layout")) {
        py::dict d = py::reinterpret_borrow<py::dict>(p);
        doc += "    " + text_of(d["name"]) + ": " + text_of(d["type"]) + " (" + text_of(d["kind"]) + ", " +
               text_of(d["size"]) + " bytes" + (d.contains("default") ? ", default " + text_of(d["default"]) : "") +
               ")\n";
    }
    py::object r = k.attr("resources");
    if (!r.is_none()) {
        doc += "\nResources (ptxas):";
        for (auto item : r.cast<py::dict>()) doc += " " + text_of(item.first) + "=" + text_of(item.second);
        doc += "\n";
    }
    return doc + "\n" + text_of(py::type::handle_of(k).attr("__doc__"));
}

std::string module_html(py::handle m) {
    Rows rows;
    std::string kernels;
    for (auto item : m.attr("kernels").cast<py::dict>()) kernels += (kernels.empty() ? "" : ", ") + text_of(item.first);
    rows.push_back({"kernels", kernels.empty() ? "(none)" : kernels});
    std::string globals;
    try {
        for (py::handle name : m.attr("globals").attr("keys")())
            globals += (globals.empty() ? "" : ", ") + text_of(name);
    } catch (py::error_already_set& e) {
        globals = "(" + std::string(py::str(e.value()).cast<std::string>()) + ")";
    }
    if (!globals.empty()) rows.push_back({"device variables", globals});
    rows.push_back({"arch", attribute_text(m, "arch")});
    rows.push_back({"cache", attribute_text(m, "cache")});
    rows.push_back({"CUBIN", report::format_bytes(py::len(m.attr("cubin")))});
    rows.push_back({"PTX", std::to_string(py::len(m.attr("ptx"))) + " characters (.ptx)"});
    const std::string name = attribute_text(m, "name");
    return table_html("xcuda.Module" + (name.empty() ? std::string() : " " + name), rows);
}

std::string device_array_html(py::handle a) {
    Rows rows{{"shape", attribute_text(a, "shape")},
              {"dtype", attribute_text(a, "dtype")},
              {"size", report::format_bytes(a.attr("nbytes").cast<std::uint64_t>())},
              {"device", attribute_text(a, "device")}};
    char ptr[32];
    std::snprintf(ptr, sizeof ptr, "0x%llx", static_cast<unsigned long long>(a.attr("ptr").cast<std::uint64_t>()));
    rows.push_back({"address", ptr});
    return table_html("xcuda.DeviceArray", rows);
}

std::string device_html(py::handle d) {
    Rows rows;
    try {
        py::dict p = d.attr("properties").cast<py::dict>();
        py::tuple cc = p["compute_capability"].cast<py::tuple>();
        rows.push_back({"name", text_of(p["name"])});
        rows.push_back({"compute capability", text_of(cc[0]) + "." + text_of(cc[1]) + " (" + text_of(p["arch"]) + ")"});
        rows.push_back({"multiprocessors", text_of(p["multiprocessor_count"])});
        rows.push_back({"memory", report::format_bytes(p["total_memory"].cast<std::uint64_t>())});
        rows.push_back({"L2 cache", report::format_bytes(p["l2_cache_size"].cast<std::uint64_t>())});
        rows.push_back({"shared memory per block (opt-in)",
                        report::format_bytes(p["shared_memory_per_block_optin"].cast<std::uint64_t>())});
    } catch (py::error_already_set& e) {
        rows.push_back({"properties", "(" + std::string(py::str(e.value()).cast<std::string>()) + ")"});
    }
    return table_html(py::repr(d).cast<std::string>(), rows);
}

}  // namespace

void define_rich_reprs(py::module_& m) {
    const std::pair<const char*, std::string (*)(py::handle)> classes[] = {
        {"Kernel", kernel_html}, {"Module", module_html}, {"DeviceArray", device_array_html}, {"Device", device_html}};
    py::setattr(m.attr("Kernel"), "getdoc",
                py::cpp_function([](py::handle self) { return kernel_doc(self); }, py::is_method(m.attr("Kernel")),
                                 py::name("getdoc"), py::doc("What `kernel?` shows in IPython.")));
    for (const auto& [name, html] : classes) {
        py::setattr(m.attr(name), "_repr_html_",
                    py::cpp_function([html = html](py::handle self) { return html(self); }, py::is_method(m.attr(name)),
                                     py::name("_repr_html_")));
    }
}

}  // namespace xcuda::magics

#include "session/toolkit_places.hpp"

#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/toolkit.hpp>

#include <pybind11/stl.h>

#include <tuple>

namespace py = pybind11;

namespace xcuda::magics {

void define_toolkit_places(py::module_& m) {
    using PlaceTuple = std::tuple<std::string, int, std::string, std::string, std::string, std::string, std::string>;
    m.def(
        "_set_toolkit_places",
        [](const std::vector<PlaceTuple>& places) {
            std::vector<rt::ToolkitPlace> list;
            for (const auto& [origin, major, nvrtc, include_dir, cccl_dir, nvjitlink, cupti] : places) {
                list.push_back({origin, major, nvrtc, include_dir, cccl_dir, nvjitlink, cupti});
            }
            rt::set_toolkit_places(std::move(list));
        },
        py::arg("places"),
        "Where the C++ loader looks for NVRTC and its companions, best first (xcuda._toolkit finds them).");
    m.def(
        "_toolkit_in_use",
        [] {
            const rt::NvrtcInUse nvrtc = rt::nvrtc_in_use();
            const rt::HeadersInUse headers = rt::headers_in_use();
            py::dict d;
            d["nvrtc"] = nvrtc.path;
            d["origin"] = nvrtc.origin;
            d["version"] = py::make_tuple(nvrtc.major, nvrtc.minor);
            d["driver_mismatch"] = nvrtc.driver_mismatch;
            d["skipped"] = nvrtc.skipped;
            d["include_dir"] = headers.include_dir;
            d["include_origin"] = headers.include_origin;
            d["cccl_dir"] = headers.cccl_dir;
            d["cccl_origin"] = headers.cccl_origin;
            return d;
        },
        "The NVRTC in use (loading it) and the headers its programs get, each with where it came from.");
}

}  // namespace xcuda::magics

#include <xcuda/magics/module.hpp>

#include "rich_objects.hpp"
#include "device_array.hpp"
#include "device_objects.hpp"
#include "errors.hpp"
#include "extension.hpp"
#include "interrupt.hpp"
#include "kernel_object.hpp"
#include "launch_diverter.hpp"
#include "graph_capture.hpp"
#include "pickling.hpp"
#include "rich_output.hpp"
#include "timeline_recording.hpp"

namespace xcuda::magics {

void define_module(pybind11::module_& m) {
    m.doc() = "CUDA kernels compiled with NVRTC and launched through the driver API";
    define_errors(m);
    define_rich_output(m);
    define_device_objects(m);
    define_device_array(m);
    define_kernel_objects(m);
    define_launch_diverter(m);
    define_graphs(m);
    define_pickling(m);
    define_rich_reprs(m);
    define_extension(m);
    define_timeline_recording(m);
    install_interrupt_check();
}

}  // namespace xcuda::magics

#include <xcuda/magics/module.hpp>

#include "kernels/rich_objects.hpp"
#include "display/grading_report.hpp"
#include "display/rich_output.hpp"
#include "ipython/extension.hpp"
#include "kernels/debug_session.hpp"
#include "kernels/graph_capture.hpp"
#include "kernels/kernel_check_error.hpp"
#include "kernels/kernel_object.hpp"
#include "kernels/pickling.hpp"
#include "launch/device_array.hpp"
#include "launch/device_objects.hpp"
#include "launch/launch_diverter.hpp"
#include "profiling/cpu_grading_data.hpp"
#include "profiling/launch_profile.hpp"
#include "profiling/timeline_recording.hpp"
#include "session/errors.hpp"
#include "session/interrupt.hpp"
#include "session/toolkit_places.hpp"

namespace xcuda::magics {

void define_module(pybind11::module_& m) {
    m.doc() = "CUDA kernels compiled with NVRTC and launched through the driver API";
    define_errors(m);
    define_toolkit_places(m);
    define_rich_output(m);
    define_grading_report(m);
    define_device_objects(m);
    define_device_array(m);
    define_kernel_objects(m);
    define_kernel_check_error(m);
    define_debug_session(m);
    define_kernel_profile(m);
    define_cpu_grading_data(m);
    define_launch_diverter(m);
    define_graphs(m);
    define_pickling(m);
    define_rich_reprs(m);
    define_extension(m);
    define_timeline_recording(m);
    install_interrupt_check();
}

}  // namespace xcuda::magics

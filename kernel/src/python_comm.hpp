#pragma once

#include <pybind11/pybind11.h>

namespace xcuda::kernel
{
    // `Comm` and `CommManager` in xcuda._kernel: comms (ipywidgets, bokeh, plotly) over
    // xeus's comm manager, with the interface of the `comm` package's BaseComm and
    // CommManager that libraries call (create/open, send, close, on_msg, on_close,
    // register_target). xcuda/_hosted_shell.py installs them as comm.create_comm and
    // comm.get_comm_manager.
    void define_comms(pybind11::module_& m);
}

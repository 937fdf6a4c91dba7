#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace xcuda::kernel
{
    // What the Python half of the kernel (xcuda/_hosted_shell.py) calls to reach xeus:
    // display data, execution results and errors, clear_output, the parent header and
    // input requests, plus LogStream, a write-only text stream to the kernel's log.
    void define_shell_bridge(pybind11::module_& m);

    // The kernel's log (the stderr it was started with, outside the fd capture).
    void set_log_fd(int fd);
    void write_log(const std::string& text);
}

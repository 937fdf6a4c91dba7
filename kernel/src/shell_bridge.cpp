#include "shell_bridge.hpp"

#include <unistd.h>

#include <atomic>
#include <string>
#include <vector>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xeus/xinput.hpp>
#include <xeus/xinterpreter.hpp>

namespace py = pybind11;
namespace nl = nlohmann;
using namespace pybind11::literals;

namespace xcuda::kernel
{
    namespace
    {
        std::atomic<int> log_fd{STDERR_FILENO};

        nl::json object_or_empty(const py::object& value)
        {
            return value.is_none() ? nl::json::object() : value.cast<nl::json>();
        }

        void publish_display_data(const py::object& data, const py::object& metadata, const py::object& transient,
                                  bool update)
        {
            auto& interpreter = xeus::get_interpreter();
            if (update)
            {
                interpreter.update_display_data(object_or_empty(data), object_or_empty(metadata),
                                                object_or_empty(transient));
            }
            else
            {
                interpreter.display_data(object_or_empty(data), object_or_empty(metadata), object_or_empty(transient));
            }
        }
    }

    // As write(2) until all is written; the log is best effort (a closed terminal).
    void write_log(const std::string& text)
    {
        const char* data = text.data();
        std::size_t left = text.size();
        while (left > 0)
        {
            ssize_t written = ::write(log_fd.load(), data, left);
            if (written <= 0)
            {
                return;
            }
            data += written;
            left -= static_cast<std::size_t>(written);
        }
    }

    void set_log_fd(int fd)
    {
        log_fd = fd;
    }

    void define_shell_bridge(py::module_& m)
    {
        m.def("publish_display_data", &publish_display_data, "data"_a, "metadata"_a = py::none(),
              "transient"_a = py::none(), "update"_a = false);
        m.def("publish_execution_result", [](int execution_count, const py::object& data, const py::object& metadata) {
            xeus::get_interpreter().publish_execution_result(execution_count, object_or_empty(data),
                                                             object_or_empty(metadata));
        });
        m.def("publish_execution_error",
              [](const std::string& ename, const std::string& evalue, const std::vector<std::string>& traceback) {
                  xeus::get_interpreter().publish_execution_error(ename, evalue, traceback);
              });
        m.def(
            "clear_output", [](bool wait) { xeus::get_interpreter().clear_output(wait); }, "wait"_a = false);
        m.def("parent_header", [] { return py::object(py::cast(xeus::get_interpreter().parent_header())); });
        // Blocks the main thread on the stdin channel, as xeus-python does; an interrupt
        // breaks the wait (EINTR) and raises KeyboardInterrupt in the cell.
        m.def("input_request", &xeus::blocking_input_request, "prompt"_a, "password"_a = false);

        struct log_stream
        {};
        py::class_<log_stream>(m, "LogStream")
            .def(py::init<>())
            .def("write",
                 [](log_stream&, const std::string& text) {
                     write_log(text);
                     return text.size();
                 })
            .def("flush", [](log_stream&) {});
    }
}

// xcuda._kernel: the kernel, as an extension module of whatever Python runs
// `python -m xcuda -f CONNECTION_FILE` (xcuda/__main__.py). That Python hosts the kernel:
// its sys.prefix, its packages (torch, CuPy, RAPIDS) are the cells'.
#include <unistd.h>

#include <cstdlib>

#include <memory>
#include <string>

#include <pybind11/pybind11.h>
#include <xeus/xhelper.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <zmq.hpp>

#include "build_info.hpp"
#include "conforming_server.hpp"
#include "interrupt_router.hpp"
#include "output_capture.hpp"
#include "parent_watch.hpp"
#include "python_comm.hpp"
#include "python_debugger.hpp"
#include "python_output.hpp"
#include "shell_bridge.hpp"
#include "shell_history.hpp"
#include "xcuda_interpreter.hpp"

namespace py = pybind11;

namespace
{
    // The running kernel's interpreter, for the exit handler below.
    xcuda::kernel::xcuda_interpreter* running_interpreter = nullptr;

    // xeus ends the process with std::exit (on the main thread, the shell stopped) after a
    // shutdown_request; IPython's history would be closed by Python's atexit, which that skips.
    void end_history_at_exit()
    {
        if (running_interpreter != nullptr)
        {
            running_interpreter->end_history_session();
        }
    }

    // Serves the connection file's ports until a shutdown_request; returns the exit status.
    int run(const std::string& connection_file)
    {
        using namespace xcuda::kernel;

        xeus::xconfiguration config = xeus::load_configuration(connection_file);

        // Order matters: signals blocked before any of the kernel's threads exist (all
        // inherit the mask), fd 1/2 captured before xeus writes anything.
        interrupt_router::block_signals_in_this_thread();
        output_capture capture({STDOUT_FILENO, STDERR_FILENO});
        set_log_fd(capture.original_fd(1));
        python_output output(capture);
        interrupt_router interrupts(py::module_::import("xcuda._interrupt_policy").attr("may_raise_at"));
        parent_watch frontend_watch;
        set_output_barrier([&output] { output.flush_streams(); });

        auto interpreter = std::make_unique<xcuda_interpreter>(output, interrupts);
        interpreter->set_release_descriptors([&capture] { capture.release_descriptors(); });
        xcuda_interpreter* interpreter_ptr = interpreter.get();
        auto history = std::make_unique<shell_history>(
            [shell = interpreter.get()](const nl::json& query) { return shell->history(query); });
        xeus::xkernel kernel(config, xeus::get_user_name(), xeus::make_context<zmq::context_t>(),
                             std::move(interpreter), make_conforming_server, std::move(history),
                             nullptr,  // xeus's own message log (XEUS_LOG) stays off
                             make_python_debugger);
        running_interpreter = interpreter_ptr;
        static const bool at_exit_registered = std::atexit(end_history_at_exit) == 0;
        (void)at_exit_registered;
        kernel.start();
        running_interpreter = nullptr;
        output.uninstall();
        set_output_barrier(nullptr);
        set_log_fd(STDERR_FILENO);
        return 0;
    }
}

PYBIND11_MODULE(_kernel, m)
{
    using namespace xcuda::kernel;
    m.doc() = "The xcuda Jupyter kernel (xeus); started by `python -m xcuda -f CONNECTION_FILE`";
    m.attr("__version__") = build::version;
    m.def("run", &run, py::arg("connection_file"),
          "Runs the kernel on the connection file's ports until it is shut down; returns the exit status.");
    m.def("cell_file_name", &cell_file_name, py::arg("code"),
          "The file name a cell of this text is compiled under: the one the debugger's frontend "
          "derives from debugInfo, so breakpoints set in the cell hit.");
    m.def(
        "serving", [] { return running_interpreter != nullptr; },
        "True in the process of a running xcuda kernel (False where xcuda is imported elsewhere).");
    m.def(
        "replace_after_this_cell",
        [] {
            if (running_interpreter == nullptr)
            {
                throw std::runtime_error("no xcuda kernel runs in this process");
            }
            running_interpreter->replace_after_this_cell();
        },
        "Once the running cell is answered, replaces this process by a new run of the kernel (%cuda_restart).");
    define_shell_bridge(m);
    define_comms(m);
    define_output_streams(m);
}

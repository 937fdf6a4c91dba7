#include "xcuda_interpreter.hpp"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <string>

#include <pybind11/pybind11.h>

#include "build_paths.hpp"
#include "handler_errors.hpp"
#include "shutdown_watchdog.hpp"
#ifdef XCUDA_WITH_MAGICS
#include "magics_extension.hpp"
#endif

namespace py = pybind11;

namespace xcuda::kernel
{
    namespace
    {
        // Shutdown and restart must end the process within 2.5 s (DESIGN.md).
        constexpr std::chrono::milliseconds shutdown_grace{1500};

        void write_to_log(int fd, const std::string& text)
        {
            std::string line = text + "\n";
            ssize_t ignored = ::write(fd, line.data(), line.size());
            (void)ignored;
        }
    }

    xcuda_interpreter::xcuda_interpreter(python_output& output, interrupt_router& interrupts)
        : xpyt::interpreter(true, true)
        , m_output(output)
        , m_interrupts(interrupts)
    {
    }

    void xcuda_interpreter::configure_impl()
    {
        // Runs with the GIL, which the base class releases at its end.
        xpyt::interpreter::configure_impl();
        py::gil_scoped_acquire acquire;
        // Like ipykernel: modules next to the notebook import.
        py::module_::import("sys").attr("path").attr("insert")(0, "");
        m_output.install();
        name_errors_like_ipykernel();

        py::module_ platform = py::module_::import("platform");
        m_kernel_info = xpyt::interpreter::kernel_info_request_impl();
        m_kernel_info["implementation"] = "xcuda";
        m_kernel_info["implementation_version"] = build::version;
        m_kernel_info["banner"] = "xcuda " + std::string(build::version)
            + ": Python " + platform.attr("python_version")().cast<std::string>()
            + " with %%cuda cells (CUDA C++ compiled by NVRTC, launched through the CUDA driver)";
        m_kernel_info["language_info"]["version"] = platform.attr("python_version")().cast<std::string>();
        m_kernel_info["help_links"] = nl::json::array({
            {{"text", "xcuda magics (%%cuda -h)"}, {"url", "https://github.com/xeus-cuda/xeus-cuda"}},
            {{"text", "Python"}, {"url", "https://docs.python.org/3/"}},
            {{"text", "IPython"}, {"url", "https://ipython.readthedocs.io/en/stable/"}},
            {{"text", "CUDA C++ Programming Guide"}, {"url", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"}},
        });
        // No debugger is wired in (xeus-python's needs debugpy and a second zmq setup);
        // saying so keeps frontends from offering one that would never answer.
        m_kernel_info["debugger"] = false;
        m_kernel_info["status"] = "ok";

#ifdef XCUDA_WITH_MAGICS
        m_startup_problems = load_magics_extension(m_ipython_shell);
        if (!m_startup_problems.empty())
        {
            write_to_log(STDERR_FILENO, m_startup_problems);
        }
#endif
    }

    void xcuda_interpreter::name_errors_like_ipykernel()
    {
        // xeus_python_shell records str(etype), "<class 'ZeroDivisionError'>", as ename;
        // frontends and nbconvert expect the bare class name.
        py::handle shell = m_ipython_shell;
        shell.attr("_showtraceback") = py::cpp_function(
            [shell](py::object etype, py::object evalue, py::object stb) {
                py::list error;
                error.append(etype.attr("__name__"));
                error.append(py::str(evalue));
                error.append(stb);
                shell.attr("last_error") = error;
            });
    }

    void xcuda_interpreter::report_startup_problems()
    {
        if (m_startup_problems.empty())
        {
            return;
        }
        py::gil_scoped_acquire acquire;
        py::module_::import("sys").attr("stderr").attr("write")(m_startup_problems + "\n");
        m_startup_problems.clear();
    }

    nl::json xcuda_interpreter::execute_request_impl(int execution_counter,
                                                     const std::string& code,
                                                     bool silent,
                                                     bool store_history,
                                                     nl::json user_expressions,
                                                     bool allow_stdin)
    {
        m_output.begin_cell();
        nl::json reply = answer_always("execute_request", [&] {
            report_startup_problems();
            return run_cell(execution_counter, code, silent, store_history,
                            std::move(user_expressions), allow_stdin);
        });
        if (reply.value("ename", "") == "KernelError")
        {
            publish_execution_error(reply["ename"], reply["evalue"], reply["traceback"]);
        }
        try
        {
            // Everything the cell wrote to fd 1/2 is published before the reply.
            m_output.end_cell();
        }
        catch (const std::exception& e)
        {
            write_to_log(m_output.log_fd(), std::string("xcuda: output of the cell was lost: ") + e.what());
        }
        return reply;
    }

    nl::json xcuda_interpreter::run_cell(int execution_counter,
                                         const std::string& code,
                                         bool silent,
                                         bool store_history,
                                         nl::json user_expressions,
                                         bool allow_stdin)
    {
        nl::json reply;
        {
            interrupt_router::cell_scope scope(m_interrupts);
            reply = xpyt::interpreter::execute_request_impl(execution_counter, code, silent, store_history,
                                                            std::move(user_expressions), allow_stdin);
        }
        // An interrupt that arrived as the cell ended was tripped but not raised: consume
        // it here so it cannot surface in the next cell.
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0)
        {
            PyErr_Clear();
        }
        return reply;
    }

    nl::json xcuda_interpreter::complete_request_impl(const std::string& code, int cursor_pos)
    {
        return answer_always("complete_request", [&] {
            return xpyt::interpreter::complete_request_impl(code, cursor_pos);
        });
    }

    nl::json xcuda_interpreter::inspect_request_impl(const std::string& code, int cursor_pos, int detail_level)
    {
        return answer_always("inspect_request", [&] {
            return xpyt::interpreter::inspect_request_impl(code, cursor_pos, detail_level);
        });
    }

    nl::json xcuda_interpreter::is_complete_request_impl(const std::string& code)
    {
        return answer_always("is_complete_request", [&] {
            return xpyt::interpreter::is_complete_request_impl(code);
        });
    }

    nl::json xcuda_interpreter::kernel_info_request_impl()
    {
        // Built once at configure time: answering needs no GIL, so kernel_info is
        // answered at once even on the control channel while a cell runs.
        return m_kernel_info;
    }

    void xcuda_interpreter::shutdown_request_impl()
    {
        // Runs on the control thread, possibly while the main thread is busy: touch no
        // Python state here, just make sure the process ends.
        exit_after(shutdown_grace);
    }

    nl::json xcuda_interpreter::internal_request_impl(const nl::json& content)
    {
        return answer_always("internal_request", [&] {
            return xpyt::interpreter::internal_request_impl(content);
        });
    }
}

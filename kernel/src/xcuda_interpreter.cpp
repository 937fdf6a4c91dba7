#include "xcuda_interpreter.hpp"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <stdexcept>
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

    namespace
    {
        // The bulk of what building the shell imports: IPython with its completer (jedi)
        // and magics, and the %%cuda magics' module. Not "ipykernel.comm": xeus-python puts
        // its own module under that name, and importing the real one first costs 8 MiB.
        const char* const shell_modules[] = {
            "xeus_python_shell.shell",
#ifdef XCUDA_WITH_MAGICS
            "xcuda",
#endif
        };

        // The running interpreter's version ("3.11.2"): Py_GetVersion is a constant
        // string, readable without the GIL.
        std::string python_version()
        {
            std::string version = Py_GetVersion();
            return version.substr(0, version.find(' '));
        }

        nl::json make_kernel_info()
        {
            const std::string version = python_version();
            return {
                {"status", "ok"},
                {"implementation", "xcuda"},
                {"implementation_version", build::version},
                {"banner", "xcuda " + std::string(build::version) + ": Python " + version
                               + " with %%cuda cells (CUDA C++ compiled by NVRTC, launched through the CUDA driver)"},
                // As ipykernel says it, so frontends highlight %magics and nbconvert exports .py.
                {"language_info", {{"name", "python"},
                                   {"version", version},
                                   {"mimetype", "text/x-python"},
                                   {"file_extension", ".py"},
                                   {"pygments_lexer", "ipython3"},
                                   {"codemirror_mode", {{"name", "ipython"}, {"version", 3}}},
                                   {"nbconvert_exporter", "python"}}},
                {"help_links", nl::json::array({
                    {{"text", "xcuda magics (%%cuda -h)"}, {"url", "https://github.com/xeus-cuda/xeus-cuda"}},
                    {{"text", "Python"}, {"url", "https://docs.python.org/3/"}},
                    {{"text", "IPython"}, {"url", "https://ipython.readthedocs.io/en/stable/"}},
                    {{"text", "CUDA C++ Programming Guide"}, {"url", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"}},
                })},
                // No debugger is wired in (xeus-python's needs debugpy and a second zmq setup);
                // saying so keeps frontends from offering one that would never answer.
                {"debugger", false},
            };
        }
    }

    xcuda_interpreter::~xcuda_interpreter()
    {
        if (m_shell_imports.joinable())
        {
            m_shell_imports.join();
        }
    }

    void xcuda_interpreter::configure_impl()
    {
        m_kernel_info = make_kernel_info();
        {
            // Still holding the GIL from start-up. threading records the thread that first
            // imports it as the main thread (asyncio.run and signal code ask it): that must
            // be this one, not the import thread.
            py::module_::import("threading");
        }
        m_release_gil_at_startup = false;  // given up here instead, before the import thread runs
        m_gil_given_up = std::make_unique<py::gil_scoped_release>();
        m_shell_imports = std::thread([this] { import_shell_modules(); });
    }

    void xcuda_interpreter::import_shell_modules()
    {
        py::gil_scoped_acquire acquire;
        for (const char* name : shell_modules)
        {
            try
            {
                py::module_::import(name);
            }
            catch (py::error_already_set& e)
            {
                // Building the shell imports it again in the main thread and reports a
                // real failure there; this only keeps the first cause for the log.
                m_shell_import_problems += std::string("xcuda: importing ") + name + " in the background failed: "
                                           + e.what() + "\n";
            }
        }
    }

    void xcuda_interpreter::build_shell_once()
    {
        if (m_shell_built)
        {
            return;
        }
        m_shell_built = true;
        if (m_shell_imports.joinable())
        {
            m_shell_imports.join();
        }
        if (!m_shell_import_problems.empty())
        {
            write_to_log(STDERR_FILENO, m_shell_import_problems);
        }
        try
        {
            build_shell();
        }
        catch (const std::exception& e)
        {
            m_shell_failure = std::string("the Python shell could not be started: ") + e.what()
                              + " (check that IPython and xeus-python's Python package work in "
                              + build::python_executable + "; restart the kernel after fixing it)";
            write_to_log(STDERR_FILENO, "xcuda: " + m_shell_failure);
        }
    }

    void xcuda_interpreter::ensure_shell()
    {
        build_shell_once();
        if (!m_shell_failure.empty())
        {
            throw std::runtime_error(m_shell_failure);
        }
    }

    void xcuda_interpreter::build_shell()
    {
        // xeus-python's configuration (imports, shell, displayhook, streams) takes the GIL itself.
        xpyt::interpreter::configure_impl();
        py::gil_scoped_acquire acquire;
        // Like ipykernel: modules next to the notebook import.
        py::module_::import("sys").attr("path").attr("insert")(0, "");
        m_output.install();
        name_errors_like_ipykernel();
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

    void xcuda_interpreter::fail_reply_of_unshown_error(nl::json& reply)
    {
        // IPython shows a magic's UsageError as one stderr line without calling
        // _showtraceback, and xeus-python decides the reply from what _showtraceback recorded:
        // the cell replied "ok", so Run All went on past a cell that did nothing. IPython's own
        // record of the run says it failed; the reply says so as ipykernel's does (status
        // error, the exception's name and text, no traceback: the message is already shown).
        if (reply.value("status", "") != "ok")
        {
            return;
        }
        py::gil_scoped_acquire acquire;
        py::object result = py::getattr(m_ipython_shell, "last_execution_result", py::none());
        if (result.is_none() || py::bool_(result.attr("success")))
        {
            return;
        }
        // success is False exactly when one of the two holds an exception
        py::object error = result.attr("error_in_exec");
        if (error.is_none())
        {
            error = result.attr("error_before_exec");
        }
        reply["status"] = "error";
        reply["ename"] = py::str(py::type::handle_of(error).attr("__name__")).cast<std::string>();
        reply["evalue"] = py::str(error).cast<std::string>();
        reply["traceback"] = nl::json::array();
        reply["user_expressions"] = nl::json::object();
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
        // Before the cell's capture starts: what building the shell prints (IPython's
        // virtualenv warning) goes to the kernel's log, as it did at start-up, not into the cell.
        build_shell_once();
        m_output.begin_cell();
        nl::json reply = answer_always("execute_request", [&] {
            ensure_shell();
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
        fail_reply_of_unshown_error(reply);
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
            ensure_shell();
            return xpyt::interpreter::complete_request_impl(code, cursor_pos);
        });
    }

    nl::json xcuda_interpreter::inspect_request_impl(const std::string& code, int cursor_pos, int detail_level)
    {
        return answer_always("inspect_request", [&] {
            ensure_shell();
            return xpyt::interpreter::inspect_request_impl(code, cursor_pos, detail_level);
        });
    }

    nl::json xcuda_interpreter::is_complete_request_impl(const std::string& code)
    {
        return answer_always("is_complete_request", [&] {
            ensure_shell();
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
            ensure_shell();
            return xpyt::interpreter::internal_request_impl(content);
        });
    }
}

#include "xcuda_interpreter.hpp"

#include <unistd.h>

#include <chrono>
#include <exception>
#include <stdexcept>
#include <cstdlib>
#include <string>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>

#include "build_info.hpp"
#include "conforming_server.hpp"
#include "execution_count.hpp"
#include "handler_errors.hpp"
#include "shutdown_watchdog.hpp"

namespace py = pybind11;

namespace xcuda::kernel
{
    namespace
    {
        // Shutdown and restart must end the process within 2.5 s (docs/DESIGN.md).
        constexpr std::chrono::milliseconds shutdown_grace{1500};

        void write_to_log(int fd, const std::string& text)
        {
            std::string line = text + "\n";
            ssize_t ignored = ::write(fd, line.data(), line.size());
            (void)ignored;
        }
    }

    xcuda_interpreter::xcuda_interpreter(python_output& output, interrupt_router& interrupts)
        : m_output(output)
        , m_interrupts(interrupts)
    {
        xeus::register_interpreter(this);
    }

    namespace
    {
        // The bulk of what building the shell imports: IPython with its completer (jedi)
        // and magics, and the comm package. Not "ipykernel.comm": the shell puts xcuda's own
        // module under that name, and importing the real one first costs 8 MiB.
        const char* const shell_modules[] = {
            "xeus_python_shell.shell",
            "comm",
        };

        // The hosting interpreter's path, for messages: sys.executable.
        std::string python_executable()
        {
            py::gil_scoped_acquire acquire;
            return py::str(py::module_::import("sys").attr("executable"));
        }

        // The running interpreter's version ("3.11.2"): Py_GetVersion is a constant
        // string, readable without the GIL.
        std::string python_version()
        {
            std::string version = Py_GetVersion();
            return version.substr(0, version.find(' '));
        }

        // Whether the hosting Python has debugpy, without importing it (~0.2 s). Called
        // holding the GIL.
        bool debugpy_installed()
        {
            try
            {
                return py::module_::import("xcuda._python_debugger").attr("installed")().cast<bool>();
            }
            catch (py::error_already_set& e)
            {
                write_to_log(STDERR_FILENO, std::string("xcuda: the debugger is off: ") + e.what());
                return false;
            }
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
                {"language_info",
                 {{"name", "python"},
                  {"version", version},
                  {"mimetype", "text/x-python"},
                  {"file_extension", ".py"},
                  {"pygments_lexer", "ipython3"},
                  {"codemirror_mode", {{"name", "ipython"}, {"version", 3}}},
                  {"nbconvert_exporter", "python"}}},
                {"help_links",
                 nl::json::array({
                     {{"text", "xcuda magics (%%cuda -h)"}, {"url", "https://github.com/xeus-cuda/xeus-cuda"}},
                     {{"text", "Python"}, {"url", "https://docs.python.org/3/"}},
                     {{"text", "IPython"}, {"url", "https://ipython.readthedocs.io/en/stable/"}},
                     {{"text", "CUDA C++ Programming Guide"},
                      {"url", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/"}},
                 })},
                // JupyterLab offers its debugger only when this is true: where debugpy imports.
                {"debugger", debugpy_installed()},
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
        // A process that replaced another (%cuda_restart) goes on counting from where it left
        // off; its shell is built at the first request, after that request's execute_input.
        if (const char* count = std::getenv("XCUDA_RESTORE_EXECUTION_COUNT"))
        {
            if (const int next = std::atoi(count); next > 0)
            {
                set_next_execution_count(next);
            }
        }
        {
            // Still holding the GIL from start-up. threading records the thread that first
            // imports it as the main thread (asyncio.run and signal code ask it): that must
            // be this one, not the import thread.
            py::module_::import("threading");
        }
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
                m_shell_import_problems +=
                    std::string("xcuda: importing ") + name + " in the background failed: " + e.what() + "\n";
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
                              + " (check that IPython and xeus-python-shell import in " + python_executable()
                              + "; restart the kernel after fixing it)";
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
        py::gil_scoped_acquire acquire;
        m_glue = py::module_::import("xcuda._hosted_shell");
        m_shell = m_glue.attr("build_shell")();
        m_output.install();
        m_startup_problems = m_glue.attr("load_magics")(m_shell).cast<std::string>();
        // A run that replaced a process through %cuda_restart: the namespace it saved, before
        // any request runs (what could not be loaded is said in the first cell).
        std::string restored;
        try
        {
            restored = py::module_::import("xcuda._restart").attr("restore")(m_shell).cast<std::string>();
        }
        catch (const std::exception& e)
        {
            restored = std::string("xcuda: the variables saved by %cuda_restart could not be loaded: ") + e.what();
        }
        if (!restored.empty())
        {
            m_startup_problems += (m_startup_problems.empty() ? "" : "\n") + restored;
        }
        set_next_execution_count(m_shell.attr("execution_count").cast<int>());
        if (!m_startup_problems.empty())
        {
            write_to_log(STDERR_FILENO, m_startup_problems);
        }
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

    nl::json xcuda_interpreter::execute_request_impl(int execution_counter, const std::string& code, bool silent,
                                                     bool store_history, nl::json user_expressions, bool allow_stdin)
    {
        // Before the cell's capture starts: what building the shell prints (IPython's
        // virtualenv warning) goes to the kernel's log, as it did at start-up, not into the cell.
        build_shell_once();
        m_output.begin_cell();
        nl::json reply = answer_always("execute_request", [&] {
            ensure_shell();
            report_startup_problems();
            return run_cell(execution_counter, code, silent, store_history, std::move(user_expressions), allow_stdin);
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

    nl::json xcuda_interpreter::run_cell(int /*execution_counter: IPython keeps its own*/, const std::string& code,
                                         bool silent, bool store_history, nl::json user_expressions, bool allow_stdin)
    {
        py::gil_scoped_acquire acquire;
        nl::json reply;
        {
            interrupt_router::cell_scope scope(m_interrupts);
            reply = m_glue
                        .attr("execute")(m_shell, code, silent, store_history, py::object(py::cast(user_expressions)),
                                         allow_stdin)
                        .cast<nl::json>();
        }
        // An interrupt that arrived as the cell ended was tripped but not raised: consume
        // it here so it cannot surface in the next cell.
        if (PyErr_CheckSignals() != 0)
        {
            PyErr_Clear();
        }
        set_next_execution_count(m_shell.attr("execution_count").cast<int>());
        if (m_shell.attr("exit_now").cast<bool>())
        {
            // exit or quit in the cell: as ipykernel, the kernel ends once the cell is answered.
            end_after_request(parent_header().value("msg_id", ""));
        }
        else if (m_replace_requested)
        {
            m_replace_requested = false;
            // The number the next cell takes, now that this one is counted (IPython 8 counts a
            // cell after it ran, 9 before): the new process goes on from it.
            ::setenv("XCUDA_RESTORE_EXECUTION_COUNT",
                     std::to_string(m_shell.attr("execution_count").cast<int>()).c_str(), 1);
            end_history_session();
            replace_after_request(
                parent_header().value("msg_id", ""), m_release_descriptors, [this](const std::string& why) {
                    // Still this process, with its namespace; C output now reaches the log only.
                    write_to_log(STDERR_FILENO, "xcuda: %cuda_restart could not replace the process: " + why);
                    m_startup_problems = "xcuda: %cuda_restart could not start a new process (" + why
                                         + "); this one goes on, with its variables. Use the frontend's restart.";
                });
        }
        return reply;
    }

    void xcuda_interpreter::replace_after_this_cell()
    {
        m_replace_requested = true;
    }

    void xcuda_interpreter::set_release_descriptors(std::function<void()> release)
    {
        m_release_descriptors = std::move(release);
    }

    nl::json xcuda_interpreter::history(const nl::json& query)
    {
        return answer_always("history_request", [&] {
            ensure_shell();
            py::gil_scoped_acquire acquire;
            return m_glue.attr("history")(m_shell, py::object(py::cast(query))).cast<nl::json>();
        });
    }

    void xcuda_interpreter::end_history_session() noexcept
    {
        if (!m_shell_built || !m_shell_failure.empty())
        {
            return;
        }
        try
        {
            py::gil_scoped_acquire acquire;
            py::module_::import("xcuda._history").attr("end_session")(m_shell);
        }
        catch (const std::exception& e)
        {
            write_to_log(m_output.log_fd(),
                         std::string("xcuda: the history of this session may be incomplete: ") + e.what());
        }
    }

    nl::json xcuda_interpreter::complete_request_impl(const std::string& code, int cursor_pos)
    {
        return answer_always("complete_request", [&] {
            ensure_shell();
            py::gil_scoped_acquire acquire;
            return m_glue.attr("complete")(m_shell, code, cursor_pos).cast<nl::json>();
        });
    }

    nl::json xcuda_interpreter::inspect_request_impl(const std::string& code, int cursor_pos, int detail_level)
    {
        return answer_always("inspect_request", [&] {
            ensure_shell();
            py::gil_scoped_acquire acquire;
            return m_glue.attr("inspect_object")(m_shell, code, cursor_pos, detail_level).cast<nl::json>();
        });
    }

    nl::json xcuda_interpreter::is_complete_request_impl(const std::string& code)
    {
        return answer_always("is_complete_request", [&] {
            ensure_shell();
            py::gil_scoped_acquire acquire;
            return m_glue.attr("is_complete")(m_shell, code).cast<nl::json>();
        });
    }

    nl::json xcuda_interpreter::kernel_info_request_impl()
    {
        // Built once at configure time: answering needs no GIL, so kernel_info is
        // answered at once even on the control channel while a cell runs.
        return m_kernel_info;
    }

    nl::json xcuda_interpreter::internal_request_impl(const nl::json& message)
    {
        // The only internal request: the debugger's first `initialize` asks this thread,
        // which runs the cells, to start debugpy (its tracing is set on the calling thread).
        auto listen = message.find("xcuda_debugpy_listen");
        if (listen == message.end())
        {
            return {{"status", "error"}, {"evalue", "unknown internal request: " + message.dump()}};
        }
        try
        {
            ensure_shell();
            py::gil_scoped_acquire acquire;
            py::module_::import("xcuda._python_debugger")
                .attr("listen")(listen->at("host").get<std::string>(), listen->at("port").get<int>());
            return {{"status", "ok"}};
        }
        catch (const std::exception& e)  // the debugger's reply says it; the kernel goes on
        {
            write_to_log(m_output.log_fd(), std::string("xcuda: the debugger could not start: ") + e.what());
            return {{"status", "error"}, {"evalue", e.what()}};
        }
    }

    void xcuda_interpreter::shutdown_request_impl()
    {
        // Runs on the control thread, possibly while the main thread is busy: touch no
        // Python state here, just make sure the process ends.
        exit_after(shutdown_grace);
    }
}

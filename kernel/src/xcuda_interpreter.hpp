#pragma once

#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <xeus/xinterpreter.hpp>

#include "interrupt_router.hpp"
#include "python_output.hpp"

namespace xcuda::kernel
{
    // The kernel's interpreter: xeus requests answered by IPython's shell, built and wired by
    // the Python half (xcuda/_hosted_shell.py) in whatever Python hosts the kernel, the way
    // xeus-python's interpreter wires it. Adds interrupts that reach the cell, C-level output
    // that reaches the cell, the %%cuda magics, and handlers that always answer (xeus 2.4.1
    // logs an escaping exception and sends no reply, which leaves the frontend waiting forever).
    //
    // Start-up: kernel_info is answered as soon as the sockets are up, from facts known
    // without IPython. IPython and xeus-python's shell (~0.3 s of imports) are imported on a
    // background thread meanwhile, and the shell is built in the main thread by the first
    // request that needs it (execute, complete, inspect, is_complete), which waits for
    // those imports if they are still running.
    class xcuda_interpreter final : public xeus::xinterpreter
    {
    public:
        xcuda_interpreter(python_output& output, interrupt_router& interrupts);
        ~xcuda_interpreter() override;
        xcuda_interpreter(const xcuda_interpreter&) = delete;
        xcuda_interpreter& operator=(const xcuda_interpreter&) = delete;

        // A history_request's reply from IPython's history (see shell_history); builds the
        // shell if no request has yet.
        nl::json history(const nl::json& query);

        // Writes what IPython's history still holds and closes its session. For the exit after
        // a shutdown_request: xeus ends the process with std::exit once the shell has stopped,
        // which runs C++ atexit handlers but not Python's, where IPython would do this.
        // Call on the main thread, not in a cell. Never throws.
        void end_history_session() noexcept;

        // %cuda_restart: once the running cell is answered, the process is replaced by a new run
        // of the kernel (conforming_server.hpp), which loads the namespace the cell saved
        // (xcuda/_restart.py). `release_descriptors` puts fd 1/2 back before the exec.
        void replace_after_this_cell();
        void set_release_descriptors(std::function<void()> release);

    private:
        void configure_impl() override;
        nl::json execute_request_impl(int execution_counter, const std::string& code, bool silent, bool store_history,
                                      nl::json user_expressions, bool allow_stdin) override;
        nl::json complete_request_impl(const std::string& code, int cursor_pos) override;
        nl::json inspect_request_impl(const std::string& code, int cursor_pos, int detail_level) override;
        nl::json is_complete_request_impl(const std::string& code) override;
        nl::json kernel_info_request_impl() override;
        void shutdown_request_impl() override;
        // From the control thread (the debugger), run here on the main thread between requests.
        nl::json internal_request_impl(const nl::json& message) override;

        nl::json run_cell(int execution_counter, const std::string& code, bool silent, bool store_history,
                          nl::json user_expressions, bool allow_stdin);
        void import_shell_modules();
        void build_shell_once();  // never throws: a failure is kept in m_shell_failure
        void ensure_shell();      // throws that failure
        void build_shell();
        void report_startup_problems();

        python_output& m_output;
        interrupt_router& m_interrupts;
        nl::json m_kernel_info;
        std::string m_startup_problems;
        // xcuda._hosted_shell and the shell it built; released after the GIL is taken back.
        pybind11::object m_glue;
        pybind11::object m_shell;
        // The main thread's hold on the GIL from start-up, given up in configure_impl so
        // the import thread can run (xeus-python gives it up the same way).
        std::unique_ptr<pybind11::gil_scoped_release> m_gil_given_up;
        std::thread m_shell_imports;
        std::string m_shell_import_problems;  // written by that thread, read after join
        bool m_shell_built = false;
        std::string m_shell_failure;  // why building the shell failed, if it did
        bool m_replace_requested = false;
        std::function<void()> m_release_descriptors;
    };
}

#pragma once

#include <string>

#include <nlohmann/json.hpp>
#include <xeus-python/xinterpreter.hpp>

#include "interrupt_router.hpp"
#include "python_output.hpp"

namespace xcuda::kernel
{
    // xeus-python's interpreter with what the xcuda kernel adds: interrupts that reach the
    // cell, C-level output that reaches the cell, the %%cuda magics, and handlers that
    // always answer (xeus 2.4.1 logs an escaping exception and sends no reply, which
    // leaves the frontend waiting forever).
    class xcuda_interpreter final : public xpyt::interpreter
    {
    public:
        xcuda_interpreter(python_output& output, interrupt_router& interrupts);

    private:
        void configure_impl() override;
        nl::json execute_request_impl(int execution_counter,
                                      const std::string& code,
                                      bool silent,
                                      bool store_history,
                                      nl::json user_expressions,
                                      bool allow_stdin) override;
        nl::json complete_request_impl(const std::string& code, int cursor_pos) override;
        nl::json inspect_request_impl(const std::string& code, int cursor_pos, int detail_level) override;
        nl::json is_complete_request_impl(const std::string& code) override;
        nl::json kernel_info_request_impl() override;
        void shutdown_request_impl() override;
        nl::json internal_request_impl(const nl::json& content) override;

        nl::json run_cell(int execution_counter,
                          const std::string& code,
                          bool silent,
                          bool store_history,
                          nl::json user_expressions,
                          bool allow_stdin);
        void report_startup_problems();
        void name_errors_like_ipykernel();

        python_output& m_output;
        interrupt_router& m_interrupts;
        nl::json m_kernel_info;
        std::string m_startup_problems;
    };
}

#pragma once

#include <functional>

#include <nlohmann/json.hpp>
#include <xeus/xhistory_manager.hpp>

namespace xcuda::kernel
{
    // history_request answered from IPython's history (its sqlite database in the profile
    // directory), as ipykernel answers it: earlier sessions too, with IPython's numbering.
    // IPython stores each cell itself while running it, so xeus's store_inputs does nothing.
    //
    // Knows neither Python nor the shell: each request goes, as {"hist_access_type": ...,
    // plus the fields xeus parsed with its defaults}, to `ask`, which returns the reply.
    class shell_history final : public xeus::xhistory_manager
    {
    public:
        using asker = std::function<nl::json(const nl::json& query)>;

        explicit shell_history(asker ask);

    private:
        void configure_impl() override;
        void store_inputs_impl(int session, int line_num, const std::string& input, const std::string& output) override;
        nl::json get_tail_impl(int n, bool raw, bool output) const override;
        nl::json get_range_impl(int session, int start, int stop, bool raw, bool output) const override;
        nl::json search_impl(const std::string& pattern, bool raw, bool output, int n, bool unique) const override;

        asker m_ask;
    };
}

#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xeus/xhistory_manager.hpp>

namespace xcuda::kernel
{
    // The inputs of this kernel session, answering history_request as the protocol says.
    // xeus 2.4.1's in-memory manager does not: its tail returns the oldest entries, its
    // entries are strings with a fourth field even without output, and search throws
    // (xeus then sends no reply at all).
    class execution_history final : public xeus::xhistory_manager
    {
    public:
        // Session numbers start at 1 like IPython's; 0 in a request means this session.
        static constexpr int session = 1;

    private:
        struct entry
        {
            int line;
            std::string input;
            std::string output;
        };

        void configure_impl() override;
        // xeus passes a line number it does not track (always the request's missing
        // execution_count); entries are numbered here, in storing order, from 1.
        void store_inputs_impl(int session, int line_num, const std::string& input,
                               const std::string& output) override;
        nl::json get_tail_impl(int n, bool raw, bool output) const override;
        nl::json get_range_impl(int session, int start, int stop, bool raw, bool output) const override;
        nl::json search_impl(const std::string& pattern, bool raw, bool output, int n,
                             bool unique) const override;

        nl::json reply(std::vector<const entry*> entries, bool output) const;

        std::vector<entry> m_entries;
    };
}

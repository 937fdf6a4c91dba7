#include "shell_history.hpp"

#include <utility>

namespace xcuda::kernel
{
    shell_history::shell_history(asker ask)
        : m_ask(std::move(ask))
    {}

    void shell_history::configure_impl() {}

    void shell_history::store_inputs_impl(int, int, const std::string&, const std::string&) {}

    nl::json shell_history::get_tail_impl(int n, bool raw, bool output) const
    {
        return m_ask({{"hist_access_type", "tail"}, {"n", n}, {"raw", raw}, {"output", output}});
    }

    nl::json shell_history::get_range_impl(int session, int start, int stop, bool raw, bool output) const
    {
        return m_ask({{"hist_access_type", "range"},
                      {"session", session},
                      {"start", start},
                      {"stop", stop},
                      {"raw", raw},
                      {"output", output}});
    }

    nl::json shell_history::search_impl(const std::string& pattern, bool raw, bool output, int n, bool unique) const
    {
        return m_ask({{"hist_access_type", "search"},
                      {"pattern", pattern},
                      {"raw", raw},
                      {"output", output},
                      {"n", n},
                      {"unique", unique}});
    }
}

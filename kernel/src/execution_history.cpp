#include "execution_history.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <set>

namespace xcuda::kernel
{
    void execution_history::configure_impl()
    {
    }

    void execution_history::store_inputs_impl(int, int, const std::string& input, const std::string& output)
    {
        m_entries.push_back({static_cast<int>(m_entries.size()) + 1, input, output});
    }

    nl::json execution_history::reply(std::vector<const entry*> entries, bool output) const
    {
        nl::json history = nl::json::array();
        for (const entry* e : entries)
        {
            if (output)
            {
                history.push_back({session, e->line, {e->input, e->output}});
            }
            else
            {
                history.push_back({session, e->line, e->input});
            }
        }
        return {{"status", "ok"}, {"history", std::move(history)}};
    }

    nl::json execution_history::get_tail_impl(int n, bool, bool output) const
    {
        std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(std::max(n, 0)), m_entries.size());
        std::vector<const entry*> selected;
        for (auto it = m_entries.end() - static_cast<std::ptrdiff_t>(count); it != m_entries.end(); ++it)
        {
            selected.push_back(&*it);
        }
        return reply(std::move(selected), output);
    }

    nl::json execution_history::get_range_impl(int requested_session, int start, int stop, bool, bool output) const
    {
        std::vector<const entry*> selected;
        // Only this session's inputs are kept; any other session has none.
        if (requested_session == 0 || requested_session == session)
        {
            for (const entry& e : m_entries)
            {
                if (e.line >= start && (stop <= 0 || e.line < stop))
                {
                    selected.push_back(&e);
                }
            }
        }
        return reply(std::move(selected), output);
    }

    nl::json execution_history::search_impl(const std::string& pattern, bool, bool output, int n, bool unique) const
    {
        // Newest first while selecting, so n and unique keep the most recent matches.
        std::vector<const entry*> selected;
        std::set<std::string> seen;
        for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it)
        {
            if (n > 0 && selected.size() >= static_cast<std::size_t>(n))
            {
                break;
            }
            if (::fnmatch(pattern.c_str(), it->input.c_str(), 0) != 0)
            {
                continue;
            }
            if (unique && !seen.insert(it->input).second)
            {
                continue;
            }
            selected.push_back(&*it);
        }
        std::reverse(selected.begin(), selected.end());
        return reply(std::move(selected), output);
    }
}

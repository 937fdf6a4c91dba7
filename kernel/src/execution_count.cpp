#include "execution_count.hpp"

#include <atomic>

namespace xcuda::kernel
{
    namespace
    {
        // Written by the main thread after a cell, read by whichever thread publishes.
        std::atomic<int> next_count{1};
    }

    void set_next_execution_count(int next)
    {
        next_count = next;
    }

    void renumber(const std::string& msg_type, nlohmann::json& content)
    {
        if (!content.is_object())
        {
            return;
        }
        if (msg_type == "execute_input")
        {
            content["execution_count"] = next_count.load();
        }
        else if (msg_type == "execute_reply")
        {
            content["execution_count"] = next_count.load() - 1;
        }
    }
}

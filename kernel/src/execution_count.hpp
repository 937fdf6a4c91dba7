#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace xcuda::kernel
{
    // The execution count frontends see is IPython's, as in ipykernel. xeus 2.4.1 numbers
    // execute_input and execute_reply with a counter of its own that every non-silent request
    // advances, store_history=false ones too, while IPython advances only for stored cells:
    // after one such request the reply's number ran one ahead of Out[N], the traceback's
    // "Cell In[N]" and %history. The server renumbers both messages from the shell's count.

    // The shell's execution_count after a cell: the number the next stored cell takes
    // (1 until the first cell has run). Set on the main thread after each cell.
    void set_next_execution_count(int next);

    // Gives an execute_input the number its cell takes if stored (the shell's count before
    // it runs), and an execute_reply the last stored cell's (the count after it ran, less
    // one), as ipykernel numbers them. Other messages are left as they are.
    void renumber(const std::string& msg_type, nlohmann::json& content);
}

#pragma once

#include <exception>
#include <string>

#include <nlohmann/json.hpp>

namespace xcuda::kernel
{
    // The reply a handler sends when the kernel itself failed (not the user's code): the
    // request is answered, and the message says which request failed and why.
    nlohmann::json kernel_error_reply(const std::string& request, std::exception_ptr error);

    // Runs handler; any exception becomes kernel_error_reply(request, ...).
    template <class Handler>
    nlohmann::json answer_always(const std::string& request, Handler&& handler)
    {
        try
        {
            return handler();
        }
        catch (...)
        {
            return kernel_error_reply(request, std::current_exception());
        }
    }
}

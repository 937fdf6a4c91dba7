#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace xcuda::kernel
{
    // Whether a request's content fields have the types the messaging protocol (5.3) gives
    // them: "" when they do, else what is wrong ("execute_request: 'code' must be a string,
    // not number"). A field may be missing (xeus takes its default); present with another
    // type, xeus 2.4.1 throws inside its handler and the request gets no reply at all.
    std::string field_type_problem(const std::string& msg_type, const nlohmann::json& content);

    // Requests that get a reply (msg_type "X_request"); comm messages and input_reply do not.
    bool expects_reply(const std::string& msg_type);
}

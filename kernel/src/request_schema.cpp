#include "request_schema.hpp"

#include <map>
#include <utility>
#include <vector>

namespace xcuda::kernel
{
    namespace
    {
        enum class kind
        {
            string,
            boolean,
            integer,
            object,
        };

        const char* name_of(kind k)
        {
            switch (k)
            {
                case kind::string:
                    return "a string";
                case kind::boolean:
                    return "true or false";
                case kind::integer:
                    return "an integer";
                case kind::object:
                    return "an object";
            }
            return "";
        }

        bool matches(kind k, const nlohmann::json& value)
        {
            switch (k)
            {
                case kind::string:
                    return value.is_string();
                case kind::boolean:
                    return value.is_boolean();
                case kind::integer:
                    return value.is_number_integer();
                case kind::object:
                    return value.is_object();
            }
            return false;
        }

        using fields = std::vector<std::pair<const char*, kind>>;

        // The fields xeus 2.4.1 reads with json::value() for each message it handles.
        const std::map<std::string, fields>& schema()
        {
            static const std::map<std::string, fields> table = {
                {"execute_request",
                 {{"code", kind::string},
                  {"silent", kind::boolean},
                  {"store_history", kind::boolean},
                  {"user_expressions", kind::object},
                  {"allow_stdin", kind::boolean},
                  {"stop_on_error", kind::boolean}}},
                {"complete_request", {{"code", kind::string}, {"cursor_pos", kind::integer}}},
                {"inspect_request",
                 {{"code", kind::string}, {"cursor_pos", kind::integer}, {"detail_level", kind::integer}}},
                {"is_complete_request", {{"code", kind::string}}},
                {"history_request",
                 {{"hist_access_type", kind::string},
                  {"output", kind::boolean},
                  {"raw", kind::boolean},
                  {"session", kind::integer},
                  {"start", kind::integer},
                  {"stop", kind::integer},
                  {"n", kind::integer},
                  {"pattern", kind::string},
                  {"unique", kind::boolean}}},
                {"comm_info_request", {{"target_name", kind::string}}},
                {"shutdown_request", {{"restart", kind::boolean}}},
                {"comm_open", {{"comm_id", kind::string}, {"target_name", kind::string}, {"data", kind::object}}},
                {"comm_msg", {{"comm_id", kind::string}, {"data", kind::object}}},
                {"comm_close", {{"comm_id", kind::string}, {"data", kind::object}}},
                {"input_reply", {{"value", kind::string}}},
            };
            return table;
        }

        std::string type_name(const nlohmann::json& value)
        {
            return value.is_number_integer() ? "integer" : value.type_name();
        }
    }

    std::string field_type_problem(const std::string& msg_type, const nlohmann::json& content)
    {
        auto it = schema().find(msg_type);
        if (it == schema().end())
        {
            return {};
        }
        for (const auto& [field, expected] : it->second)
        {
            auto value = content.find(field);
            if (value != content.end() && !matches(expected, *value))
            {
                return msg_type + ": '" + field + "' must be " + name_of(expected) + ", not " + type_name(*value);
            }
        }
        return {};
    }

    bool expects_reply(const std::string& msg_type)
    {
        const std::string suffix = "_request";
        return msg_type.size() > suffix.size()
               && msg_type.compare(msg_type.size() - suffix.size(), suffix.size(), suffix) == 0;
    }
}

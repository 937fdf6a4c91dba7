#include "stopped_frame_variables.hpp"

#include <array>
#include <cctype>

namespace xcuda::kernel
{
    namespace
    {
        // xeus-python-shell's list (xeus_python_shell/debugger.py): what IPython and the kernel
        // put in a notebook's namespace.
        constexpr std::array<const char*, 20> kernel_names = {
            "__name__",     "__doc__",     "__package__", "__loader__",  "__spec__", "__annotations__",
            "__builtins__", "__builtin__", "__display__", "get_ipython", "debugpy",  "exit",
            "quit",         "In",          "Out",         "_oh",         "_dh",      "_",
            "__",           "___"};

        bool is_ascii_digit(char c)
        {
            return c >= '0' && c <= '9';
        }

        // A Python string's repr (what debugpy returns without rawString) back to the string.
        // The text is JSON made with ensure_ascii: printable ASCII, so repr escapes only the
        // backslash and the quote; anything else is said, not guessed.
        std::optional<std::string> from_repr(const std::string& repr)
        {
            if (repr.size() < 2 || (repr.front() != '\'' && repr.front() != '"') || repr.back() != repr.front())
            {
                return std::nullopt;
            }
            std::string text;
            for (std::size_t i = 1; i + 1 < repr.size(); ++i)
            {
                char c = repr[i];
                if (c == '\\')
                {
                    if (i + 2 >= repr.size())
                    {
                        return std::nullopt;
                    }
                    c = repr[++i];
                    if (c != '\\' && c != '\'' && c != '"')
                    {
                        return std::nullopt;
                    }
                }
                text += c;
            }
            return text;
        }
    }

    bool is_kernel_variable_name(const std::string& name)
    {
        for (const char* kernel_name : kernel_names)
        {
            if (name == kernel_name)
            {
                return true;
            }
        }
        // _1, _2 (outputs), _i, _ii, _i1 (inputs)
        return (name.size() >= 2 && name[0] == '_' && is_ascii_digit(name[1])) || name.compare(0, 2, "_i") == 0;
    }

    nl::json without_kernel_names(const nl::json& request, const nl::json& reply)
    {
        if (!reply.value("success", false) || !reply.contains("body") || !reply["body"].contains("variables")
            || !reply["body"]["variables"].is_array())
        {
            return reply;
        }
        nl::json kept = nl::json::array();
        for (const nl::json& variable : reply["body"]["variables"])
        {
            if (!variable.is_object() || !variable.contains("name") || !variable["name"].is_string()
                || !is_kernel_variable_name(variable["name"].get<std::string>()))
            {
                kept.push_back(variable);
            }
        }
        nl::json filtered = reply;
        filtered["body"]["variables"] = std::move(kept);
        filtered["request_seq"] = request.value("seq", reply.value("request_seq", nl::json(0)));
        return filtered;
    }

    bool is_python_name(const std::string& name)
    {
        if (name.empty() || is_ascii_digit(name[0]))
        {
            return false;
        }
        for (char c : name)
        {
            const auto byte = static_cast<unsigned char>(c);
            if (byte < 0x80 && !std::isalnum(byte) && c != '_')
            {
                return false;
            }
        }
        return true;
    }

    nl::json rendering_request(const std::string& name, const nl::json& frame_id, int seq)
    {
        return {{"type", "request"},
                {"command", "evaluate"},
                {"seq", seq},
                {"arguments",
                 {{"expression",
                   "__import__('xcuda._python_debugger', fromlist=['display_json']).display_json(" + name + ")"},
                  {"frameId", frame_id},
                  {"context", "clipboard"},
                  {"format", {{"rawString", true}}}}}};
    }

    rendering read_rendering(const std::string& name, const nl::json& evaluate_reply)
    {
        rendering result;
        if (!evaluate_reply.value("success", false))
        {
            result.problem = evaluate_reply.value("message", name + " could not be evaluated in the stopped frame");
            return result;
        }
        std::string text;
        if (evaluate_reply.contains("body") && evaluate_reply["body"].contains("result")
            && evaluate_reply["body"]["result"].is_string())
        {
            text = evaluate_reply["body"]["result"].get<std::string>();
        }
        if (!text.empty() && text.front() != '[')
        {
            text = from_repr(text).value_or("");
        }
        nl::json parsed = nl::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (!parsed.is_array() || parsed.size() != 2 || !parsed[0].is_object() || !parsed[1].is_object())
        {
            result.problem = "the rendering of " + name + " came back from debugpy in a form the kernel cannot read: "
                             + evaluate_reply.dump().substr(0, 200);
            return result;
        }
        result.data = std::move(parsed[0]);
        result.metadata = std::move(parsed[1]);
        return result;
    }
}

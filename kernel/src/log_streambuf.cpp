#include "log_streambuf.hpp"

#include "shell_bridge.hpp"

namespace xcuda::kernel
{
    namespace
    {
        const std::string xeus_debugger_chatter = "XDEBUGGER: ";
    }

    log_streambuf::int_type log_streambuf::overflow(int_type c)
    {
        if (!traits_type::eq_int_type(c, traits_type::eof()))
        {
            const char ch = traits_type::to_char_type(c);
            std::lock_guard<std::mutex> lock(m_mutex);
            append(&ch, 1);
        }
        return traits_type::not_eof(c);
    }

    std::streamsize log_streambuf::xsputn(const char* text, std::streamsize count)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        append(text, static_cast<std::size_t>(count));
        return count;
    }

    int log_streambuf::sync()
    {
        // std::endl and flush: a line without its newline yet waits for the rest.
        return 0;
    }

    void log_streambuf::append(const char* text, std::size_t count)
    {
        for (std::size_t i = 0; i < count; ++i)
        {
            m_line.push_back(text[i]);
            if (text[i] == '\n')
            {
                emit_line();
            }
        }
    }

    void log_streambuf::emit_line()
    {
        if (m_line.compare(0, xeus_debugger_chatter.size(), xeus_debugger_chatter) != 0)
        {
            write_log(m_line);
        }
        m_line.clear();
    }
}

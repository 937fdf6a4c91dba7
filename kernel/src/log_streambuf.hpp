#pragma once

#include <mutex>
#include <streambuf>
#include <string>

namespace xcuda::kernel
{
    // std::clog's buffer while the kernel serves: whole lines go to the kernel's log (write_log:
    // the stderr it was started with), never into fd 2, which is captured into the running
    // cell. Lines xeus's debugger writes on every request ("XDEBUGGER: dumped /tmp/...", one per
    // cell JupyterLab dumps as it is edited) are dropped. Safe to write from several threads.
    class log_streambuf final : public std::streambuf
    {
    protected:
        int_type overflow(int_type c) override;
        std::streamsize xsputn(const char* text, std::streamsize count) override;
        int sync() override;

    private:
        void append(const char* text, std::size_t count);  // holding m_mutex
        void emit_line();                                  // holding m_mutex

        std::mutex m_mutex;
        std::string m_line;
    };
}

#include "parent_watch.hpp"
#include "shell_bridge.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace xcuda::kernel
{
    namespace
    {
        constexpr std::chrono::seconds poll_period{1};

        // JPY_PARENT_PID as a pid, or 0 when unset or not a number.
        pid_t named_parent()
        {
            const char* text = std::getenv("JPY_PARENT_PID");
            if (text == nullptr || *text == '\0')
            {
                return 0;
            }
            char* end = nullptr;
            long value = std::strtol(text, &end, 10);
            return (*end == '\0' && value > 1) ? static_cast<pid_t>(value) : 0;
        }
    }

    parent_watch::parent_watch()
    {
        pid_t named = named_parent();
        if (named == 0)
        {
            return;
        }
        // Named parent still ours: watch for it to change. Already gone or not our parent (a
        // launcher in between): watch for the orphan's reparenting to init, as ipykernel does.
        bool known = ::getppid() == named;
        m_thread = std::thread([this, named, known] { watch(named, known); });
    }

    parent_watch::~parent_watch()
    {
        if (m_thread.joinable())
        {
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_stopping = true;
            }
            m_wake.notify_all();
            m_thread.join();
        }
    }

    void parent_watch::watch(pid_t parent, bool parent_known)
    {
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_wake.wait_for(lock, poll_period, [this] { return m_stopping; }))
        {
            pid_t now = ::getppid();
            if ((parent_known && now != parent) || (!parent_known && now == 1))
            {
                write_log("xcuda: the frontend that started this kernel (pid " + std::to_string(parent)
                          + ") has exited; the kernel exits too\n");
                // As ipykernel: at once. No frontend is left to answer, and a clean shutdown
                // could wait on a cell that never ends.
                ::_exit(1);
            }
        }
    }
}

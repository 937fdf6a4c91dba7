#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace xcuda::kernel
{
    // Ends the kernel when the frontend that started it dies, as ipykernel's parent poller
    // does: jupyter_client names itself in JPY_PARENT_PID, and once that process is gone (the
    // kernel was reparented) nothing can reach the kernel again, so it would run for ever.
    // Without JPY_PARENT_PID (started by hand, or by a launcher that forks away) nothing is
    // watched. Checks once a second, from a thread of its own: a cell stuck in C code or
    // holding the GIL does not stop it.
    class parent_watch
    {
    public:
        parent_watch();
        ~parent_watch();
        parent_watch(const parent_watch&) = delete;
        parent_watch& operator=(const parent_watch&) = delete;

    private:
        void watch(pid_t parent, bool parent_known);

        std::mutex m_mutex;
        std::condition_variable m_wake;
        bool m_stopping = false;
        std::thread m_thread;
    };
}

#include "shutdown_watchdog.hpp"

#include <unistd.h>

#include <thread>

namespace xcuda::kernel
{
    void exit_after(std::chrono::milliseconds grace)
    {
        std::thread([grace] {
            std::this_thread::sleep_for(grace);
            // _exit: no atexit handlers or static destructors, which could wait on the
            // very thread that is stuck.
            ::_exit(0);
        }).detach();
    }
}

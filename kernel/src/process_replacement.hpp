#pragma once

#include <functional>
#include <string>

namespace xcuda::kernel
{
    // Replaces this process by a new run of its own command line (/proc/self/cmdline, its first
    // word as given): the same pid and arguments (the connection file: the same ports and
    // key, so the frontend keeps talking to the kernel), the environment as it is now. Every
    // descriptor above 2 is closed by the exec, the kernel's sockets with them, so their ports are
    // free for the new run to bind; a GPU context and whatever kernel it still runs end with the
    // old image. `before` runs last (it puts fd 1 and 2 back where they pointed at start-up).
    // Returns only when the exec failed, saying why.
    std::string replace_this_process(const std::function<void()>& before);
}

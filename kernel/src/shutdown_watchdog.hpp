#pragma once

#include <chrono>

namespace xcuda::kernel
{
    // Ends the process after grace unless it ended by itself. A shutdown or restart must
    // not wait on a main thread stuck in a long C call (a GPU wait, a C extension): the
    // control thread answers, then this guarantees the exit.
    void exit_after(std::chrono::milliseconds grace);
}

#pragma once

#include <cstdint>

namespace xcuda::kernel
{
    // Marks the main thread's wait for an input_reply (input(), getpass()). An interrupt
    // forwarded just before xeus's blocking recv starts would trip Python's flag without
    // breaking the recv; interrupt_router keeps waking the main thread while the wait that
    // was current at the interrupt lasts.
    class stdin_wait_scope
    {
    public:
        stdin_wait_scope();
        ~stdin_wait_scope();
        stdin_wait_scope(const stdin_wait_scope&) = delete;
        stdin_wait_scope& operator=(const stdin_wait_scope&) = delete;

        // 0 when the main thread is not waiting; otherwise which wait it is (never reused).
        static std::uint64_t current();
    };
}

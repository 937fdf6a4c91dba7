// Waits on the GPU poll instead of blocking, so the caller can abandon them.
#pragma once

#include <functional>

namespace xcuda::rt {

// Installed once by the host application (the kernel: "was SIGINT seen?"). Called between
// polls; when it returns true the wait throws Interrupted. Thread-safe; pass {} to remove.
void set_interrupt_check(std::function<bool()> check);

// Polls `ready` with sleeps growing from 20 us to 1 ms until it returns true; throws
// Interrupted when the interrupt check fires. `ready` may throw (e.g. DriverError).
void poll_until(const std::function<bool()>& ready, const char* what);

}  // namespace xcuda::rt

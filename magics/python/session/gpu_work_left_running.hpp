#pragma once
// The GPU work an interrupt left running (rt/interrupted_work.hpp), in the notebook's terms:
// which kernel, launched by which cell. While it runs, what needs the GPU fails at once with
// KernelStillRunningError instead of waiting unawares for a kernel that may never end; plain
// Python cells run as usual, and a cell's closing synchronisation does not wait for it.
#include <optional>
#include <string>

namespace xcuda::magics {

// At a KeyboardInterrupt out of a wait (errors.cpp): remembers what was left running, if anything.
void note_interrupt_of_a_wait();

// What still runs ("kernel `spin`, launched by cell [5]"), or nullopt once it has ended.
std::optional<std::string> gpu_work_left_running();

// Throws rt::InterruptedWorkRunning, saying what runs and what to do, while it runs.
void refuse_while_gpu_work_left_running();

}  // namespace xcuda::magics

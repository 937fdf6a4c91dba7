// What an interrupted wait leaves behind on a GPU. A GPU cannot stop one kernel: the work the
// wait was for goes on, and the driver calls that synchronise implicitly (cuMemFree,
// cuMemFreeHost, cuModuleUnload, cuCtxSynchronize, the synchronous copies, the primary context's
// release) would block their caller, deaf to interrupts, until it ends: forever, for a kernel
// that spins. So at the interrupt the runtime marks where every stream it knows stood (an event
// recorded on each), the releases that would wait are kept for later, and callers can ask,
// without waiting, whether that work still runs. (On the CPU device an interrupt stops the
// kernels: nothing is left running.)
#pragma once

#include <xcuda/rt/errors.hpp>

#include <string>

namespace xcuda::rt {

// True while work that an interrupted wait on this thread's device left running has not ended.
// Never blocks. Once it has ended, the releases kept meanwhile are done and the mark is cleared.
bool interrupted_work_running();

// Thrown where the device is needed while interrupted work runs (the magics say which kernel).
class InterruptedWorkRunning : public CudaError {
public:
    using CudaError::CudaError;
};

}  // namespace xcuda::rt

#pragma once
// Which device xcuda launches and allocates on (%cuda_device N, Device(N).use()), the primary
// contexts retained for it, and what has been launched since the last synchronisation (so a
// cell that launched waits for its kernels before it ends).
#include <xcuda/rt/context.hpp>

namespace xcuda::magics {

// The selected device ordinal: until one is selected, the default ($XCUDA_DEVICE: the first GPU,
// else the CPU device, rt::cpu_device_ordinal).
int current_device();
// Selects `ordinal` (a GPU, or rt::cpu_device_ordinal) for later launches and allocations.
// Raises ValueError naming the valid range when no such device exists.
void select_device(int ordinal);

// Retains (first time) and makes current on this thread the primary context of the selected
// device, or of `ordinal`. Throws NoDeviceError without a GPU.
const rt::PrimaryContext& activate();
const rt::PrimaryContext& activate(int ordinal);
// activate(ordinal) without asking whether an interrupt left GPU work running: for a plain launch,
// which knows that none is (session/launch_detours.hpp).
const rt::PrimaryContext& make_context_current(int ordinal);

// Launch bookkeeping for the post-cell synchronisation.
void note_launch();
bool launched_since_sync();
void note_synchronized();

// Waits (interruptibly, without the GIL) for all work of the selected device's context.
void synchronize_current();

}  // namespace xcuda::magics

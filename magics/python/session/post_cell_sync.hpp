#pragma once
// A cell that launched kernels waits for them before it ends, so their printf output and
// their errors appear in that cell (IPython's post_run_cell event).
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// Registers / unregisters the callback on `ip.events` (idempotent).
void register_post_cell_sync(pybind11::object ip);
void unregister_post_cell_sync(pybind11::object ip);

// Whether cells synchronise (xcuda.sync_after_cell(False) turns it off).
void set_sync_after_cell(bool enabled);

}  // namespace xcuda::magics

#pragma once
// Ctrl-C during a GPU wait: the runtime's waits poll and ask an interrupt check between polls.
// Ours runs Python's signal handlers (PyErr_CheckSignals, with the GIL) so SIGINT's
// KeyboardInterrupt, or whatever a user's handler raises, surfaces from the wait.
#include <pybind11/pybind11.h>

namespace xcuda::magics {

// Installs the check in the runtime (rt::set_interrupt_check).
void install_interrupt_check();

// Called by the exception translator for rt::Interrupted: re-raises the exception the signal
// handler raised during the wait (KeyboardInterrupt when none was kept).
void restore_interrupt_error();

// Runs `wait` with the GIL released, so the poll loop does not hold it between polls.
template <typename Wait>
void wait_without_gil(Wait&& wait) {
    pybind11::gil_scoped_release release;
    wait();
}

}  // namespace xcuda::magics

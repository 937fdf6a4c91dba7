"""A segfault in native code, through the real kernel process: it kills the kernel, and a kernel
restarted as a frontend's restarter does answers within 10 s."""

import time

import pytest

from conftest import connect, execute, wait_for_death

RESTART_BUDGET_S = 10.0


@pytest.mark.parametrize("code", [
    "import ctypes; ctypes.string_at(0)",
    "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)",
], ids=["null_read", "sigsegv"])
def test_segfault_kills_the_kernel_and_a_restarted_one_answers_within_10_s(fresh_isolated_kernel, code):
    km, kc = fresh_isolated_kernel
    kc.execute(code)
    assert wait_for_death(km, 10), "the kernel survived a segfault: the fault did not happen"
    # What a frontend's restarter does on seeing the process gone.
    start = time.monotonic()
    km.restart_kernel(now=True)
    kc.stop_channels()
    kc2 = connect(km)
    try:
        reply, _ = execute(kc2, "1 + 1", timeout=RESTART_BUDGET_S)
        elapsed = time.monotonic() - start
        assert reply["content"]["status"] == "ok"
        assert elapsed < RESTART_BUDGET_S, f"restarted kernel answered after {elapsed:.1f} s"
    finally:
        kc2.stop_channels()


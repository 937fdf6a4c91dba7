"""SIGINT (the kernelspec's interrupt mode) raises KeyboardInterrupt in the running cell
within a second, whatever the cell is doing, and the kernel lives on."""

import threading
import time

import pytest

from conftest import collect, execute, shell_reply

INTERRUPT_BUDGET_S = 1.0

CELLS = {
    "sleep": "import time; time.sleep(30)",
    "busy_loop": "while True: pass",
    "busy_arithmetic": "i = 0\nwhile True: i += 1",
    "c_sleep_select": "import select; select.select([], [], [], 30)",
}


def interrupt_and_time(km, kc, msg_id):
    # Let the cell get going first.
    time.sleep(0.5)
    start = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=10)
    elapsed = time.monotonic() - start
    return reply, elapsed


def assert_alive_and_fast(kc):
    start = time.monotonic()
    reply = kc.kernel_info(reply=True, timeout=5)
    assert reply["content"]["status"] == "ok"
    assert time.monotonic() - start < INTERRUPT_BUDGET_S
    reply, messages = execute(kc, "print('still here')")
    assert reply["content"]["status"] == "ok"


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_interrupt_raises_keyboardinterrupt_within_a_second(kernel, cell):
    km, kc = kernel
    msg_id = kc.execute(CELLS[cell])
    reply, elapsed = interrupt_and_time(km, kc, msg_id)
    messages = collect(kc, msg_id)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert elapsed < INTERRUPT_BUDGET_S, f"KeyboardInterrupt after {elapsed:.2f} s"
    assert [m["content"]["ename"] for m in messages if m["msg_type"] == "error"] == ["KeyboardInterrupt"]
    assert_alive_and_fast(kc)


def test_interrupt_during_input_ends_the_wait_and_stdin_still_works(kernel):
    km, kc = kernel
    msg_id = kc.execute("input('waiting: ')", allow_stdin=True)
    assert kc.get_stdin_msg(timeout=10)["msg_type"] == "input_request"
    start = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=10)
    elapsed = time.monotonic() - start
    collect(kc, msg_id)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert elapsed < INTERRUPT_BUDGET_S
    assert_alive_and_fast(kc)
    # The stdin channel is not left waiting on the abandoned request.
    msg_id = kc.execute("answer = input('again: ')", allow_stdin=True)
    assert kc.get_stdin_msg(timeout=10)["content"]["prompt"] == "again: "
    kc.input("42")
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    collect(kc, msg_id)


def test_interrupt_between_cells_does_not_reach_the_next_cell(kernel):
    km, kc = kernel
    km.interrupt_kernel()
    time.sleep(0.3)
    reply, _ = execute(kc, "import time; time.sleep(0.2); 'fine'")
    assert reply["content"]["status"] == "ok"


def test_repeated_interrupts_all_land(kernel):
    km, kc = kernel
    for _ in range(5):
        msg_id = kc.execute("import time; time.sleep(30)")
        reply, elapsed = interrupt_and_time(km, kc, msg_id)
        collect(kc, msg_id)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert elapsed < INTERRUPT_BUDGET_S

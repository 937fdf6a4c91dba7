"""SIGINT (the kernelspec's interrupt mode) raises KeyboardInterrupt in the running cell
within a second, whatever the cell is doing, and the kernel lives on."""

import threading
import time

import pytest

from conftest import collect, execute, shell_reply

INTERRUPT_BUDGET_S = 1.0

STARTED = "print('started')\n"
CELLS = {
    "sleep": STARTED + "import time; time.sleep(30)",
    "busy_loop": STARTED + "while True: pass",
    "busy_arithmetic": STARTED + "i = 0\nwhile True: i += 1",
    "c_sleep_select": STARTED + "import select; select.select([], [], [], 30)",
    # asyncio.run takes SIGINT over only where it finds signal.default_int_handler.
    "asyncio_run": STARTED + "import asyncio; asyncio.run(asyncio.sleep(30))",
}


def wait_until_running(kc, msg_id):
    """An interrupt that comes before the cell runs is dropped, like one between cells:
    wait for the cell's own 'started' line."""
    while True:
        msg = kc.get_iopub_msg(timeout=10)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and "started" in msg["content"]["text"]):
            return


def interrupt_and_time(km, kc, msg_id):
    wait_until_running(kc, msg_id)
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
        msg_id = kc.execute(CELLS["sleep"])
        reply, elapsed = interrupt_and_time(km, kc, msg_id)
        collect(kc, msg_id)
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        assert elapsed < INTERRUPT_BUDGET_S


def test_interrupt_request_on_the_control_channel_interrupts_the_cell(kernel):
    km, kc = kernel
    msg_id = kc.execute(CELLS["sleep"])
    wait_until_running(kc, msg_id)
    start = time.monotonic()
    kc.control_channel.send(kc.session.msg("interrupt_request", {}))
    control = kc.get_control_msg(timeout=5)
    assert control["msg_type"] == "interrupt_reply"
    assert control["content"]["status"] == "ok"
    reply = shell_reply(kc, msg_id, timeout=10)
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert time.monotonic() - start < INTERRUPT_BUDGET_S
    collect(kc, msg_id)
    assert_alive_and_fast(kc)


def test_kernel_info_on_the_control_channel_is_answered_while_a_cell_runs(kernel):
    km, kc = kernel
    msg_id = kc.execute(CELLS["sleep"])
    wait_until_running(kc, msg_id)
    start = time.monotonic()
    kc.control_channel.send(kc.session.msg("kernel_info_request", {}))
    control = kc.get_control_msg(timeout=5)
    assert control["msg_type"] == "kernel_info_reply"
    assert control["content"]["implementation"] == "xcuda"
    assert time.monotonic() - start < INTERRUPT_BUDGET_S
    km.interrupt_kernel()
    shell_reply(kc, msg_id, timeout=10)
    collect(kc, msg_id)

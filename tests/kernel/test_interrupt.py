"""SIGINT (the kernelspec's interrupt mode) raises KeyboardInterrupt in the running cell
within a second, whatever the cell is doing, and the kernel lives on."""

import time

import pytest

from conftest import collect, execute, shell_reply, stream_text

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


# IPython's bookkeeping around a cell's code (its history's cache lock, the execution count's
# step) must not be cut by an interrupt; these slow it down so that the interrupt lands there.
SLOW_HISTORY = """
import time
_history = get_ipython().history_manager
def _slow(step, original):
    def slowed(*args, **kwargs):
        print(f'{step} begins', flush=True)
        time.sleep(0.5)
        result = original(*args, **kwargs)
        print(f'{step} ends', flush=True)
        return result
    return slowed
_history.{step} = _slow('{step}', _history.{step})
"""


def slow_history_step(kc, step):
    reply, _ = execute(kc, SLOW_HISTORY.replace("{step}", step))
    assert reply["content"]["status"] == "ok"


def interrupt_when_printed(km, kc, msg_id, text):
    while True:
        msg = kc.get_iopub_msg(timeout=10)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and text in msg["content"]["text"]):
            km.interrupt_kernel()
            return


def interrupt_during_history_step(kernel, step, code):
    """Runs code with IPython's history `step` slowed, interrupts the kernel while the step
    runs; returns the cell's reply and its messages."""
    km, kc = kernel
    slow_history_step(kc, step)
    msg_id = kc.execute(code)
    interrupt_when_printed(km, kc, msg_id, f"{step} begins")
    reply = shell_reply(kc, msg_id, timeout=10)
    return reply, collect(kc, msg_id)


def test_interrupt_while_ipython_stores_the_input_waits_for_the_cells_code(fresh_kernel):
    code = "import time; time.sleep(30)"
    reply, messages = interrupt_during_history_step(fresh_kernel, "store_inputs", code)
    _, kc = fresh_kernel
    # The input was stored whole, then the cell's own code was interrupted.
    assert "store_inputs ends" in stream_text(messages)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert_history_steps_on(kc, reply["content"]["execution_count"], code)


def test_interrupt_after_the_cells_code_ended_is_dropped_and_the_count_still_steps(fresh_kernel):
    code = "finished = True"
    reply, messages = interrupt_during_history_step(fresh_kernel, "store_output", code)
    _, kc = fresh_kernel
    assert "store_output ends" in stream_text(messages)
    assert reply["content"]["status"] == "ok"
    assert not [m for m in messages if m["msg_type"] == "error"]
    assert_history_steps_on(kc, reply["content"]["execution_count"], code)


def assert_history_steps_on(kc, count, code):
    """The cell's input is the history's row for its count, and the next cell gets the next
    count (one that did not step makes IPython's history thread report a duplicate row)."""
    reply, messages = execute(kc, f"print(repr(get_ipython().history_manager.input_hist_raw[{count}]))")
    assert reply["content"]["status"] == "ok"
    assert reply["content"]["execution_count"] == count + 1
    assert repr(code) in stream_text(messages).splitlines()

"""Requests a cell makes of its frontend through the execute_reply's payload, as ipykernel's
shell makes them: exit/quit end the session (and the kernel, unless kept), %load and
set_next_input put text in the next cell."""

import os
import sqlite3
import time

import pytest

from conftest import execute, start_kernel, stop_kernel

EXIT_BUDGET_S = 2.5


def wait_for_exit(km, budget=EXIT_BUDGET_S):
    deadline = time.monotonic() + budget
    while km.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    return not km.is_alive()


@pytest.mark.parametrize("code", ["exit", "quit()", "exit()"])
def test_exit_ends_the_session_and_then_the_kernel(fresh_kernel, code):
    km, kc = fresh_kernel
    # execute() returns after the reply and the idle: both reach the frontend before the end.
    reply, _ = execute(kc, code)
    assert reply["content"]["status"] == "ok"
    assert reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": False}]
    assert wait_for_exit(km), f"the kernel still runs {EXIT_BUDGET_S} s after {code!r}"


def test_exit_keeping_the_kernel_leaves_it_running(fresh_kernel):
    km, kc = fresh_kernel
    reply, _ = execute(kc, "exit(keep_kernel=True)")
    assert reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": True}]
    time.sleep(0.5)
    reply, _ = execute(kc, "'still here'")
    assert reply["content"]["status"] == "ok"
    assert km.is_alive()


def test_exit_closes_the_history_session_it_ends(tmp_path):
    ipython_dir = tmp_path / "ipython"
    km, kc = start_kernel(env=dict(os.environ, IPYTHONDIR=str(ipython_dir)))
    try:
        execute(kc, "last_words = 1")
        execute(kc, "exit")
        assert wait_for_exit(km)
    finally:
        stop_kernel(km, kc)
    with sqlite3.connect(ipython_dir / "profile_default" / "history.sqlite") as db:
        sources = [row[0] for row in db.execute("SELECT source_raw FROM history")]
        ended = [row[0] for row in db.execute("SELECT end FROM sessions")]
    assert sources == ["last_words = 1"]  # IPython never stores exit itself
    assert ended and all(ended), f"IPython's session end time was not written: {ended}"


def test_load_puts_the_files_text_in_the_next_cell(kernel, tmp_path):
    _, kc = kernel
    script = tmp_path / "loaded.py"
    script.write_text("print('from the file')\n")
    reply, _ = execute(kc, f"%load {script}")
    assert reply["content"]["status"] == "ok"
    (payload,) = reply["content"]["payload"]
    # %load asks to replace the cell it was typed in, and keeps itself as a comment
    assert payload == {"source": "set_next_input", "text": f"# %load {script}\nprint('from the file')\n",
                       "replace": True}


def test_set_next_input_from_code_adds_a_cell_once(kernel):
    _, kc = kernel
    reply, _ = execute(kc, "get_ipython().set_next_input('first')\nget_ipython().set_next_input('x = 1')")
    assert reply["content"]["payload"] == [{"source": "set_next_input", "text": "x = 1", "replace": False}]
    reply, _ = execute(kc, "1")
    assert reply["content"]["payload"] == []

"""%cuda_restart: the kernel replaces its own process (same pid, same connection file,
so the frontend stays connected) and the notebook's variables come back before the next cell;
history and the execution count go on; what cannot be saved is named. Without a GPU the kernels
of the notebook run on the CPU device (or, with XCUDA_DEVICE=none, not at all: that part skips).
"""
import time

import pytest

from conftest import (assert_answers_kernel_info, execute, kernel_env, run_ok, start_kernel, stop_kernel,
                      stream_text)

SETUP = """\
import os, math as m, numpy as np
big = np.arange(1_000_000, dtype=np.float64)
def inc(x):
    return x + 1
class Point:
    def __init__(self, x):
        self.x = x
p = Point(3)
square = lambda v: v * v
gen = (i for i in range(3))
handle = open(os.devnull)
before = os.getpid()
import ctypes
libc = ctypes.CDLL("libc.so.6")
"""

TWICE = '%%cuda\nextern "C" __global__ void twice(float* v) { v[threadIdx.x] *= 2.0f; }\n'


@pytest.fixture
def kernel(tmp_path):
    km, kc = start_kernel(env=kernel_env(tmp_path))
    yield km, kc
    stop_kernel(km, kc)


def test_cuda_restart_replaces_the_process_in_place_and_brings_the_variables_back(kernel):
    km, kc = kernel
    run_ok(kc, SETUP)
    run_ok(kc, TWICE)
    reply, messages = execute(kc, "%cuda_restart", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    said = stream_text(messages)
    assert said.startswith("Saved "), said
    assert "gen: generator" in said and "handle: TextIOWrapper" in said, said  # named, with why
    assert "libc" not in said, said  # a ctypes library is saved as its path, loaded again
    restart_count = reply["content"]["execution_count"]

    start = time.monotonic()
    reply, messages = execute(kc, "print(os.getpid() == before, big.sum(), inc(1), p.x, square(4), m.pi > 3,"
                                  " 'gen' in globals(), 'handle' in globals(), libc.abs(-7))", timeout=60)
    took = time.monotonic() - start
    assert reply["content"]["status"] == "ok", reply["content"]
    assert stream_text(messages).split() == ["True", "499999500000.0", "2", "3", "16", "True", "False", "False", "7"]
    assert reply["content"]["execution_count"] == restart_count + 1  # the count goes on
    [executing] = [m for m in messages if m["msg_type"] == "execute_input"]
    assert executing["content"]["execution_count"] == restart_count + 1  # the frontend's In [N]
    assert took < 30, f"the first cell after the restart answered after {took:.1f} s"
    assert_answers_kernel_info(kc)

    # History goes on across the restart: the cells before it are still there.
    msg_id = kc.history(hist_access_type="tail", n=10, output=False, raw=True)
    history = kc.get_shell_msg(timeout=20)
    assert history["parent_header"]["msg_id"] == msg_id
    inputs = [entry[2] for entry in history["content"]["history"]]
    assert any("%cuda_restart" in text for text in inputs), inputs


def test_a_kernel_of_the_notebook_launches_after_the_restart(kernel):
    km, kc = kernel
    run_ok(kc, "import numpy as np, xcuda")
    run_ok(kc, TWICE)
    reply, messages = execute(kc, "print(xcuda.device_available())")
    if stream_text(messages).strip() != "True":
        pytest.skip("no device here (XCUDA_DEVICE=none and no GPU): the restored kernel cannot launch")
    reply, _ = execute(kc, "%cuda_restart", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    reply, messages = execute(kc, "v = np.arange(4, dtype=np.float32)\ntwice[1, 4](v)\nprint(v.tolist())", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    assert stream_text(messages).strip().splitlines()[-1] == "[0.0, 2.0, 4.0, 6.0]"  # after the CPU device's notice


def test_cuda_restart_takes_no_arguments_and_says_what_it_does(kernel):
    km, kc = kernel
    reply, _ = execute(kc, "%cuda_restart now")
    assert reply["content"]["ename"] == "UsageError" and "no arguments" in reply["content"]["evalue"]
    reply, messages = execute(kc, "%cuda_restart -h")
    said = stream_text(messages)
    assert reply["content"]["status"] == "ok" and "fresh kernel process" in said and "saves the\nnamespace" in said


def test_cells_sent_behind_cuda_restart_run_in_the_new_process_with_their_output(kernel):
    # Run All sends every cell at once: those behind %cuda_restart are queued in the old process
    # when it is replaced. Each is answered once, by the new process, with its output.
    km, kc = kernel
    run_ok(kc, "import os\nx = 41")
    ids = [kc.execute("%cuda_restart"),
           kc.execute("print('XCUDA_RESTORE_FROM' in os.environ, x + 1)"),
           kc.execute("print('third', x)")]
    replies = {}
    while len(replies) < len(ids):
        reply = kc.get_shell_msg(timeout=60)
        replies[reply["parent_header"]["msg_id"]] = reply
    assert all(replies[i]["content"]["status"] == "ok" for i in ids), [replies[i]["content"] for i in ids]
    outputs = {i: "" for i in ids}
    idle = set()
    while idle != set(ids):
        msg = kc.get_iopub_msg(timeout=30)
        parent = msg["parent_header"].get("msg_id")
        if parent in outputs and msg["msg_type"] == "stream":
            outputs[parent] += msg["content"]["text"]
        if parent in outputs and msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            idle.add(parent)
    assert outputs[ids[1]].split() == ["False", "42"]  # run by the new process (it took the state)
    assert outputs[ids[2]].split() == ["third", "41"]

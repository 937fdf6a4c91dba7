"""The debugger on %%cuda cells, as JupyterLab drives it: setBreakpoints on the path dumpCell gave a
%%cuda cell, configurationDone, a Python cell that launches its kernel; then a `stopped` event for
the device thread, its stack (device frames above the launching cell's), scopes, variables,
evaluate, next, stepIn, stepOut, continue. The launch runs on the CPU device (on a GPU machine
too), so these run on CI."""

import queue
import textwrap
import time

import pytest

from conftest import collect, execute, shell_reply, stream_text
from test_debugger import debug, debugged_kernel, needs_debugpy, wait_for_event  # noqa: F401  (a fixture)

DEVICE_THREAD = 1_000_001

CUDA_CELL = textwrap.dedent("""\
    %%cuda
    __device__ float scale(float a, float v) {
        float r = a * v;
        return r;
    }
    extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            float t = scale(a, x[i]);
            y[i] = t + y[i];
        }
    }""")
LINE_I, LINE_T, LINE_Y, LINE_R = 7, 9, 10, 3

LAUNCH = textwrap.dedent("""\
    import numpy as np
    x = np.arange(64, dtype=np.float32)
    y = np.ones(64, np.float32)
    saxpy[2, 32](np.float32(2), x, y, np.int32(64))
    print("y[37] =", y[37])""")
LAUNCH_LINE = 4


def compile_and_break(kc, breakpoints):
    """Runs the %%cuda cell, dumps it as JupyterLab does and sets `breakpoints` on it."""
    reply, _ = execute(kc, CUDA_CELL)
    assert reply["content"]["status"] == "ok", reply["content"]
    path = debug(kc, "dumpCell", {"code": CUDA_CELL})["body"]["sourcePath"]
    reply = debug(kc, "setBreakpoints", {"breakpoints": breakpoints, "source": {"path": path},
                                         "sourceModified": False})
    assert reply["success"], reply
    assert debug(kc, "configurationDone")["success"]
    return path, reply["body"]["breakpoints"]


def stopped_frames(kc):
    stopped = wait_for_event(kc, "stopped", timeout=60)
    assert stopped["body"]["threadId"] == DEVICE_THREAD
    assert DEVICE_THREAD in debug(kc, "debugInfo")["body"]["stoppedThreads"]
    frames = debug(kc, "stackTrace", {"threadId": DEVICE_THREAD})["body"]["stackFrames"]
    return stopped, frames


def variables_of(kc, frame_id):
    scopes = {s["name"]: s for s in debug(kc, "scopes", {"frameId": frame_id})["body"]["scopes"]}
    out = {}
    for name, scope in scopes.items():
        variables = debug(kc, "variables", {"variablesReference": scope["variablesReference"]})["body"]["variables"]
        out[name] = {v["name"]: v for v in variables}
    return out


def evaluate(kc, frame_id, expression):
    return debug(kc, "evaluate", {"expression": expression, "frameId": frame_id, "context": "repl"})


@needs_debugpy
def test_a_conditional_breakpoint_stops_that_thread_with_its_frames_and_variables(debugged_kernel):
    _, kc = debugged_kernel
    path, answered = compile_and_break(kc, [{"line": LINE_Y, "condition": "threadIdx.x == 5 && blockIdx.x == 1"}])
    assert answered[0]["verified"] and answered[0]["line"] == LINE_Y
    assert debug(kc, "debugInfo")["body"]["breakpoints"][0]["source"] == path  # JupyterLab restores from it
    msg_id = kc.execute(LAUNCH)
    stopped, frames = stopped_frames(kc)
    assert stopped["body"]["reason"] == "breakpoint"
    assert "thread (5,0,0) of block (1,0,0)" in stopped["body"]["description"]
    # the device frame, at the cell's line, on the cell's path (JupyterLab highlights the line there)
    assert frames[0]["name"].startswith("saxpy") and frames[0]["line"] == LINE_Y
    assert frames[0]["source"]["path"] == path
    # below it, the Python cell that launched, at its launch line
    assert frames[-1]["line"] == LAUNCH_LINE and frames[-1]["name"] == "<module>"
    assert frames[-1]["source"]["path"] != path
    seen = variables_of(kc, frames[0]["id"])
    local = seen["Locals"]
    assert local["i"]["value"] == "37" and local["i"]["type"] == "int"
    assert local["t"]["value"] == "74.0" and local["t"]["type"] == "float"
    assert local["a"]["value"] == "2.0" and local["n"]["value"] == "64"
    assert local["x"]["type"] == "const float *" and local["x"]["indexedVariables"] == 64
    elements = debug(kc, "variables", {"variablesReference": local["x"]["variablesReference"]})["body"]["variables"]
    assert [e["value"] for e in elements[:3]] == ["0.0", "1.0", "2.0"] and elements[37]["name"] == "[37]"
    thread = seen["Thread"]
    assert thread["threadIdx"]["value"] == "{x = 5, y = 0, z = 0}"
    assert thread["blockIdx"]["value"] == "{x = 1, y = 0, z = 0}"
    assert thread["blockDim"]["value"] == "{x = 32, y = 1, z = 1}"
    assert thread["active lanes"]["value"] == "0-31"
    assert evaluate(kc, frames[0]["id"], "x[i]")["body"]["result"] == "37.0"
    assert evaluate(kc, frames[0]["id"], "t + y[i]")["body"]["result"] == "75.0"
    missing = evaluate(kc, frames[0]["id"], "nothing_here")
    assert missing["success"] is False and "nothing_here" in missing["message"]

    assert debug(kc, "next", {"threadId": DEVICE_THREAD})["success"]
    stopped, frames = stopped_frames(kc)
    assert stopped["body"]["reason"] == "step" and frames[0]["line"] > LINE_Y
    assert debug(kc, "continue", {"threadId": DEVICE_THREAD})["success"]
    reply = shell_reply(kc, msg_id, timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    assert "y[37] = 75.0" in stream_text(collect(kc, msg_id))
    assert DEVICE_THREAD not in debug(kc, "debugInfo")["body"]["stoppedThreads"]


@needs_debugpy
def test_a_gutter_breakpoint_stops_the_first_thread_and_steps_into_and_out_of_a_device_function(debugged_kernel):
    _, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_T}])  # what the gutter sends: a line only
    msg_id = kc.execute(LAUNCH)
    _, frames = stopped_frames(kc)
    assert "[thread (0,0,0) block (0,0,0)]" in frames[0]["name"] and frames[0]["line"] == LINE_T
    assert debug(kc, "stepIn", {"threadId": DEVICE_THREAD})["success"]
    _, frames = stopped_frames(kc)
    assert frames[0]["name"].startswith("scale") and frames[1]["name"] == "saxpy" and frames[1]["line"] == LINE_T
    local = variables_of(kc, frames[0]["id"])["Locals"]
    assert local["a"]["value"] == "2.0" and local["v"]["value"] == "0.0"
    assert debug(kc, "stepOut", {"threadId": DEVICE_THREAD})["success"]
    _, frames = stopped_frames(kc)
    assert frames[0]["name"].startswith("saxpy") and frames[0]["line"] == LINE_Y
    # the same thread, followed: continue stops it nowhere else, and the cell ends. JupyterLab's
    # Continue forgets the stopped thread before it sends the request, which then names thread 1.
    assert debug(kc, "continue", {"threadId": 1})["success"]
    assert shell_reply(kc, msg_id, timeout=60)["content"]["status"] == "ok"


# The arrays on the notebook's device: on a GPU machine a GPU's, copied to the CPU device and back.
LAUNCH_ON_DEVICE = textwrap.dedent("""\
    import numpy as np, xcuda
    x = xcuda.to_device(np.arange(64, dtype=np.float32))
    y = xcuda.to_device(np.ones(64, np.float32))
    saxpy[2, 32](np.float32(2), x, y, np.int32(64))
    print("y[39] =", y.get()[39])""")


@needs_debugpy
def test_a_hit_count_skips_the_first_arrivals_and_device_arrays_get_their_results(debugged_kernel):
    _, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y, "hitCondition": "40"}])  # the 40th thread to reach the line
    msg_id = kc.execute(LAUNCH_ON_DEVICE)
    _, frames = stopped_frames(kc)
    assert variables_of(kc, frames[0]["id"])["Locals"]["i"]["value"] == "39"
    assert debug(kc, "continue", {"threadId": DEVICE_THREAD})["success"]
    assert shell_reply(kc, msg_id, timeout=60)["content"]["status"] == "ok"
    assert "y[39] = 79.0" in stream_text(collect(kc, msg_id))


@needs_debugpy
def test_breakpoints_on_lines_without_code_or_a_bad_condition_are_not_verified(debugged_kernel):
    _, kc = debugged_kernel
    _, answered = compile_and_break(kc, [{"line": 1}, {"line": 11}, {"line": LINE_I, "condition": "i ==="}])
    assert [b["verified"] for b in answered] == [False, False, False]
    assert "%%cuda line" in answered[0]["message"] and "i ===" in answered[2]["message"]
    reply, messages = execute(kc, LAUNCH)  # nothing to stop at: the launch runs as usual
    assert reply["content"]["status"] == "ok" and "y[37] = 75.0" in stream_text(messages)


@needs_debugpy
def test_an_interrupt_while_stopped_ends_the_launch_and_the_kernel_goes_on(debugged_kernel):
    km, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y}])
    msg_id = kc.execute(LAUNCH)
    stopped_frames(kc)
    started = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=30)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    assert time.monotonic() - started < 10
    others = []
    collect(kc, msg_id, others=others)  # to its idle: cells sent before it would be aborted
    continued = [m["content"] for m in others if m["msg_type"] == "debug_event"
                 and m["content"].get("event") == "continued"]
    assert continued and continued[-1]["body"]["threadId"] == DEVICE_THREAD
    assert DEVICE_THREAD not in debug(kc, "debugInfo")["body"]["stoppedThreads"]
    # Without breakpoints, the next launch is an ordinary one.
    path = debug(kc, "dumpCell", {"code": CUDA_CELL})["body"]["sourcePath"]
    assert debug(kc, "setBreakpoints", {"breakpoints": [], "source": {"path": path}})["success"]
    reply, messages = execute(kc, LAUNCH)
    assert reply["content"]["status"] == "ok" and "y[37] = 75.0" in stream_text(messages)


@needs_debugpy
def test_cuda_restart_after_an_interrupted_stop_replaces_the_process(debugged_kernel):
    km, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y}])
    msg_id = kc.execute(LAUNCH)
    stopped_frames(kc)
    km.interrupt_kernel()
    assert shell_reply(kc, msg_id, timeout=30)["content"]["status"] == "error"
    collect(kc, msg_id)  # to its idle: cells sent before it would be aborted
    reply, _ = execute(kc, "%cuda_restart", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    reply, messages = execute(kc, "print(y[5])")  # the notebook's arrays came back
    assert reply["content"]["status"] == "ok" and stream_text(messages).strip() == "1.0"


@needs_debugpy
def test_disconnect_while_stopped_lets_the_launch_finish(debugged_kernel):
    _, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y}])
    msg_id = kc.execute(LAUNCH)
    stopped_frames(kc)
    assert debug(kc, "disconnect", {"restart": False, "terminateDebuggee": False})["success"]
    reply = shell_reply(kc, msg_id, timeout=60)
    assert reply["content"]["status"] == "ok"
    assert "y[37] = 75.0" in stream_text(collect(kc, msg_id))


@needs_debugpy
def test_python_breakpoints_still_work_beside_cuda_ones(debugged_kernel):
    _, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y, "condition": "threadIdx.x == 1 && blockIdx.x == 0"}])
    code = "def twice(v):\n    w = v * 2\n    return w\n\nprint(twice(21))"
    source = debug(kc, "dumpCell", {"code": code})["body"]["sourcePath"]
    assert debug(kc, "setBreakpoints", {"breakpoints": [{"line": 2}], "source": {"path": source}})["success"]
    msg_id = kc.execute(code)
    stopped = wait_for_event(kc, "stopped")
    assert stopped["body"]["threadId"] != DEVICE_THREAD
    frames = debug(kc, "stackTrace", {"threadId": stopped["body"]["threadId"]})["body"]["stackFrames"]
    assert frames[0]["name"] == "twice"
    assert debug(kc, "continue", {"threadId": stopped["body"]["threadId"]})["success"]
    assert shell_reply(kc, msg_id, timeout=30)["content"]["status"] == "ok"


@needs_debugpy
def test_debug_thread_chooses_the_thread_a_gutter_breakpoint_stops(debugged_kernel):
    _, kc = debugged_kernel
    reply, _ = execute(kc, "import xcuda\nxcuda.debug_thread(thread=5, block=1)")
    assert reply["content"]["status"] == "ok"
    compile_and_break(kc, [{"line": LINE_Y}])
    msg_id = kc.execute(LAUNCH)
    stopped, frames = stopped_frames(kc)
    assert "thread (5,0,0) of block (1,0,0)" in stopped["body"]["description"]
    assert variables_of(kc, frames[0]["id"])["Locals"]["i"]["value"] == "37"
    assert debug(kc, "continue", {"threadId": 1})["success"]
    assert shell_reply(kc, msg_id, timeout=60)["content"]["status"] == "ok"


@needs_debugpy
def test_restarting_the_kernel_while_a_thread_is_stopped(debugged_kernel):
    km, kc = debugged_kernel
    compile_and_break(kc, [{"line": LINE_Y}])
    kc.execute(LAUNCH)
    stopped_frames(kc)
    started = time.monotonic()
    km.restart_kernel(now=False)  # shutdown_request with restart, as JupyterLab's Restart sends
    assert time.monotonic() - started < 10
    kc.wait_for_ready(timeout=30)
    while True:  # the stopped cell's reply if the old process sent one, wait_for_ready's kernel_info replies
        try:
            kc.get_shell_msg(timeout=1)
        except queue.Empty:
            break
    reply, messages = execute(kc, "print('fresh')")
    assert reply["content"]["status"] == "ok" and stream_text(messages) == "fresh\n"

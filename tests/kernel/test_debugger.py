"""The debugger, as JupyterLab's visual debugger drives it: DAP requests in debug_request
messages on the control channel, debugpy's events as debug_event on IOPub. The sequences are
the ones JupyterLab sends (initialize, attach, debugInfo, dumpCell, setBreakpoints,
configurationDone; then stackTrace, scopes, variables, continue once stopped)."""

import itertools
import os
import queue
import re
import subprocess
import textwrap
import time

import pytest

from conftest import (collect, execute, kernel_python, package_env, shell_reply, start_kernel, stop_kernel,
                      stream_text)

_seq = itertools.count(1)


def _kernel_has_debugpy():
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('debugpy') is None)"
    return subprocess.run([kernel_python(), "-c", probe], timeout=60).returncode == 0


needs_debugpy = pytest.mark.skipif(not _kernel_has_debugpy(),
                                   reason="debugpy is not installed in the kernel's Python")


def debug(kc, command, arguments=None, *, content=None, timeout=30):
    """Sends one debug_request; returns its debug_reply's content."""
    if content is None:
        content = {"type": "request", "seq": next(_seq), "command": command, "arguments": arguments or {}}
    msg = kc.session.msg("debug_request", content)
    kc.control_channel.send(msg)
    while True:
        reply = kc.get_control_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            assert reply["msg_type"] == "debug_reply"
            return reply["content"]


def wait_for_event(kc, event, timeout=30):
    seen = []
    while True:
        try:
            msg = kc.get_iopub_msg(timeout=timeout)
        except queue.Empty:
            # What came instead says where it went wrong: a cell that ran to its end (output,
            # idle) never met the breakpoint; nothing at all, the event was lost on the way.
            try:
                info = debug(kc, "debugInfo", timeout=5)["body"]
            except queue.Empty:
                info = "no reply in 5 s"
            raise AssertionError(f"no {event!r} debug_event in {timeout} s; IOPub had {seen}; "
                                 f"debugInfo: {info}\n{debugpy_logs()}") from None
        if msg["msg_type"] == "debug_event" and msg["content"].get("event") == event:
            return msg["content"]
        seen.append((msg["msg_type"], msg["content"].get("event") or msg["content"].get("text")
                     or msg["content"].get("execution_state")))


_log_dirs = []


def debugpy_logs(lines=40):
    """What debugpy's own logs (adapter, server, pydevd) of the kernels started here say last:
    the requests and events it handled, its warnings and errors."""
    wanted = re.compile(r"^[IWE]\+|Process \w+Request|sending cmd|[Ss]uspend|Traceback|Error")
    out = []
    for log_dir in _log_dirs:
        for path in sorted(log_dir.glob("debugpy.*.log")):
            text = [line for line in path.read_text(errors="replace").splitlines() if wanted.search(line)]
            out.append(f"--- {path.name}, last {lines} of {len(text)} lines that say what happened")
            out.extend(line[:240] for line in text[-lines:])
    return "\n".join(out)


INITIALIZE = {"clientID": "xcuda-tests", "clientName": "xcuda tests", "adapterID": "", "pathFormat": "path",
              "lineStartAt1": True, "columnsStartAt1": True, "supportsVariableType": True,
              "supportsVariablePaging": True, "supportsRunInTerminalRequest": True, "locale": "en"}


def start_debugging(kc):
    reply = debug(kc, "initialize", INITIALIZE)
    assert reply["success"], reply
    reply = debug(kc, "attach")
    assert reply["success"], reply
    return reply


@pytest.fixture
def debugged_kernel(tmp_path):
    # debugpy logs what it received and sent there: a failed test shows it.
    _log_dirs[:] = [tmp_path]
    km, kc = start_kernel(env=dict(package_env(), DEBUGPY_LOG_DIR=str(tmp_path)))
    start_debugging(kc)
    yield km, kc
    stop_kernel(km, kc)


def test_kernel_info_offers_the_debugger_where_debugpy_imports(kernel):
    _, kc = kernel
    msg_id = kc.kernel_info()
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["debugger"] is _kernel_has_debugpy()


def test_every_debug_request_is_answered_even_before_initialize(fresh_kernel):
    _, kc = fresh_kernel
    info = debug(kc, "debugInfo")
    assert info["success"] and info["body"]["isStarted"] is False
    assert info["body"]["hashMethod"] == "Murmur2"
    assert info["body"]["tmpFileSuffix"] == ".py"

    before = debug(kc, "stackTrace", {"threadId": 1})
    assert before["success"] is False and "initialize" in before["message"]

    for bad in ({}, {"command": 7, "seq": 1}, {"command": "debugInfo"}, {"command": "source", "seq": 2,
                                                                          "arguments": []}):
        reply = debug(kc, None, content=bad)
        assert reply["success"] is False and reply["message"], (bad, reply)

    reply, _ = execute(kc, "print(6 * 7)")  # the kernel is still there
    assert reply["content"]["status"] == "ok"


def test_cells_are_compiled_under_the_name_the_frontend_computes(fresh_kernel):
    # JupyterLab finds a stopped cell by hashing its text as debugInfo says (ipykernel's
    # Murmur2 is the same function): the name a cell runs under must be that one.
    compiler = pytest.importorskip("ipykernel.compiler", reason="needs ipykernel's Murmur2 to compute the name")
    _, kc = fresh_kernel
    info = debug(kc, "debugInfo")["body"]
    code = "import sys\nprint(sys._getframe().f_code.co_filename)"
    reply, messages = execute(kc, code)
    expected = info["tmpFilePrefix"] + str(compiler.murmur2_x86(code, info["hashSeed"])) + info["tmpFileSuffix"]
    assert stream_text(messages).strip() == expected


@needs_debugpy
def test_a_breakpoint_stops_the_cell_and_shows_its_frame(debugged_kernel):
    _, kc = debugged_kernel
    code = textwrap.dedent("""\
        def add(a, b):
            total = a + b
            return total

        label = "it's \\\\ done"
        result = add(2, 3)
        print("result", result)""")
    source = debug(kc, "dumpCell", {"code": code})["body"]["sourcePath"]
    with open(source, encoding="utf-8") as f:
        assert f.read() == code
    reply = debug(kc, "setBreakpoints", {"breakpoints": [{"line": 2}], "source": {"path": source},
                                          "sourceModified": False})
    assert reply["success"] and reply["body"]["breakpoints"][0]["verified"], reply
    info = debug(kc, "debugInfo")["body"]
    assert info["isStarted"] and info["breakpoints"][0]["source"] == source
    assert debug(kc, "configurationDone")["success"]

    msg_id = kc.execute(code)
    stopped = wait_for_event(kc, "stopped")
    assert stopped["body"]["reason"] == "breakpoint"
    assert stopped["body"]["threadId"] in debug(kc, "debugInfo")["body"]["stoppedThreads"]

    frames = debug(kc, "stackTrace", {"threadId": stopped["body"]["threadId"]})["body"]["stackFrames"]
    assert frames[0]["name"] == "add" and frames[0]["line"] == 2
    assert frames[0]["source"]["path"] == source
    # the cell's own frames only: the kernel's (IPython, xcuda's main) are left out
    assert [f["name"] for f in frames] == ["add", "<module>"]
    assert frames[-1]["source"]["path"] == source
    scopes = debug(kc, "scopes", {"frameId": frames[0]["id"]})["body"]["scopes"]
    local_scope = next(s for s in scopes if s["name"] == "Locals")
    variables = debug(kc, "variables", {"variablesReference": local_scope["variablesReference"]})["body"]["variables"]
    values = {v["name"]: v["value"] for v in variables}
    assert values["a"] == "2" and values["b"] == "3"

    rich = debug(kc, "richInspectVariables", {"variableName": "a", "frameId": frames[0]["id"]})
    assert rich["success"] and rich["body"]["data"]["text/plain"] == "2", rich
    # The cell's own frame: the notebook's names without IPython's (In, Out, _i1...), and a value
    # whose display holds quotes and a backslash rendered as the notebook shows it. (Answered
    # without Python on the control thread: on 3.12 debugpy suspended it and nothing came back.)
    module_scopes = debug(kc, "scopes", {"frameId": frames[-1]["id"]})["body"]["scopes"]
    module_locals = next(s for s in module_scopes if s["name"] == "Locals")
    names = {v["name"] for v in debug(kc, "variables",
                                      {"variablesReference": module_locals["variablesReference"]})["body"]["variables"]}
    assert "label" in names and not names & {"In", "Out", "_i", "_ih"}, names
    rich = debug(kc, "richInspectVariables", {"variableName": "label", "frameId": frames[-1]["id"]})
    assert rich["success"] and rich["body"]["data"]["text/plain"] == repr("it's \\ done"), rich
    assert debug(kc, "richInspectVariables", {"variableName": "label()", "frameId": frames[-1]["id"]})["success"] is False

    step = debug(kc, "next", {"threadId": stopped["body"]["threadId"]})
    assert step["success"], step
    stopped = wait_for_event(kc, "stopped")
    frames = debug(kc, "stackTrace", {"threadId": stopped["body"]["threadId"]})["body"]["stackFrames"]
    assert frames[0]["line"] == 3

    assert debug(kc, "continue", {"threadId": stopped["body"]["threadId"]})["success"]
    reply = shell_reply(kc, msg_id, timeout=30)
    assert reply["content"]["status"] == "ok"
    out = "".join(m["content"]["text"] for m in collect(kc, msg_id) if m["msg_type"] == "stream")
    assert "result 5" in out


@needs_debugpy
def test_variables_panel_lists_the_notebooks_globals_without_a_breakpoint(debugged_kernel):
    _, kc = debugged_kernel
    execute(kc, "threshold = 41\nlabels = ['a', 'b']")
    variables = debug(kc, "inspectVariables")["body"]["variables"]
    values = {v["name"]: v for v in variables}
    assert values["threshold"]["value"] == "41"
    assert "In" not in values and "get_ipython" not in values  # IPython's own names are left out
    children = debug(kc, "variables", {"variablesReference": values["labels"]["variablesReference"]})
    assert [v["value"] for v in children["body"]["variables"] if v["name"] in ("0", "1")] == ["'a'", "'b'"]
    rich = debug(kc, "richInspectVariables", {"variableName": "threshold"})
    assert rich["success"] and rich["body"]["data"]["text/plain"] == "41"
    missing = debug(kc, "richInspectVariables", {"variableName": "not_defined_here"})
    assert missing["success"] is False and "not_defined_here" in missing["message"]


@needs_debugpy
def test_the_debugger_can_be_turned_off_and_on_again(debugged_kernel):
    # JupyterLab's toggle: disconnect, later initialize and attach again; breakpoints still hit.
    _, kc = debugged_kernel
    assert debug(kc, "disconnect", {"restart": False, "terminateDebuggee": False})["success"]
    assert debug(kc, "debugInfo")["body"]["isStarted"] is False
    start_debugging(kc)
    code = "def twice(v):\n    w = v * 2\n    return w\n\nprint(twice(21))"
    source = debug(kc, "dumpCell", {"code": code})["body"]["sourcePath"]
    reply = debug(kc, "setBreakpoints", {"breakpoints": [{"line": 2}], "source": {"path": source}})
    assert reply["success"] and reply["body"]["breakpoints"][0]["verified"], reply
    assert debug(kc, "configurationDone")["success"]
    msg_id = kc.execute(code)
    stopped = wait_for_event(kc, "stopped")
    assert debug(kc, "continue", {"threadId": stopped["body"]["threadId"]})["success"]
    assert shell_reply(kc, msg_id, timeout=30)["content"]["status"] == "ok"


def test_initialize_without_debugpy_says_why_and_the_kernel_goes_on(tmp_path):
    # A debugpy that cannot be imported stands for one that is missing or broken.
    (tmp_path / "debugpy").mkdir()
    (tmp_path / "debugpy" / "__init__.py").write_text("raise ImportError('debugpy is broken here')\n")
    env = package_env()
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    km, kc = start_kernel(env=env)
    try:
        reply = debug(kc, "initialize", INITIALIZE)
        assert reply["success"] is False
        assert "debugpy is broken here" in reply["message"], reply
        assert debug(kc, "attach")["success"] is False
        reply, _ = execute(kc, "1 + 1")
        assert reply["content"]["status"] == "ok"
    finally:
        stop_kernel(km, kc)


@needs_debugpy
def test_debugger_requests_during_a_cell_leave_its_output_alone(debugged_kernel):
    # JupyterLab dumps each cell as it is edited: xeus logs every dump, and that log must
    # not land in the cell that is running meanwhile.
    _, kc = debugged_kernel
    msg_id = kc.execute("import time\ntime.sleep(1.0)\nprint('done')")
    time.sleep(0.3)
    assert debug(kc, "dumpCell", {"code": "x = 1"})["success"]
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    assert stream_text(collect(kc, msg_id)) == "done\n"

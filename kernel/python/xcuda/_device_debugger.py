"""The device half of the notebook's debugger: breakpoints in %%cuda cells, as JupyterLab's
visual debugger sets them (the gutter: setBreakpoints on the path dumpCell gave the cell's text),
stop a kernel's thread on the CPU device when a Python cell launches it.

kernel/src/python_debugger.cpp routes here the requests that concern the device: setBreakpoints on
a %%cuda cell's path, and stackTrace, scopes, variables, evaluate, next, stepIn, stepOut and
continue for the device thread (DEVICE_THREAD) and the frames and variables handed out for its
stop. Everything else stays debugpy's.

While a %%cuda cell has breakpoints, kernel launches are diverted here (xcuda._core's launch
diverter): a launch of that cell's kernel runs under xcuda._kernel_debug.DebugLaunch, on the cell's
shell thread, which publishes a `stopped` event for the device thread and waits for the frontend's
next command; the CPU device holds the launch meanwhile. The stack shows the device frames above
the Python frames of the cells that launched.
"""
import itertools
import queue
import sys
import threading

DEVICE_THREAD = 1_000_001  # the device thread's DAP threadId (debugpy numbers its threads from 1)
IDS_FROM = 1_500_000_000  # where the device half's frameIds and variablesReferences start
_ELEMENTS_SHOWN = 256  # a pointer's elements listed in the variables panel (the console reads any x[i])
_KERNEL_NAMES = {"In", "Out", "get_ipython", "exit", "quit", "open"}


class _State:
    def __init__(self):
        self.publish = None  # publish(event dict): xeus's bookkeeping and IOPub (python_debugger.cpp)
        self.cell_prefix = ""  # where dumpCell writes cells (debugInfo's tmpFilePrefix)
        self.breakpoints = {}  # cell path -> (the %%cuda cell's source as its kernels have it, [DAP breakpoints])
        self.previous_diverter = None
        self.diverting = False
        self.launch = None  # the DebugLaunch running now
        self.python_frames = []  # the launching cell's frames, innermost first
        self.stop = None  # the DeviceStop the frontend sees now
        self.commands = queue.Queue()
        self.launching = threading.Lock()  # held while a launch passes the diverter, which is off meanwhile
        self.ids = itertools.count(IDS_FROM)
        self.objects = {}  # id -> what a frameId or variablesReference stands for
        self.lock = threading.Lock()


_state = _State()


def start(publish, cell_prefix):
    """The debugger started (initialize): `publish` sends a DAP event to the frontend."""
    _state.publish = publish
    _state.cell_prefix = cell_prefix


def stop():
    """The debugger stopped (disconnect): breakpoints gone, a stopped thread runs on."""
    _state.breakpoints.clear()
    _update_diverter()
    if _state.launch is not None:
        _state.launch.session.clear_breakpoints()
        _state.commands.put("run")
    _state.publish = None


# --- breakpoints -------------------------------------------------------------------------------

def cuda_cell_source(path):
    """The source a %%cuda cell's kernels have (xcuda's magic compiles "\\n" + the cell's body, so
    the lines are the cell's), when `path` is a dumped %%cuda cell; else None."""
    if not path or not path.startswith(_state.cell_prefix or "\0"):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    first, _, body = text.partition("\n")
    if not first.lstrip().startswith("%%cuda") or first.lstrip().startswith("%%cuda_"):
        return None
    return "\n" + body


def set_breakpoints(request, reply):
    """setBreakpoints: on a %%cuda cell, the reply says which lines hold code; the breakpoints wait
    for a launch of the cell's kernels. On any other file, debugpy's reply as it is."""
    arguments = request.get("arguments", {})
    path = (arguments.get("source") or {}).get("path", "")
    source = cuda_cell_source(path)
    if source is None:
        return reply
    from xcuda import _kernel_debug

    wanted = [b for b in arguments.get("breakpoints", []) if isinstance(b, dict) and isinstance(b.get("line"), int)]
    answered = []
    kept = []
    lines = source.split("\n")
    for b in wanted:
        line = b["line"]
        verified = 1 < line <= len(lines) and lines[line - 1].strip() not in ("", "{", "}")
        message = None
        try:
            _kernel_debug.Breakpoint(line, b.get("condition"), b.get("hitCondition"))
        except _kernel_debug.DebugError as e:
            verified, message = False, str(e)
        if line == 1:
            message = "line 1 is the %%cuda line; put the breakpoint on a line of the kernel"
        answered.append({"verified": verified, "line": line, "source": {"path": path},
                         **({"message": message} if message else {})})
        if verified:
            kept.append(b)
    if kept:
        _state.breakpoints[path] = (source, kept)
    else:
        _state.breakpoints.pop(path, None)
    _update_diverter()
    return {"type": "response", "request_seq": request["seq"], "command": "setBreakpoints", "success": True,
            "body": {"breakpoints": answered}}


def _update_diverter():
    from xcuda import _core

    if not _state.launching.acquire(blocking=False):
        return  # a launch has the diverter off: it calls this again when it puts it back
    try:
        if _state.breakpoints and not _state.diverting:
            previous = _core._divert_launches(_divert)
            _state.previous_diverter = previous if previous is not _divert else None
            _state.diverting = True
        elif not _state.breakpoints and _state.diverting:
            _core._divert_launches(_state.previous_diverter)
            _state.previous_diverter = None
            _state.diverting = False
    finally:
        _state.launching.release()


def _breakpoints_for(kernel):
    wanted = kernel.source.rstrip()
    for path, (source, breakpoints) in _state.breakpoints.items():
        if source.rstrip() == wanted:
            return path, breakpoints
    return None, []


def _launch_as_usual(kernel, args, grid, block, shared_mem, stream, options):
    from xcuda import _core

    previous = _state.previous_diverter
    if previous is not None:
        return previous(kernel, args, grid, block, shared_mem, stream, options)
    with _state.launching:  # the diverter is off for this one launch
        mine = _core._divert_launches(None)
        try:
            kernel(*args, grid=grid, block=block, shared_mem=shared_mem, stream=stream or None, **options)
        finally:
            _core._divert_launches(mine)
    _update_diverter()  # breakpoints set or cleared meanwhile


# --- a launch under the debugger ------------------------------------------------------------------

def _divert(kernel, args, grid, block, shared_mem, stream, options):
    path, breakpoints = _breakpoints_for(kernel)
    if not breakpoints or _state.publish is None or _state.launch is not None:
        return _launch_as_usual(kernel, args, grid, block, shared_mem, stream, options)
    from xcuda import _kernel_debug

    if stream:
        from xcuda import _core

        _core.synchronize()  # the launch waited for its stream's work; the debugger's runs after it
    launch = _kernel_debug.DebugLaunch(kernel, args, grid, block, shared_mem, options)
    for b in breakpoints:
        launch.add_breakpoint(_kernel_debug.Breakpoint(b["line"], b.get("condition") or _kernel_debug.chosen_thread(),
                                                       b.get("hitCondition")))
    launch.cell_path = path
    frames, frame = [], sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith(_state.cell_prefix):
            frames.append(frame)
        frame = frame.f_back
    with _state.lock:
        _state.launch = launch
        _state.python_frames = frames
    while not _state.commands.empty():
        _state.commands.get_nowait()
    try:
        launch.run(_on_stop)
    finally:
        was_stopped = _state.stop is not None
        with _state.lock:
            _state.launch = None
            _state.stop = None
            _state.python_frames = []
            _state.objects.clear()
        if was_stopped:
            _publish("continued", {"threadId": DEVICE_THREAD, "allThreadsContinued": False})


def _publish(event, body):
    publish = _state.publish
    if publish is not None:
        publish({"type": "event", "seq": 0, "event": event, "body": body})


def _on_stop(stop):
    with _state.lock:
        _state.objects.clear()
        _state.stop = stop
    description = f"{stop.frames[0].name if stop.frames else stop.launch.kernel.name}: {stop.where()}"
    _publish("stopped", {"reason": stop.reason, "threadId": DEVICE_THREAD, "allThreadsStopped": False,
                         "description": description, "text": description})
    while True:
        try:
            how = _state.commands.get(timeout=0.1)
            break
        except queue.Empty:
            continue  # an interrupt raises KeyboardInterrupt here, between waits
    with _state.lock:
        _state.stop = None
        _state.objects.clear()
    return how


# --- requests for the device thread -----------------------------------------------------------------

_STEPS = {"next": "step_over", "stepIn": "step_in", "stepOut": "step_out", "continue": "run"}


def owns(request):
    """Whether a request is about the device thread, one of its frames or variables."""
    arguments = request.get("arguments") or {}
    command = request.get("command")
    if command in ("stackTrace", "next", "stepIn", "stepOut", "continue", "pause"):
        return arguments.get("threadId") == DEVICE_THREAD
    if command in ("scopes", "evaluate", "richInspectVariables"):
        return _is_ours(arguments.get("frameId"))
    if command == "variables":
        return _is_ours(arguments.get("variablesReference"))
    return False


def _is_ours(value):
    # Only the ids handed out for the stop now: debugpy's and the variable explorer's may be any
    # int (the explorer's are object ids), so a range could not tell them apart.
    with _state.lock:
        return isinstance(value, int) and value in _state.objects


def _reply(request, body=None, success=True, message=None):
    reply = {"type": "response", "request_seq": request["seq"], "command": request["command"], "success": success,
             "body": body if body is not None else {}}
    if message:
        reply["message"] = message
    return reply


def handle(request):
    """The reply to a request owns() said is the device's."""
    command = request["command"]
    arguments = request.get("arguments") or {}
    with _state.lock:
        stop = _state.stop
        if command not in _STEPS and command != "pause":
            if stop is None:
                return _reply(request, success=False, message="the device thread is not stopped, so it has no "
                                                              "frames or variables now")
            try:
                return _answer(request, command, arguments, stop)
            except Exception as e:  # a request we cannot answer must still get its reply
                return _reply(request, success=False, message=f"{type(e).__name__}: {e}")
        if stop is None:
            return _reply(request, success=False,
                          message="the device thread is not stopped" if command != "pause" else
                          "a running kernel thread cannot be paused; set a breakpoint in its %%cuda cell")
        _state.stop = None
    # `continued` goes out before the thread moves: the `stopped` of a step must follow it.
    _publish("continued", {"threadId": DEVICE_THREAD, "allThreadsContinued": False})
    _state.commands.put(_STEPS[command])
    return _reply(request, {"allThreadsContinued": False} if command == "continue" else {})


def _new_id(obj):
    i = next(_state.ids)
    _state.objects[i] = obj
    return i


def _answer(request, command, arguments, stop):
    if command == "stackTrace":
        return _reply(request, _stack_trace(stop))
    if command == "scopes":
        return _reply(request, {"scopes": _scopes(_state.objects.get(arguments.get("frameId")))})
    if command == "variables":
        target = _state.objects.get(arguments.get("variablesReference"))
        if target is None:
            return _reply(request, success=False, message="that variable is gone: the thread moved on since")
        variables = _variables(target)
        start, count = arguments.get("start", 0) or 0, arguments.get("count", 0) or 0
        if start or count:
            variables = variables[start:start + count if count else None]
        return _reply(request, {"variables": variables})
    if command == "evaluate":
        return _evaluate(request, arguments)
    if command == "richInspectVariables":
        return _reply(request, {"data": {}, "metadata": {}}, success=False,
                      message="a kernel's variables have no rich display; the variables panel shows their values")
    return _reply(request, success=False, message=f"{command} is not a request for the device thread")


def _stack_trace(stop):
    from xcuda import _kernel_debug

    frames = []
    launch = stop.launch
    for i, frame in enumerate(stop.frames):
        name = frame.name
        if i == 0:
            name += f" [thread {_kernel_debug._dims(stop.thread['thread'])} block " \
                    f"{_kernel_debug._dims(stop.thread['block'])}]"
        source = {"name": frame.file}
        if frame.in_cell:
            source = {"name": f"%%cuda cell ({launch.kernel.name})", "path": launch.cell_path}
        frames.append({"id": _new_id(("device", frame)), "name": name, "line": frame.line,
                       "column": max(frame.column, 1), "source": source})
    for frame in _state.python_frames:
        frames.append({"id": _new_id(("python", frame)), "name": frame.f_code.co_name, "line": frame.f_lineno,
                       "column": 1, "source": {"path": frame.f_code.co_filename}})
    return {"stackFrames": frames, "totalFrames": len(frames)}


def _scopes(target):
    if target is None:
        return []
    kind, frame = target
    if kind == "python":
        return [{"name": "Locals", "variablesReference": _new_id(("python_locals", frame)), "expensive": False}]
    scopes = [{"name": "Locals", "variablesReference": _new_id(("locals", frame)), "expensive": False}]
    if frame.index == 0:
        scopes.append({"name": "Thread", "variablesReference": _new_id(("thread", frame)), "expensive": False})
    return scopes


def _variable(name, value):
    """A DAP variable for a kernel Value; its children get a reference when it has any."""
    count = value.child_count() if value.data is not None else 0
    variable = {"name": name, "value": value.text(), "type": value.type.c_name(),
                "variablesReference": _new_id(("value", value)) if count else 0, "evaluateName": name}
    if count and value.kind in ("array", "pointer"):
        variable["indexedVariables"] = count
    return variable


def _variables(target):
    kind, subject = target
    if kind == "locals":
        return [_variable(v.name, subject.value(v)) for v in subject.variables()]
    if kind == "thread":
        stop = subject.stop
        out = [_variable(name, value) for name, value in stop.builtins()]
        t = stop.thread
        out.append({"name": "warp", "value": f"warp {t['warp']}, lane {t['lane']}", "type": "", "variablesReference": 0})
        out.append({"name": "active lanes", "value": stop.active_lanes(), "type": "unsigned",
                    "variablesReference": 0})
        return out
    if kind == "value":
        children = subject.children(_ELEMENTS_SHOWN)
        out = [_variable(name, value) for name, value in children]
        left = subject.child_count() - len(children)
        if left > 0:
            out.append({"name": "...", "value": f"{left} more (evaluate x[i] in the debug console)", "type": "",
                        "variablesReference": 0})
        return out
    if kind == "python_locals":
        names = subject.f_locals
        return [{"name": k, "value": _short_repr(v), "type": type(v).__name__, "variablesReference": 0}
                for k, v in names.items() if not k.startswith("_") and k not in _KERNEL_NAMES
                and not callable(v) and type(v).__name__ != "module"]
    return []


def _short_repr(value):
    try:
        text = repr(value)
    except Exception as e:
        text = f"<repr failed: {e}>"
    return text if len(text) <= 200 else text[:197] + "..."


def _evaluate(request, arguments):
    from xcuda import _kernel_debug

    target = _state.objects.get(arguments.get("frameId"))
    if target is None or target[0] not in ("device", "python"):
        return _reply(request, success=False, message="no such frame: the thread moved on since")
    expression = arguments.get("expression", "")
    kind, frame = target
    if kind == "python":
        try:
            value = eval(expression, frame.f_globals, frame.f_locals)  # the console's own request
        except Exception as e:
            return _reply(request, success=False, message=f"{type(e).__name__}: {e}")
        return _reply(request, {"result": _short_repr(value), "variablesReference": 0})
    try:
        value = _kernel_debug.evaluate(_kernel_debug.parse_expression(expression), frame)
    except _kernel_debug.DebugError as e:
        return _reply(request, success=False, message=str(e))
    if isinstance(value, _kernel_debug.Value):
        v = _variable(expression, value)
        return _reply(request, {"result": v["value"], "type": v["type"], "variablesReference": v["variablesReference"]})
    return _reply(request, {"result": _kernel_debug.value_text(value), "variablesReference": 0})

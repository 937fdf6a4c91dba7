"""%%cuda_timeline and xcuda.timeline(): where a cell's time went on the GPU.

The body (Python, as in %%cuda_profile) runs while xcuda._core records what the device does
(timeline_recording.cpp): on a GPU through CUPTI's Activity API in this very process, so the
kernels of every library (xcuda's, CuPy's, torch's), the copies and memsets, host-side waits,
NVTX ranges and the calls that caused device work are seen without a separate Nsight run; on the
CPU device, its own streams' launches and copies on host time. Meanwhile the body's own lines are
marked on the same clock (only the body's frame is traced), so an idle gap on the GPU is named
by the line the host was running when it began. _timeline_view.py draws the result.
"""
import sys
import threading

from xcuda import _core
from xcuda._magic_line import cell_magic_on_a_line, parse_option_line
from xcuda._timeline_view import Timeline, Trace

HELP = """%%cuda_timeline [--save FILE]

Runs the cell (Python) and shows a timeline of everything it ran on the GPU: kernels (xcuda's,
CuPy's, PyTorch's, with grid, block, registers and shared memory), copies (direction, bytes,
GB/s, pinned or pageable host memory) and memsets, one lane per stream; host-side waits
(synchronize calls), NVTX ranges and the calls that launched device work on the host lane,
with the cell's lines marked. A summary names how much of the cell the GPU sat idle and the
longest gap, with the line that caused it. Zoom with the mouse wheel, drag to pan, hover for
details. The cell's result is an xcuda.Timeline: `_.save("t.json")` writes Chrome's trace
format, which Perfetto (ui.perfetto.dev) and chrome://tracing open.
  --save FILE   also write the trace to FILE (.json, or .json.gz)
On a GPU it uses CUPTI in this process, which serves one profiler at a time: not inside
torch.profiler, %%cuda_profile --metrics/--lines, or a kernel started under Nsight. NVTX ranges
are recorded when nothing used NVTX in the process before the first timeline.
On the CPU device the timeline shows its emulated launches and copies on host time.
xcuda.timeline(fn, *args, **kwargs) does the same for a function and returns the Timeline
(the function's result is its .result)."""

# Cell lines marked on the host lane, at most: a long loop in the body would mark each pass.
MAX_LINE_MARKS = 100_000


class _LineMarks:
    """Records (time, line) whenever the traced code object's frame moves to another line, on the
    recording's clock. Only that code's frames are traced: sys.monitoring's local LINE events on
    3.12+, a trace function elsewhere (which sees every call of the thread, to find that frame)."""

    def __init__(self, code):
        self.code = code
        self.marks = []
        self.note = ""
        self._last = None
        self._tool = None
        self._previous_trace = None

    def _mark(self, line):
        if line != self._last and len(self.marks) < MAX_LINE_MARKS:
            self._last = line
            self.marks.append((_core._timeline_now(), line))

    def __enter__(self):
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is not None:
            for tool in (monitoring.PROFILER_ID, monitoring.OPTIMIZER_ID, 4, 5):
                if monitoring.get_tool(tool) is None:
                    monitoring.use_tool_id(tool, "xcuda timeline")
                    self._tool = tool
                    break
            if self._tool is not None:
                monitoring.register_callback(self._tool, monitoring.events.LINE,
                                             lambda code, line: self._mark(line) if code is self.code else None)
                monitoring.set_local_events(self._tool, self.code, monitoring.events.LINE)
                return self
        if sys.gettrace() is not None:  # a debugger's: it keeps the thread's trace function
            self.note = "the cell's lines were not marked: a debugger traces this thread"
            return self
        self._previous_trace = sys.gettrace()
        sys.settrace(self._global_trace)
        return self

    def _global_trace(self, frame, event, arg):
        return self._local_trace if frame.f_code is self.code else None

    def _local_trace(self, frame, event, arg):
        if event == "line":
            self._mark(frame.f_lineno)
        return self._local_trace

    def __exit__(self, *exc):
        if self._tool is not None:
            monitoring = sys.monitoring
            monitoring.set_local_events(self._tool, self.code, 0)
            monitoring.register_callback(self._tool, monitoring.events.LINE, None)
            monitoring.free_tool_id(self._tool)
        elif not self.note:
            sys.settrace(self._previous_trace)
        if len(self.marks) >= MAX_LINE_MARKS:
            self.note = f"only the first {MAX_LINE_MARKS:,} line changes of the cell were marked"
        return False


def _refuse_while_torch_profiles():
    """torch.profiler records through CUPTI's Activity API inside its `with` block: a timeline there
    would take its records. (Outside it, PyTorch keeps only an idle CUPTI subscription.)"""
    torch = sys.modules.get("torch")
    autograd = getattr(getattr(torch, "_C", None), "_autograd", None)
    enabled = getattr(autograd, "_profiler_enabled", None)
    if enabled is not None and enabled():
        error = _core.ProfilerUnavailableError(
            "torch.profiler is recording (its `with torch.profiler.profile()` block runs) and holds CUPTI, which "
            "serves one profiler at a time: run the timeline after the block, or read torch.profiler's own trace")
        error.reason = "busy"
        raise error


def _describe_device(info):
    if info["on_cpu"]:
        return f"the CPU device (emulated {info['arch']})"
    return info["device"]


def record(run, source="", code=None):
    """Runs run() while recording; returns (Timeline, run's result). `code` is the code object
    whose lines to mark (the cell's), `source` its text. An exception from run() ends the
    recording unread and propagates."""
    if threading.current_thread() is not threading.main_thread() and code is not None:
        code = None  # trace functions are per thread: mark lines only where the cell runs
    _refuse_while_torch_profiles()
    info = _core._timeline_start()
    marks = _LineMarks(code)
    try:
        start = _core._timeline_now()
        if code is not None:
            with marks:
                result = run()
        else:
            result = run()
        end = _core._timeline_now()
        recorded = _core._timeline_stop()
    except BaseException:
        _core._timeline_abandon()
        raise
    device_kinds = ("kernel", "memcpy", "memset", "graph")
    # The calls and waits after the body returned are the recording's own (its stop waits for the
    # device): left out. Work still running then ends inside the window: the cell waits for it.
    records = [r for r in recorded["records"] if r["kind"] in device_kinds or r["start_ns"] <= end]
    end = max([end] + [r["end_ns"] for r in records if r["kind"] in device_kinds])
    notes = []
    if recorded["dropped"]:
        notes.append(f"{recorded['dropped']:,} records were lost (CUPTI's buffers were full)")
    if marks.note:
        notes.append(marks.note)
    clock_note = ""
    if info["on_cpu"]:
        clock_note = ("CPU device: its emulated launches and copies, on host time (a GPU runs them far faster); "
                      "no driver calls or NVTX ranges are recorded there")
    trace = Trace(records=records, lines=marks.marks, source=source, start_ns=start, end_ns=end,
                  device=_describe_device(info), clock_note=clock_note, notes=notes)
    return Timeline(trace), result


def timeline(fn, *args, **kwargs):
    """timeline(fn, *args, **kwargs) -> Timeline

    Calls fn(*args, **kwargs) while recording what it runs on the GPU (see %%cuda_timeline -h)
    and returns the Timeline; fn's return value is its .result."""
    code = getattr(fn, "__code__", None)
    try:
        import inspect
        source = inspect.getsource(fn) if code is not None else ""
        first = code.co_firstlineno if code is not None else 1
    except (OSError, TypeError):  # defined where no source is kept (exec of a string)
        source, first = "", 1
    shown, result = record(lambda: fn(*args, **kwargs), source, code)
    if first != 1 and shown.trace.lines:
        # Lines counted from the function's first line, as its source is quoted.
        shown.trace.lines = [(t, line - first + 1) for t, line in shown.trace.lines]
    shown.result = result
    return shown


def _parse(line):
    """(the file to save to or None, whether -h/--help asked for the help)."""
    options = parse_option_line("cuda_timeline", line, {"save": None})
    return (None, True) if options is None else (options["save"], False)


def _one_line(error):
    line = f"{type(error).__name__}: {error}"
    error._render_traceback_ = lambda: [line]
    return error


def cuda_timeline(line, cell):
    """%%cuda_timeline [--save FILE]: a timeline of what the cell ran on the GPU (-h says more)."""
    save, wants_help = _parse(line)
    if wants_help:
        print(HELP)
        return None
    from IPython import get_ipython

    ip = get_ipython()
    name = ip.compile.cache(cell, ip.execution_count) if ip is not None else "<cuda_timeline>"
    code = compile(cell, name, "exec")
    namespace = ip.user_ns if ip is not None else {}
    try:
        shown, _ = record(lambda: exec(code, namespace), cell, code)
    except (_core.ProfilerUnavailableError, _core.NoDeviceError) as error:
        raise _one_line(error) from None
    if save:
        shown.save(save)
        print(f"timeline saved to {save}")
    return shown


def cuda_timeline_line(line):
    """%%cuda_timeline records the cell below it (%%cuda_timeline -h says more)."""
    cell_magic_on_a_line(line, HELP, "%%cuda_timeline records the cell below it: start the cell with "
                         "`%%cuda_timeline` on its own line (or call xcuda.timeline(fn))")

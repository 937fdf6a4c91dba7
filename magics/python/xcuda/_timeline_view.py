"""The view of `%%cuda_timeline`: what a notebook cell ran on the GPU, as a summary line, a
plain-text table, an interactive HTML timeline and a Chrome trace file.

Pure Python (standard library only), no GPU: the recording side (CUPTI's Activity API on a GPU,
the CPU device's own stream recording without one) hands over a `Trace`, and everything here
reads only that.

The contract
------------
    @dataclasses.dataclass
    class Trace:
        records: list      # dicts, see below, any order
        lines: list        # (timestamp_ns, cell_line) pairs: when the cell's Python body started
                           # executing each line (1-based line of `source`), in time order; may be empty
        source: str        # the cell body (Python), for quoting a line's text
        start_ns: int      # the cell's window on the records' clock
        end_ns: int
        device: str        # e.g. "NVIDIA H200" or "the CPU device (emulated sm_90)"
        clock_note: str = ""   # shown when set
        notes: list = []       # caveats to show

A record is a dict with at least `kind`, `name`, `start_ns`, `end_ns` (ints, the window's clock):
  kind "kernel": stream (int), grid, block (3-tuples), registers (int), static_shared,
                 dynamic_shared (bytes), optional correlation (int)
  kind "memcpy": stream, bytes, direction ("HtoD", "DtoH", "DtoD", "HtoH", "PtoP"),
                 pinned (bool, or None when unknown), optional correlation
  kind "memset": stream, bytes, optional correlation
  kind "graph":  stream, name like "graph of 3 nodes", optional correlation (its nodes also come
                 as ordinary kernel/memcpy records on the same stream)
  kind "sync":   a host-side wait (cuStreamSynchronize, cuCtxSynchronize, ...), optional stream
  kind "api":    a host-side driver or runtime call, correlation (the device record with the same
                 correlation is the work it caused)
  kind "nvtx":   a range pushed by the user, optional domain
Unknown extra keys are ignored; any key not in the "at least" list may be missing (the view then
leaves that detail out). A record without one of `kind`, `name`, `start_ns`, `end_ns` is the
recorder's bug: `Timeline` raises ValueError naming it.

What "idle" and "gap" mean here
-------------------------------
The GPU is busy while any kernel, copy, memset or graph record runs on any stream: busy time is
the union of those intervals, clipped to the cell's window (overlap across streams counts once,
records partly outside the window count only inside it). `idle_fraction` is the rest of the window
over the window.

A gap is an idle stretch of at least max(1 µs, 0.1% of the window) (shorter ones are launch
latency, not something to act on) that either lies between two pieces of device work or runs
from the cell's start to the first one: that is time the GPU waited for the host. The idle tail
after the last device work up to the cell's end counts as idle time but is not a named gap: the
cell had nothing more for the GPU there. A gap's `after` text names what the host was doing when
the GPU went idle: the cell line executing then (the last line event at or before the gap's
start, quoted from `source`) and the driver/runtime call the host was in then (an api/sync
record spanning the gap's start: ", in cuStreamSynchronize") or, failing that, the last such call
that ended before it (", after cuLaunchKernel"). When another line held the host for at least half
of the gap (a slow line the GPU waited for), `during` quotes it ("mostly during ...").

The views
---------
`Timeline(trace)`: `summary()` (one line; "no GPU work was recorded in this cell" without device
work), `str()` (the summary, a table per lane, the longest gaps, the notes: for terminals and
text/plain), `_repr_html_()` and `save(path)` / `to_chrome_trace(trace)` (Chrome's Trace Event
Format, for Perfetto and chrome://tracing; times in µs from the window's start, unclipped).
The HTML is one self-contained fragment: the SVG is drawn here, so it reads with scripts
blocked (tooltips are SVG <title>s); an inline script adds wheel zoom, drag pan, a reset button
and quicker tooltips. Nothing is fetched. Records outside the window are not drawn; over
MAX_DRAWN_BARS bars, those narrower than a pixel are merged per lane and pixel (as opaque as they
fill it), and if that is not enough host calls and then the shortest are left out; the HTML says
which.
"""
import bisect
import collections
import dataclasses
import gzip
import html
import io
import itertools
import json
import math
import re
import secrets
import tokenize

DEVICE_KINDS = ("kernel", "memcpy", "memset", "graph")
HOST_CALL_KINDS = ("api", "sync")
REQUIRED_KEYS = ("kind", "name", "start_ns", "end_ns")

MIN_GAP_NS = 1000           # shorter idle stretches are launch latency, not gaps
MIN_GAP_WINDOW_FRACTION = 1e-3
MAX_DRAWN_BARS = 5000       # the HTML stays light with thousands of records
MAX_LABELS = 500            # text labels on bars (the widest ones); every bar has a tooltip
MAX_LINE_TICKS = 3000
MAX_STACKED_ROWS = 8        # nvtx / api sub-rows; deeper nesting shares the last row
LINE_QUOTE_CHARS = 40

DIRECTION_WORDS = {"HtoD": "host → device", "DtoH": "device → host", "DtoD": "device → device",
                   "HtoH": "host → host", "PtoP": "peer → peer"}


@dataclasses.dataclass
class Trace:
    """Everything one cell ran on the GPU, as the recorder hands it to the view (see the module
    docstring for the records' keys)."""
    records: list
    lines: list
    source: str
    start_ns: int
    end_ns: int
    device: str
    clock_note: str = ""
    notes: list = dataclasses.field(default_factory=list)


Gap = collections.namedtuple("Gap", "start_ns end_ns duration_ns after during", defaults=(None,))
Gap.__doc__ = ("An idle stretch of the GPU on the trace's clock; `after` names the cell line and the "
               "call the host was in when it began; `during`, the line that held the host for most of "
               "it when that is another line (the GPU waited for it), else None.")


def gap_text(gap):
    """' after X' (and ', mostly during Y' when another line held the host for most of the gap)."""
    text = f" after {gap.after}" if gap.after else ""
    if gap.during:
        text += f", mostly during {gap.during}"
    return text


# ---------------------------------------------------------------------------------------------
# Formatting

def format_duration(ns):
    """12 ns, 3.4 µs, 812 µs, 4.1 ms, 1.23 s: three significant digits at most, sub-ms in µs."""
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return _three_digits(ns / scale) + " " + unit
    return f"{ns:.0f} ns"


def _three_digits(value):
    """812, 12.3, 4.1: the unit switches at 1, so one decimal is enough below 100."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}"


def format_bytes(n):
    """Decimal units (kB = 1000 B), the same as GB/s's."""
    n = float(n)
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def format_rate(nbytes, duration_ns):
    """GB/s as text, or "" where the duration is zero (bytes per ns are GB/s)."""
    if not nbytes or duration_ns <= 0:
        return ""
    rate = nbytes / duration_ns
    return f"{rate:.2f}" if rate < 10 else f"{rate:.1f}" if rate < 100 else f"{rate:.0f}"


def _plural(count, word):
    """"1 kernel", "3 kernels", "2 copies"."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else f"{count} {word}s"


def _percent(fraction):
    """Whole percent, but never "0%" for some idle time nor "100%" for not quite all."""
    if 0 < fraction < 0.005:
        return "<1%"
    if 0.995 <= fraction < 1:
        return ">99%"
    return f"{fraction * 100:.0f}%"


def _shorten(text, limit):
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _without_comment(code):
    """A line of Python without its trailing comment (a `#` inside a string stays)."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT:
                return code[:tok.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass  # a line the next one completes (an open bracket): its comment came first if it had one
    return code


def _top_level_index(text, char):
    """Index of `char` outside <...> and (...) nesting, or -1."""
    depth = 0
    for i, c in enumerate(text):
        if c == char and depth == 0:
            return i
        if c in "<(":
            depth += 1
        elif c in ">)" and depth > 0:
            depth -= 1
    return -1


_QUALIFIER = re.compile(r"\b(?:[A-Za-z_]\w*::)+")


def short_name(name, limit=60):
    """A C++ kernel name for a label or a table: no return type, no parameter list, no namespace
    qualifiers, cut at the end ("void at::native::f<at::native::mul<float>, 4>(float*)" ->
    "f<mul<float>, 4>"): the template arguments that tell instantiations apart stay in front."""
    name = (name or "").strip()
    paren = _top_level_index(name, "(")
    head = name[:paren] if paren > 0 else name
    while True:  # drop a return type: everything up to the last top-level space
        space = _top_level_index(head, " ")
        if space < 0:
            break
        head = head[space + 1:]
    head = _QUALIFIER.sub("", head or name) or name
    return _shorten(head, limit)


# ---------------------------------------------------------------------------------------------
# Record helpers

def _duration(r):
    return max(0, r["end_ns"] - r["start_ns"])


def _is_device(r):
    return r["kind"] in DEVICE_KINDS


def _validate(records):
    for i, r in enumerate(records):
        missing = [k for k in REQUIRED_KEYS if k not in r]
        if missing:
            raise ValueError(f"timeline record {i} has no {', '.join(missing)}: {r!r}")


def _stream_label(stream):
    if stream is None:
        return "unknown stream"
    return "default stream" if stream == 0 else f"stream {stream}"


def _stream_order(stream):
    """Default stream first, then by number, an unknown one last."""
    return (stream is None, stream if isinstance(stream, int) else 0, str(stream))


def _pinned_word(r):
    pinned = r.get("pinned")
    return "pinned" if pinned is True else "pageable" if pinned is False else "pinned/pageable unknown"


def _copy_label(direction):
    return f"copy {direction}" + (f" ({DIRECTION_WORDS[direction]})" if direction in DIRECTION_WORDS else "")


# ---------------------------------------------------------------------------------------------
# Idle time and gaps

def merged_intervals(intervals):
    """The union of [start, end) intervals: sorted, overlapping and touching ones merged, empty dropped."""
    merged = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def busy_intervals(trace):
    """When some device work ran, clipped to the cell's window."""
    return merged_intervals((max(r["start_ns"], trace.start_ns), min(r["end_ns"], trace.end_ns))
                            for r in trace.records if _is_device(r))


def gap_threshold_ns(trace):
    return max(MIN_GAP_NS, (trace.end_ns - trace.start_ns) * MIN_GAP_WINDOW_FRACTION)


def _idle_before_last_work(busy, window_start):
    """Idle stretches from the window's start up to the end of the last device work."""
    previous_end = window_start
    for start, end in busy:
        if start > previous_end:
            yield previous_end, start
        previous_end = end


def quote_line(source, line):
    """"`x = f(y)` at line 3", shortened; "line 3" when the line is blank or not in the source."""
    texts = source.splitlines()
    text = _without_comment(texts[line - 1].strip()) if 1 <= line <= len(texts) else ""
    return f"`{_shorten(text, LINE_QUOTE_CHARS)}` at line {line}" if text else f"line {line}"


class HostContext:
    """What the host was doing at a given time: the cell line and the driver/runtime call.
    Indexed once per trace, so that thousands of gaps cost thousands of bisections, not a scan
    of every record each."""

    def __init__(self, trace):
        self.trace = trace
        self.lines = sorted(trace.lines)
        self.line_times = [ts for ts, _ in self.lines]
        # by start, the inner of two calls that start together last (found first going backwards)
        self.calls = sorted((r for r in trace.records if r["kind"] in HOST_CALL_KINDS),
                            key=lambda r: (r["start_ns"], -r["end_ns"]))
        self.call_starts = [r["start_ns"] for r in self.calls]
        # the latest end among the calls started so far: no call before j spans t if it is <= t
        self.reach = list(itertools.accumulate((r["end_ns"] for r in self.calls), max))
        self.by_end = sorted(self.calls, key=lambda r: r["end_ns"])
        self.ends = [r["end_ns"] for r in self.by_end]

    def line_at(self, t):
        """The cell line executing at t: the last line event at or before t, or None."""
        i = bisect.bisect_right(self.line_times, t)
        return self.lines[i - 1][1] if i else None

    def call_at(self, t):
        """(call, True) for the innermost call spanning t, else (the last call ended by t,
        False), else (None, False)."""
        j = bisect.bisect_right(self.call_starts, t) - 1
        while j >= 0 and self.reach[j] > t:
            if self.calls[j]["end_ns"] > t:
                return self.calls[j], True
            j -= 1
        k = bisect.bisect_right(self.ends, t)
        return (self.by_end[k - 1], False) if k else (None, False)

    def busiest_line(self, start, end):
        """The cell line the host spent most of [start, end) in, and for how long: (line, ns), or
        (None, 0) without line events."""
        i = max(bisect.bisect_right(self.line_times, start) - 1, 0)
        spent = collections.Counter()
        while i < len(self.lines) and self.lines[i][0] < end:
            begin = max(self.lines[i][0], start)
            finish = min(self.lines[i + 1][0], end) if i + 1 < len(self.lines) else end
            if finish > begin:
                spent[self.lines[i][1]] += finish - begin
            i += 1
        return spent.most_common(1)[0] if spent else (None, 0)

    def during(self, start, end):
        """A gap's `during` text: the line that held the host for most of the gap (at least half
        of it), when that is not the line it began in; else None."""
        line, ns = self.busiest_line(start, end)
        if line is None or line == self.line_at(start) or 2 * ns < end - start:
            return None
        return quote_line(self.trace.source, line)

    def describe(self, t):
        """A gap's `after` text for a gap starting at t (see the module docstring)."""
        line = self.line_at(t)
        call, spanning = self.call_at(t)
        where = quote_line(self.trace.source, line) if line is not None else ""
        if call is None:
            return where or ("the start of the cell" if t <= self.trace.start_ns else "")
        if not where:
            return call["name"]
        return f"{where}, {'in' if spanning else 'after'} {call['name']}"


def describe_host_at(trace, t):
    """What the host was doing at t, as a gap's `after` says it."""
    return HostContext(trace).describe(t)


def find_gaps(trace, busy=None):
    """The named gaps in time order (see the module docstring for which idle time they cover)."""
    busy = busy_intervals(trace) if busy is None else busy
    threshold = gap_threshold_ns(trace)
    stretches = [(s, e) for s, e in _idle_before_last_work(busy, trace.start_ns) if e - s >= threshold]
    host = HostContext(trace) if stretches else None
    return [Gap(start, end, end - start, host.describe(start), host.during(start, end)) for start, end in stretches]


# ---------------------------------------------------------------------------------------------
# The timeline

class Timeline:
    """What a cell ran on the GPU: `summary()`, a text table (`str()`), an interactive HTML
    timeline in Jupyter, and `save(path)` for Perfetto / chrome://tracing."""

    def __init__(self, trace):
        """Reads a `Trace` (see the module docstring); raises ValueError for a record without
        kind, name, start_ns or end_ns."""
        _validate(trace.records)
        self._trace = trace
        self._busy = busy_intervals(trace)
        self._gaps = find_gaps(trace, self._busy)

    @property
    def trace(self):
        """The `Trace` this view reads."""
        return self._trace

    @property
    def records(self):
        """The recorded activity: a list of dicts (see the module docstring)."""
        return self._trace.records

    @property
    def window_ns(self):
        """The cell's duration on the records' clock."""
        return max(0, self._trace.end_ns - self._trace.start_ns)

    @property
    def busy_ns(self):
        """Time within the window when some kernel, copy, memset or graph ran (overlaps once)."""
        return sum(end - start for start, end in self._busy)

    @property
    def idle_ns(self):
        """Time within the window when the GPU ran nothing."""
        return self.window_ns - self.busy_ns

    @property
    def idle_fraction(self):
        """GPU idle time over the cell's window (1.0 with no device work; 0.0 for an empty window)."""
        return self.idle_ns / self.window_ns if self.window_ns else 0.0

    @property
    def gaps(self):
        """Named gaps in time order; `longest_gap` is the longest."""
        return list(self._gaps)

    @property
    def longest_gap(self):
        """The longest of `gaps`, or None."""
        return max(self._gaps, key=lambda g: g.duration_ns) if self._gaps else None

    def _of_kind(self, kind):
        return [r for r in self.records if r["kind"] == kind]

    @property
    def kernels(self):
        """How many kernels ran."""
        return len(self._of_kind("kernel"))

    @property
    def copies(self):
        """How many memcpy records there are."""
        return len(self._of_kind("memcpy"))

    @property
    def memsets(self):
        """How many memset records there are."""
        return len(self._of_kind("memset"))

    def _has_device_work(self):
        return any(_is_device(r) for r in self.records)

    def _counts_text(self):
        parts = []
        kernels, copies = self._of_kind("kernel"), self._of_kind("memcpy")
        memsets, graphs = self._of_kind("memset"), self._of_kind("graph")
        if kernels:
            parts.append(f"{_plural(len(kernels), 'kernel')} ({format_duration(sum(map(_duration, kernels)))})")
        for records, word in ((copies, "copy"), (memsets, "memset")):
            if records:
                nbytes = sum(r.get("bytes") or 0 for r in records)
                noun = _plural(len(records), word)
                parts.append(f"{noun} ({format_bytes(nbytes)}, {format_duration(sum(map(_duration, records)))})")
        if graphs:
            parts.append(f"{_plural(len(graphs), 'graph')} ({format_duration(sum(map(_duration, graphs)))})")
        return ", ".join(parts)

    def summary(self):
        """One line: how idle the GPU was, the longest gap and what came before it, what ran."""
        if not self._has_device_work():
            return f"no GPU work was recorded in this cell ({format_duration(self.window_ns)} window)"
        text = (f"GPU idle {_percent(self.idle_fraction)} of the cell "
                f"({format_duration(self.idle_ns)} of {format_duration(self.window_ns)})")
        gap = self.longest_gap
        if gap:
            text += f", longest gap {format_duration(gap.duration_ns)}" + gap_text(gap)
        return text + "; " + self._counts_text()

    def __repr__(self):
        if not self._has_device_work():
            return "<xcuda.Timeline: no GPU work>"
        return (f"<xcuda.Timeline: {_plural(self.kernels, 'kernel')}, "
                f"{_plural(self.copies, 'copy')}, GPU idle {_percent(self.idle_fraction)}>")

    def __str__(self):
        return text_view(self)

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_html_(self):
        return html_view(self)

    def to_chrome_trace(self):
        """The trace as a dict in Chrome's Trace Event Format (what `save` writes)."""
        return to_chrome_trace(self._trace)

    def save(self, path):
        """Writes the Chrome trace (JSON; gzipped when the path ends in .gz) that Perfetto
        (ui.perfetto.dev) and chrome://tracing open. Returns the path."""
        text = json.dumps(to_chrome_trace(self._trace))
        if str(path).endswith(".gz"):
            with gzip.open(path, "wt", encoding="utf-8") as f:
                f.write(text)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        return path


# ---------------------------------------------------------------------------------------------
# Plain text

def _table(header, rows, indent="  "):
    """Columns padded to their widest cell: the first left-aligned, the rest right-aligned."""
    rows = [header] + rows
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _grouped_rows(records, name_of, top=10):
    """(name, count, total, mean, bytes, GB/s) rows per name, the top ones by total time, then
    one row for the rest."""
    groups = collections.OrderedDict()
    for r in records:  # kernels by full name: two whose short names agree stay apart
        groups.setdefault((name_of(r), r["name"] if r["kind"] == "kernel" else ""), []).append(r)
    ranked, shown = [], collections.Counter()
    for (name, _), members in sorted(groups.items(), key=lambda item: -sum(map(_duration, item[1]))):
        shown[name] += 1
        ranked.append((name if shown[name] == 1 else f"{name} ({shown[name]})", members))

    def row(name, members):
        total = sum(map(_duration, members))
        nbytes = sum(r.get("bytes") or 0 for r in members)
        has_bytes = any("bytes" in r for r in members)
        return [name, str(len(members)), format_duration(total), format_duration(total / len(members)),
                format_bytes(nbytes) if has_bytes else "", format_rate(nbytes, total) if has_bytes else ""]

    rows = [row(name, members) for name, members in ranked[:top]]
    rest = [r for _, members in ranked[top:] for r in members]
    if rest:
        rows.append(row(f"({len(ranked) - top} more)", rest))
    return rows


def _lane_text(title, records):
    def name_of(r):
        kind = r["kind"]
        if kind == "kernel":
            return "kernel " + short_name(r["name"])
        if kind == "memcpy":
            return _copy_label(r.get("direction", "?"))
        if kind == "nvtx":
            return "NVTX " + _shorten(r["name"], 48)
        if kind in HOST_CALL_KINDS:
            return f"{'sync' if kind == 'sync' else 'call'} {_shorten(r['name'], 48)}"
        if kind == "graph":
            return _shorten(r["name"] if r["name"].startswith("graph") else "graph " + r["name"], 48)
        return kind

    rows = []
    for kinds in (("kernel",), ("memcpy",), ("memset",), ("graph",), ("sync",), ("api",), ("nvtx",)):
        rows += _grouped_rows([r for r in records if r["kind"] in kinds], name_of)
    if not rows:
        return []
    header = ["", "count", "total", "mean", "bytes", "GB/s"]
    if not any(row[4] for row in rows):
        header, rows = header[:4], [row[:4] for row in rows]
    return [title] + _table(header, rows)


def text_view(timeline):
    """The summary, a table per lane (host, then each stream), the longest gaps and the notes."""
    trace = timeline.trace
    out = [f"{trace.device}: cell window {format_duration(timeline.window_ns)}", timeline.summary()]
    if trace.clock_note:
        out.append(f"clock: {trace.clock_note}")
    host = [r for r in trace.records if r["kind"] in HOST_CALL_KINDS + ("nvtx",)]
    lanes = [("Host", host)] if host else []
    for stream in sorted({r.get("stream") for r in trace.records if _is_device(r)}, key=_stream_order):
        records = [r for r in trace.records if _is_device(r) and r.get("stream") == stream]
        busy = sum(e - s for s, e in merged_intervals((r["start_ns"], r["end_ns"]) for r in records))
        lanes.append((f"GPU {_stream_label(stream)} (busy {format_duration(busy)})", records))
    for title, records in lanes:
        out += [""] + _lane_text(title, records)
    gaps = sorted(timeline.gaps, key=lambda g: -g.duration_ns)[:3]
    if gaps:
        out += ["", "Longest gaps (GPU idle)"]
        out += [f"  {format_duration(g.duration_ns)} from {format_duration(g.start_ns - trace.start_ns)}"
                + gap_text(g) for g in gaps]
    if trace.notes:
        out += ["", "Notes"] + [f"  - {note}" for note in trace.notes]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# Chrome trace

HOST_PID, GPU_PID = 1, 2
LINES_TID, API_TID, NVTX_TID = 1, 10, 100


def _us(ns):
    return ns / 1000.0


def _record_args(r):
    """The record's details for the trace viewer's side panel."""
    args = {}
    kind = r["kind"]
    if "stream" in r:
        args["stream"] = r["stream"]
    if kind == "kernel":
        for key in ("grid", "block"):
            if r.get(key) is not None:
                args[key] = list(r[key])
        for key, name in (("registers", "registers"), ("static_shared", "static shared bytes"),
                          ("dynamic_shared", "dynamic shared bytes")):
            if r.get(key) is not None:
                args[name] = r[key]
    if kind in ("memcpy", "memset") and r.get("bytes") is not None:
        args["bytes"] = r["bytes"]
        rate = format_rate(r["bytes"], _duration(r))
        if rate:
            args["GB/s"] = float(rate)
    if kind == "memcpy":
        args["direction"] = r.get("direction", "?")
        args["memory"] = _pinned_word(r)
    if kind == "nvtx" and r.get("domain"):
        args["domain"] = r["domain"]
    if r.get("correlation") is not None:
        args["correlation"] = r["correlation"]
    return args


def stacked_rows(records):
    """{id(record): sub-row}: ranges that overlap go on different rows, a nested one below its
    parent (greedy, by start time)."""
    row_ends, rows = [], {}
    for r in sorted(records, key=lambda r: (r["start_ns"], -r["end_ns"])):
        for i, end in enumerate(row_ends):
            if end <= r["start_ns"]:
                break
        else:
            i = len(row_ends) if len(row_ends) < MAX_STACKED_ROWS else MAX_STACKED_ROWS - 1
            if i == len(row_ends):
                row_ends.append(r["end_ns"])
        row_ends[i] = max(row_ends[i], r["end_ns"])
        rows[id(r)] = i
    return rows


def _metadata(pid, tid, kind, name, sort_index):
    base = {"ph": "M", "pid": pid}
    if tid is not None:
        base["tid"] = tid
    return [dict(base, name=f"{kind}_name", args={"name": name}),
            dict(base, name=f"{kind}_sort_index", args={"sort_index": sort_index})]


def _stream_tid(stream):
    return stream if isinstance(stream, int) else -1


def to_chrome_trace(trace):
    """The trace in Chrome's Trace Event Format (Perfetto, chrome://tracing): one complete event
    per record (µs from the cell's start), a process per side (Host, GPU), a thread per stream
    and host lane, line events as instants, flows from each api call to the work it caused."""
    _validate(trace.records)
    start = trace.start_ns
    events = _metadata(HOST_PID, None, "process", "Host", 0) + _metadata(GPU_PID, None, "process",
                                                                           f"GPU: {trace.device}", 1)
    host_calls = [r for r in trace.records if r["kind"] in HOST_CALL_KINDS]
    nvtx = [r for r in trace.records if r["kind"] == "nvtx"]
    tid_of = {}
    for records, base, label in ((host_calls, API_TID, "API calls"), (nvtx, NVTX_TID, "NVTX")):
        rows = stacked_rows(records)
        for r in records:
            tid_of[id(r)] = base + rows[id(r)]
        for row in sorted(set(rows.values())):
            events += _metadata(HOST_PID, base + row, "thread", label + (f" ({row + 1})" if row else ""), base + row)
    streams = sorted({r.get("stream") for r in trace.records if _is_device(r)}, key=_stream_order)
    for order, stream in enumerate(streams):
        events += _metadata(GPU_PID, _stream_tid(stream), "thread", _stream_label(stream), order)
    for r in trace.records:
        if _is_device(r):
            pid, tid = GPU_PID, _stream_tid(r.get("stream"))
        elif id(r) in tid_of:
            pid, tid = HOST_PID, tid_of[id(r)]
        else:
            continue  # a kind this view does not know: nowhere to put it
        events.append({"ph": "X", "name": r["name"], "cat": r["kind"], "pid": pid, "tid": tid,
                       "ts": _us(r["start_ns"] - start), "dur": _us(_duration(r)), "args": _record_args(r)})
    if trace.lines:
        events += _metadata(HOST_PID, LINES_TID, "thread", "cell lines", 0)
        events += [{"ph": "i", "s": "t", "name": f"line {line}", "cat": "line", "pid": HOST_PID, "tid": LINES_TID,
                    "ts": _us(ts - start), "args": {"source": quote_line(trace.source, line)}}
                   for ts, line in trace.lines]
    events += _flow_events(trace, tid_of)
    return {"traceEvents": events, "displayTimeUnit": "ms",
            "otherData": {"device": trace.device, "clock_note": trace.clock_note, "notes": list(trace.notes),
                          "window_ns": [trace.start_ns, trace.end_ns]}}


def _flow_events(trace, tid_of):
    """An arrow from each api call to the first device record with its correlation."""
    device_by_correlation = {}
    for r in sorted((r for r in trace.records if _is_device(r)), key=lambda r: r["start_ns"]):
        if r.get("correlation") is not None:
            device_by_correlation.setdefault(r["correlation"], r)
    events = []
    for call in trace.records:
        work = device_by_correlation.get(call.get("correlation")) if call["kind"] == "api" else None
        if work is None:
            continue
        common = {"name": "launch", "cat": "correlation", "id": call["correlation"]}
        events.append(dict(common, ph="s", pid=HOST_PID, tid=tid_of[id(call)],
                           ts=_us(call["start_ns"] - trace.start_ns)))
        events.append(dict(common, ph="f", bp="e", pid=GPU_PID, tid=_stream_tid(work.get("stream")),
                           ts=_us(work["start_ns"] - trace.start_ns)))
    return events


# ---------------------------------------------------------------------------------------------
# HTML: a static SVG drawn here (readable with scripts blocked), zoom/pan/tooltips added by JS

SVG_W = 960
LABEL_W = 150
PLOT_X = LABEL_W
PLOT_W = SVG_W - LABEL_W - 14
AXIS_H = 28
SECTION_H = 20
ROW_H = {"lines": 24, "calls": 16, "nvtx": 18, "stream": 26, "empty": 22}
GAP_ROW_H = 18
MIN_BAR_PX = 1.0
CHAR_W = 6.2          # a 10px sans-serif character, for fitting labels without measuring text
LINE_LABEL_SPACING = 16

COLOURS = {  # (fill, label text); Tableau-like, distinguishable for most colour vision
    "kernel": ("#4C78A8", "#ffffff"),
    "HtoD": ("#F58518", "#1f2328"), "DtoH": ("#E45756", "#ffffff"), "DtoD": ("#B279A2", "#ffffff"),
    "HtoH": ("#9D755D", "#ffffff"), "PtoP": ("#FF9DA6", "#1f2328"), "copy": ("#F58518", "#1f2328"),
    "memset": ("#72B7B2", "#1f2328"), "graph": ("#54A24B", "#ffffff"),
    "api": ("#AAB4BF", "#1f2328"), "sync": ("#5B6770", "#ffffff"), "nvtx": ("#EECA3B", "#1f2328"),
}
GAP_FILL, GAP_EDGE, GAP_TEXT = "#E45756", "#C0392B", "#B42318"
LEGEND_WORDS = [("kernel", "kernel"), ("HtoD", "copy host→device"), ("DtoH", "copy device→host"),
                ("DtoD", "copy device→device"), ("HtoH", "copy host→host"), ("PtoP", "copy peer→peer"),
                ("copy", "copy"), ("memset", "memset"), ("graph", "graph launch"), ("api", "API call"),
                ("sync", "host waits (sync)"), ("nvtx", "NVTX range")]

_uid_counter = itertools.count(1)


def _new_uid():
    """Unique per rendering: two timelines (or one shown twice) in a notebook must not share ids."""
    return f"xtl-{next(_uid_counter)}-{secrets.token_hex(4)}"


def _colour_key(r):
    if r["kind"] == "memcpy":
        return r.get("direction") if r.get("direction") in COLOURS else "copy"
    return r["kind"]


def _esc(text):
    return html.escape(str(text), quote=True)


def _num(x):
    """Compact SVG number."""
    return f"{x:.3f}".rstrip("0").rstrip(".") if x != int(x) else str(int(x))


def nice_step_ns(span_ns, target_ticks=8):
    """1, 2 or 5 times a power of ten, about span/target (the same rule as the JS's)."""
    raw = max(span_ns / target_ticks, 1.0)
    power = 10 ** math.floor(math.log10(raw) + 1e-9)
    m = raw / power
    return (1 if m < 1.5 else 2 if m < 3.5 else 5 if m < 7.5 else 10) * power


def tick_label(t_ns, step_ns):
    """An axis label with as many decimals as the step needs (the same rule as the JS's)."""
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if step_ns >= scale:
            decimals = max(0, -math.floor(math.log10(step_ns / scale) + 1e-9))
            return f"{t_ns / scale:.{decimals}f} {unit}"
    return f"{t_ns:.0f} ns"


def _merged_tooltip(bar, start_ns):
    """What a merged bar holds: counts per kind, the commonest kernel names, busy time."""
    members = bar["merged"]
    kinds = collections.Counter(r["kind"] for r in members)
    lines = [f"{len(members)} records narrower than a pixel, drawn as one bar:"]
    for kind, count in kinds.most_common():
        lines.append("  " + _plural(count, {"memcpy": "copy", "api": "API call"}.get(kind, kind)))
        if kind == "kernel":
            names = collections.Counter(short_name(r["name"], 40) for r in members if r["kind"] == "kernel")
            lines[-1] += " (" + ", ".join(f"{n} ×{c}" for n, c in names.most_common(3)) + (
                ", …" if len(names) > 3 else "") + ")"
    busy = sum(e - s for s, e in merged_intervals((r["start_ns"], r["end_ns"]) for r in members))
    lines.append(f"busy {format_duration(busy)} between {format_duration(bar['start_ns'] - start_ns)} and "
                 f"{format_duration(bar['end_ns'] - start_ns)}")
    lines.append("zooming does not split it: save() the trace and open it in Perfetto for each")
    return "\n".join(lines)


def _tooltip(r, start_ns):
    """A bar's details, one fact per line (SVG <title>: shown on hover with or without JS)."""
    if "merged" in r:
        return _merged_tooltip(r, start_ns)
    kind, dur = r["kind"], _duration(r)
    when = f"{format_duration(dur)}, from {format_duration(r['start_ns'] - start_ns)}"
    lines = [r["name"]]
    if kind == "kernel":
        lines.append(f"kernel on {_stream_label(r.get('stream'))}: {when}")
        if r.get("grid") is not None and r.get("block") is not None:
            lines.append(f"grid {tuple(r['grid'])} × block {tuple(r['block'])}")
        details = []
        if r.get("registers") is not None:
            details.append(f"{r['registers']} registers/thread")
        if r.get("static_shared") is not None or r.get("dynamic_shared") is not None:
            details.append(f"shared {format_bytes(r.get('static_shared') or 0)} static + "
                           f"{format_bytes(r.get('dynamic_shared') or 0)} dynamic")
        if details:
            lines.append(", ".join(details))
    elif kind in ("memcpy", "memset"):
        what = _copy_label(r.get("direction", "?")) if kind == "memcpy" else "memset"
        lines[0] = what
        lines.append(f"on {_stream_label(r.get('stream'))}: {when}")
        if r.get("bytes") is not None:
            rate = format_rate(r["bytes"], dur)
            lines.append(format_bytes(r["bytes"]) + (f" at {rate} GB/s" if rate else ""))
        if kind == "memcpy":
            lines.append(f"host memory: {_pinned_word(r)}")
    elif kind == "graph":
        lines.append(f"graph launch on {_stream_label(r.get('stream'))}: {when}")
    elif kind == "sync":
        lines.append("the host waits" + (f" for {_stream_label(r['stream'])}" if r.get("stream") is not None
                                          else "") + f": {when}")
    elif kind == "api":
        lines.append(f"host call: {when}")
    elif kind == "nvtx":
        lines.append(f"NVTX range{' in domain ' + r['domain'] if r.get('domain') else ''}: {when}")
    if r.get("correlation") is not None:
        lines.append(f"correlation {r['correlation']}")
    return "\n".join(lines)


class _Row:
    """One horizontal row of the SVG: its label, kind ("lines", "calls", "nvtx", "stream",
    "empty") and vertical position inside the lanes area."""

    def __init__(self, label, kind, key=None):
        self.label, self.kind, self.key = label, kind, key
        self.y, self.h = 0, ROW_H[kind]


def _in_window(r, trace):
    return r["end_ns"] > trace.start_ns and r["start_ns"] < trace.end_ns or (
        r["start_ns"] == r["end_ns"] and trace.start_ns <= r["start_ns"] <= trace.end_ns)


def _merge_lane(r):
    """Which records may share a merged bar: device work per stream (graph bands apart), host
    calls together; NVTX ranges are few and nest, so never merged (None)."""
    if r["kind"] in HOST_CALL_KINDS:
        return ("calls",)
    if _is_device(r):
        return ("graph" if r["kind"] == "graph" else "work", r.get("stream"))
    return None


def merge_narrow(records, trace):
    """Records narrower than a pixel of the unzoomed plot, grouped per lane and pixel column,
    each group one bar from its first start to its last end (a dict like the longest member's,
    with `merged`: the members). Drawing them merged keeps busy time looking busy, where leaving
    some out would draw idle time that was not there."""
    ns_per_px = max(1, trace.end_ns - trace.start_ns) / PLOT_W
    columns, kept = collections.OrderedDict(), []
    for r in records:
        lane = _merge_lane(r)
        if lane is None or _duration(r) >= ns_per_px:
            kept.append(r)
            continue
        column = int((max(r["start_ns"], trace.start_ns) - trace.start_ns) // ns_per_px)
        columns.setdefault((lane, column), []).append(r)
    for members in columns.values():
        if len(members) == 1:
            kept.append(members[0])
        else:
            kept.append(dict(max(members, key=_duration), start_ns=min(r["start_ns"] for r in members),
                             end_ns=max(r["end_ns"] for r in members), merged=members))
    return kept


def _members(bar):
    return bar.get("merged") or [bar]


def _choose_drawn(trace):
    """The bars to draw and notes on what is not drawn as itself. Over MAX_DRAWN_BARS, bars
    narrower than a pixel are merged first; if still over, device work goes first, then NVTX,
    syncs, API calls, the longest first within each."""
    priority = {"kernel": 0, "memcpy": 0, "memset": 0, "graph": 0, "nvtx": 1, "sync": 2, "api": 3}
    known = [r for r in trace.records if r["kind"] in priority]
    unknown = collections.Counter(r["kind"] for r in trace.records if r["kind"] not in priority)
    inside = [r for r in known if _in_window(r, trace)]
    bars = inside if len(inside) <= MAX_DRAWN_BARS else merge_narrow(inside, trace)
    ranked = sorted(bars, key=lambda r: (priority[r["kind"]], -_duration(r)))
    drawn, left_out = ranked[:MAX_DRAWN_BARS], ranked[MAX_DRAWN_BARS:]
    notes = []
    merged = [b for b in drawn if "merged" in b]
    if merged:
        notes.append(f"{sum(len(b['merged']) for b in merged)} records narrower than a pixel are drawn merged into "
                     f"{_plural(len(merged), 'bar')} (hover one for what it holds; zooming does not split it: "
                     f"save() the trace and open it in Perfetto to see each)")
    if left_out:
        count = sum(len(_members(b)) for b in left_out)
        notes.append(f"{count} of {len(inside)} records are not drawn (at most {MAX_DRAWN_BARS} bars: host calls "
                     f"are left out before device work, the shortest first); the summary, the text view and "
                     f"save() include all")
    if len(known) > len(inside):
        outside = len(known) - len(inside)
        notes.append(f"{_plural(outside, 'record')} {'lies' if outside == 1 else 'lie'} outside the cell's window "
                     f"and {'is' if outside == 1 else 'are'} not drawn")
    for kind, count in sorted(unknown.items()):
        notes.append(f"{_plural(count, 'record')} of unknown kind {kind!r} not drawn")
    return sorted(drawn, key=lambda r: r["start_ns"]), notes


def _layout(trace, drawn):
    """Sections (title, rows) and, per drawn record, its row and bar height band."""
    calls = [r for r in drawn if r["kind"] in HOST_CALL_KINDS]
    nvtx = [r for r in drawn if r["kind"] == "nvtx"]
    call_rows, nvtx_rows = stacked_rows(calls), stacked_rows(nvtx)
    host = []
    if trace.lines:
        host.append(_Row("cell lines", "lines"))
    host += [_Row("API calls" if i == 0 else "", "calls") for i in range(len(set(call_rows.values())))]
    host += [_Row("NVTX ranges" if i == 0 else "", "nvtx") for i in range(len(set(nvtx_rows.values())))]
    streams = sorted({r.get("stream") for r in trace.records if _is_device(r) and _in_window(r, trace)},
                     key=_stream_order)
    gpu = [_Row(_stream_label(s), "stream", key=s) for s in streams] or [_Row("", "empty")]
    sections = ([("Host (CPU)", host)] if host else []) + [(f"GPU: {trace.device}", gpu)]
    y = 0
    for _, rows in sections:
        y += SECTION_H
        for row in rows:
            row.y = y
            y += row.h
    placement = {}
    call_rows_list = [row for row in host if row.kind == "calls"]
    nvtx_rows_list = [row for row in host if row.kind == "nvtx"]
    stream_row = {row.key: row for row in gpu if row.kind == "stream"}
    for r in drawn:
        if r["kind"] in HOST_CALL_KINDS:
            row = call_rows_list[call_rows[id(r)]]
            placement[id(r)] = (row.y + 2, row.h - 4)
        elif r["kind"] == "nvtx":
            row = nvtx_rows_list[nvtx_rows[id(r)]]
            placement[id(r)] = (row.y + 2, row.h - 4)
        else:
            row = stream_row[r.get("stream")]
            # a graph spans its nodes: a thin band above them
            placement[id(r)] = (row.y + 2, 4) if r["kind"] == "graph" else (row.y + 8, row.h - 10)
    return sections, placement, y + GAP_ROW_H


class _Svg:
    """Maps the trace's clock to plot units (0..PLOT_W across the cell's window) and collects
    SVG fragments."""

    def __init__(self, trace):
        self.start = trace.start_ns
        self.window = max(1, trace.end_ns - trace.start_ns)

    def x(self, t):
        return (min(max(t, self.start), self.start + self.window) - self.start) * PLOT_W / self.window


def _density(bar):
    """A merged bar is as opaque as its members fill it, so that sparse work looks sparse."""
    if "merged" not in bar or bar["end_ns"] <= bar["start_ns"]:
        return ""
    busy = sum(e - s for s, e in merged_intervals((r["start_ns"], r["end_ns"]) for r in bar["merged"]))
    return f' fill-opacity="{max(0.3, busy / (bar["end_ns"] - bar["start_ns"])):.2f}"'


def _hidden(hidden):
    """The attribute that hides a label (the JS shows it again when zooming makes room)."""
    return ' display="none"' if hidden else ""


def _fit_label(name, width_px):
    chars = int((width_px - 6) // CHAR_W)
    if chars < 3:
        return ""
    return name if len(name) <= chars else name[:chars - 1] + "…"


def _bars_svg(drawn, placement, svg, trace):
    """Bars (each with its <title>) and, for the widest MAX_LABELS, text labels positioned by
    the JS on zoom (drawn here for the unzoomed view)."""
    bars, labels = [], []
    labelled = {id(r) for r in sorted((r for r in drawn if r["kind"] != "graph" and "merged" not in r), key=_duration,
                                      reverse=True)[:MAX_LABELS]}
    for r in drawn:
        x0, x1 = svg.x(r["start_ns"]), svg.x(r["end_ns"])
        y, h = placement[id(r)]
        fill, text_colour = COLOURS[_colour_key(r)]
        width = x1 - x0
        thin = width < MIN_BAR_PX
        bars.append(f'<rect class="xtl-bar{" xtl-thin" if thin else ""}" x="{_num(x0)}" y="{y}" '
                    f'width="{_num(max(width, MIN_BAR_PX))}" height="{h}" fill="{fill}"{_density(r)}'
                    + (f' data-w="{_num(width)}"' if thin else "")
                    + f'><title>{_esc(_tooltip(r, trace.start_ns))}</title></rect>')
        if id(r) in labelled and h >= 10:
            name = short_name(r["name"]) if r["kind"] == "kernel" else (
                r.get("direction", "copy") if r["kind"] == "memcpy" else _shorten(r["name"], 60))
            shown = _fit_label(name, width)
            labels.append(f'<text class="xtl-label" x="{_num(PLOT_X + x0 + 3)}" y="{y + h / 2 + 3.5:.1f}" '
                          f'fill="{text_colour}" data-a="{_num(x0)}" data-b="{_num(x1)}" data-name="{_esc(name)}"'
                          f'{_hidden(not shown)}>{_esc(shown)}</text>')
    return bars, labels


def _line_marks_svg(trace, sections, svg):
    """Ticks where the cell's lines started (titles quote the line) and greedy non-overlapping
    line-number labels. A line repeating within a quarter unit is one tick; over MAX_LINE_TICKS,
    every k-th tick is kept, so that the ticks still span the whole cell."""
    row = next((row for _, rows in sections for row in rows if row.kind == "lines"), None)
    if row is None:
        return [], []
    seen, marks = set(), []
    for ts, line in sorted(trace.lines):
        x = svg.x(ts)
        if trace.start_ns <= ts <= trace.end_ns and (round(x * 4), line) not in seen:
            seen.add((round(x * 4), line))
            marks.append((ts, line, x))
    every = max(1, -(-len(marks) // MAX_LINE_TICKS))  # ceil: at most MAX_LINE_TICKS
    marks = marks[::every]
    ticks, labels, last_label_x = [], [], -1e9
    for ts, line, x in marks:
        ticks.append(f'<line class="xtl-tick" x1="{_num(x)}" x2="{_num(x)}" y1="{row.y + 12}" y2="{row.y + row.h - 1}" '
                     f'stroke="#1f2328" stroke-width="1.5" vector-effect="non-scaling-stroke">'
                     f'<title>{_esc(quote_line(trace.source, line))}, from {format_duration(ts - trace.start_ns)}'
                     f'</title></line>')
        show = x - last_label_x >= LINE_LABEL_SPACING
        if show:
            last_label_x = x
        labels.append(f'<text class="xtl-linelabel" x="{_num(PLOT_X + x)}" y="{row.y + 10}" text-anchor="middle" '
                      f'data-a="{_num(x)}"{_hidden(not show)}>{line}</text>')
    return ticks, labels


def _gap_svg(gap, svg, height):
    if gap is None:
        return [], []
    x0, x1 = svg.x(gap.start_ns), svg.x(gap.end_ns)
    title = f"longest gap: the GPU idles {format_duration(gap.duration_ns)}" + gap_text(gap)
    shade = [f'<rect class="xtl-gap" x="{_num(x0)}" y="0" width="{_num(max(x1 - x0, MIN_BAR_PX))}" '
             f'height="{height}" fill="{GAP_FILL}" fill-opacity="0.10"><title>{_esc(title)}</title></rect>']
    shade += [f'<line x1="{_num(x)}" x2="{_num(x)}" y1="0" y2="{height}" stroke="{GAP_EDGE}" stroke-width="1" '
              f'stroke-dasharray="4 3" vector-effect="non-scaling-stroke"/>' for x in (x0, x1)]
    label = [f'<text class="xtl-gaplabel" x="{_num(PLOT_X + (x0 + x1) / 2)}" y="{height - 5}" text-anchor="middle" '
             f'fill="{GAP_TEXT}" font-weight="600" data-a="{_num(x0)}" data-b="{_num(x1)}">'
             f'longest gap {_esc(format_duration(gap.duration_ns))}</text>']
    return shade, label


def _axis_svg(svg, lanes_h):
    """Ticks over the whole window (the JS redraws them on zoom with the same rules)."""
    step = nice_step_ns(svg.window)
    grid, axis = [], []
    t = 0.0
    while t <= svg.window + 1e-6:
        x = t * PLOT_W / svg.window
        anchor = "start" if x < 15 else "end" if x > PLOT_W - 15 else "middle"
        axis.append(f'<text x="{_num(PLOT_X + x)}" y="14" text-anchor="{anchor}">{tick_label(t, step)}</text>'
                    f'<line x1="{_num(PLOT_X + x)}" x2="{_num(PLOT_X + x)}" y1="{AXIS_H - 6}" y2="{AXIS_H}" '
                    f'stroke="#8c959f"/>')
        grid.append(f'<line x1="{_num(PLOT_X + x)}" x2="{_num(PLOT_X + x)}" y1="{AXIS_H}" y2="{AXIS_H + lanes_h}" '
                    f'stroke="#e6e8eb"/>')
        t += step
    return grid, axis


def _rows_svg(sections):
    """Section bands, row stripes and the labels of the left column."""
    back, text = [], []
    for title, rows in sections:
        top = rows[0].y - SECTION_H
        back.append(f'<rect x="0" y="{top}" width="{SVG_W}" height="{SECTION_H}" fill="#eef1f4"/>')
        text.append(f'<text x="8" y="{top + 14}" font-weight="600" fill="#1f2328">{_esc(title)}</text>')
        for i, row in enumerate(rows):
            y = row.y
            if i % 2:
                back.append(f'<rect x="0" y="{y}" width="{SVG_W}" height="{row.h}" fill="#f8f9fa"/>')
            if row.label:
                text.append(f'<text x="{LABEL_W - 8}" y="{y + row.h / 2 + 4:.1f}" text-anchor="end" fill="#57606a">'
                            f'{_esc(row.label)}</text>')
            if row.kind == "empty":
                text.append(f'<text x="{PLOT_X + 6}" y="{y + row.h / 2 + 4:.1f}" fill="#57606a" font-style="italic">'
                            f'no GPU work was recorded in this cell</text>')
    return back, text


def _legend_html(drawn, has_lines, has_gap):
    keys = {_colour_key(r) for r in drawn}
    items = [f'<span class="xtl-key"><i style="background:{COLOURS[key][0]}"></i>{_esc(words)}</span>'
             for key, words in LEGEND_WORDS if key in keys]
    if has_lines:
        items.append('<span class="xtl-key"><i style="background:#1f2328;width:2px"></i>a cell line starts</span>')
    if has_gap:
        items.append(f'<span class="xtl-key"><i style="background:{GAP_FILL};opacity:.3;'
                     f'border:1px dashed {GAP_EDGE}"></i>longest GPU gap</span>')
    return f'<div class="xtl-legend">{"".join(items)}</div>'


def _summary_html(summary):
    """The summary, escaped, with `quoted code` in <code>; what ran goes on a second line."""
    idle, _, counts = summary.partition("; ")
    text = f"<b>{_code_spans(idle)}</b>"
    return text + (f"<br>{_code_spans(counts)}" if counts else "")


def _code_spans(text):
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", _esc(text))


_STYLE = """
#ID{position:relative;font:12px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;
 background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 10px;margin:2px 0;max-width:1400px}
#ID .xtl-summary{font-size:13px;margin-bottom:2px}
#ID .xtl-summary code,#ID .xtl-notes code{background:#f0f2f4;padding:0 3px;border-radius:3px;font-size:12px}
#ID .xtl-meta,#ID .xtl-notes{color:#57606a;margin:0}
#ID .xtl-notes{padding-left:18px}
#ID .xtl-legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0 2px;color:#1f2328}
#ID .xtl-key{display:inline-flex;align-items:center;gap:5px}
#ID .xtl-key i{display:inline-block;width:14px;height:10px;border-radius:2px}
#ID .xtl-controls{display:flex;gap:10px;align-items:center;color:#57606a;margin:4px 0}
#ID .xtl-controls button{font:inherit;padding:1px 10px;border:1px solid #d0d7de;border-radius:4px;
 background:#f6f8fa;color:#1f2328;cursor:pointer}
#ID svg.xtl-svg{display:block;width:100%;height:auto;user-select:none;cursor:grab}
#ID svg.xtl-svg text{font:11px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
#ID svg.xtl-svg .xtl-label,#ID svg.xtl-svg .xtl-linelabel{font-size:10px;pointer-events:none}
#ID svg.xtl-svg .xtl-gaplabel{pointer-events:none}
#ID .xtl-bar:hover{stroke:#1f2328;stroke-width:1px;vector-effect:non-scaling-stroke}
#ID .xtl-tip{position:absolute;display:none;pointer-events:none;white-space:pre;background:#1f2328;color:#fff;
 font-size:11.5px;padding:5px 8px;border-radius:4px;max-width:520px;overflow:hidden;z-index:10;
 box-shadow:0 2px 6px rgba(0,0,0,.25)}
"""

# Zoom and pan change the plot's viewBox horizontally (bars scale, strokes do not); the texts
# live outside the plot and are moved by `layout()`, so they never stretch.
_SCRIPT = r"""
(function () {
  var C = __CONFIG__;
  function start(tries) {
    var root = document.getElementById(C.id);
    if (!root) { if (tries < 100) { setTimeout(function () { start(tries + 1); }, 50); } return; }
    if (root.getAttribute('data-live')) { return; }
    root.setAttribute('data-live', '1');
    init(root);
  }
  function init(root) {
    var svg = root.querySelector('svg.xtl-svg'), plot = svg.querySelector('svg.xtl-plot');
    var NS = svg.namespaceURI, PW = C.plotW, PX = C.plotX;
    var grid = svg.querySelector('g.xtl-grid'), axis = svg.querySelector('g.xtl-axis');
    var labels = Array.prototype.slice.call(svg.querySelectorAll('text.xtl-label'));
    var lineLabels = Array.prototype.slice.call(svg.querySelectorAll('text.xtl-linelabel'));
    var gapLabel = svg.querySelector('text.xtl-gaplabel');
    var thin = Array.prototype.slice.call(plot.querySelectorAll('.xtl-thin'));
    var tip = root.querySelector('.xtl-tip');
    var minVw = Math.max(PW * C.minSpanNs / C.windowNs, PW * 1e-6);
    var vx = 0, vw = PW, drag = null;
    root.querySelector('.xtl-controls').style.display = '';

    function px(u) { return (u - vx) * PW / vw; }
    function show(el, on) { if (on) { el.removeAttribute('display'); } else { el.setAttribute('display', 'none'); } }
    function fit(name, width) {
      var chars = Math.floor((width - 6) / C.charW);
      if (chars < 3) { return ''; }
      return name.length <= chars ? name : name.slice(0, chars - 1) + '\u2026';
    }
    function niceStep(span) {
      var raw = Math.max(span / 8, 1), p = Math.pow(10, Math.floor(Math.log10(raw) + 1e-9)), m = raw / p;
      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }
    function tickLabel(t, step) {
      var units = [['s', 1e9], ['ms', 1e6], ['\u00b5s', 1e3]];
      for (var i = 0; i < units.length; i++) {
        if (step >= units[i][1]) {
          var d = Math.max(0, -Math.floor(Math.log10(step / units[i][1]) + 1e-9));
          return (t / units[i][1]).toFixed(d) + ' ' + units[i][0];
        }
      }
      return t.toFixed(0) + ' ns';
    }
    function el(name, attrs, text) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) { e.setAttribute(k, attrs[k]); }
      if (text !== undefined) { e.textContent = text; }
      return e;
    }
    function drawAxis() {
      var nsPerUnit = C.windowNs / PW, t0 = vx * nsPerUnit, span = vw * nsPerUnit, step = niceStep(span);
      while (grid.firstChild) { grid.removeChild(grid.firstChild); }
      while (axis.firstChild) { axis.removeChild(axis.firstChild); }
      for (var t = Math.ceil(t0 / step) * step; t <= t0 + span + 1e-6; t += step) {
        var x = PX + (t - t0) / span * PW, p = x - PX;
        var anchor = p < 15 ? 'start' : p > PW - 15 ? 'end' : 'middle';
        axis.appendChild(el('text', {x: x, y: 14, 'text-anchor': anchor}, tickLabel(t, step)));
        axis.appendChild(el('line', {x1: x, x2: x, y1: C.axisH - 6, y2: C.axisH, stroke: '#8c959f'}));
        grid.appendChild(el('line', {x1: x, x2: x, y1: C.axisH, y2: C.axisH + C.lanesH, stroke: '#e6e8eb'}));
      }
    }
    function layout() {
      plot.setAttribute('viewBox', vx + ' 0 ' + vw + ' ' + C.lanesH);
      var minW = C.minBarPx * vw / PW;
      thin.forEach(function (r) { r.setAttribute('width', Math.max(+r.getAttribute('data-w'), minW)); });
      labels.forEach(function (t) {
        var a = Math.max(px(+t.getAttribute('data-a')), 0), b = Math.min(px(+t.getAttribute('data-b')), PW);
        var text = b > a ? fit(t.getAttribute('data-name'), b - a) : '';
        show(t, text !== '');
        if (text) { t.textContent = text; t.setAttribute('x', PX + a + 3); }
      });
      var last = -1e9;
      lineLabels.forEach(function (t) {
        var p = px(+t.getAttribute('data-a')), on = p >= 0 && p <= PW && p - last >= C.lineSpacing;
        show(t, on);
        if (on) { last = p; t.setAttribute('x', PX + p); }
      });
      if (gapLabel) {
        var a = Math.max(px(+gapLabel.getAttribute('data-a')), 0);
        var b = Math.min(px(+gapLabel.getAttribute('data-b')), PW);
        show(gapLabel, b > a);
        gapLabel.setAttribute('x', PX + Math.min(Math.max((a + b) / 2, 60), PW - 60));
      }
      drawAxis();
    }
    function clampView() {
      vw = Math.min(Math.max(vw, minVw), PW);
      vx = Math.min(Math.max(vx, 0), PW - vw);
    }
    function plotFraction(clientX) {
      var r = plot.getBoundingClientRect();
      return r.width > 0 ? Math.min(Math.max((clientX - r.left) / r.width, 0), 1) : 0.5;
    }
    svg.addEventListener('wheel', function (e) {
      var zoomingOut = e.deltaY > 0;
      if (zoomingOut && vw >= PW) { return; }  // fully zoomed out: let the page scroll
      e.preventDefault();
      var f = plotFraction(e.clientX), at = vx + f * vw;
      var scale = Math.exp(Math.max(Math.min(e.deltaY * (e.deltaMode === 1 ? 20 : 1), 300), -300) * 0.002);
      vw = vw * scale;
      clampView();
      vx = at - f * vw;
      clampView();
      layout();
    }, {passive: false});
    svg.addEventListener('mousedown', function (e) {
      if (e.button !== 0) { return; }
      e.preventDefault();
      drag = {x: e.clientX, vx: vx, width: plot.getBoundingClientRect().width || PW};
      svg.style.cursor = 'grabbing';
      tip.style.display = 'none';
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      vx = drag.vx - (e.clientX - drag.x) / drag.width * vw;
      clampView();
      layout();
    });
    window.addEventListener('mouseup', function () {
      if (drag) { drag = null; svg.style.cursor = ''; }
    });
    root.querySelector('.xtl-reset').addEventListener('click', function () {
      vx = 0; vw = PW; layout();
    });
    // A quicker tooltip than the native one: the <title> moves into data-tip on first hover,
    // so the browser's own tooltip does not show as well.
    svg.addEventListener('mouseover', function (e) {
      var t = e.target;
      if (drag || !t.getAttribute || t.getAttribute('class') === null) { return; }
      var title = t.querySelector && t.querySelector('title');
      if (title) { t.setAttribute('data-tip', title.textContent); t.removeChild(title); }
      var text = t.getAttribute('data-tip');
      if (!text) { return; }
      tip.textContent = text;
      tip.style.display = 'block';
    });
    svg.addEventListener('mousemove', function (e) {
      if (tip.style.display !== 'block') { return; }
      var r = root.getBoundingClientRect(), x = e.clientX - r.left + 14, y = e.clientY - r.top + 14;
      if (x + tip.offsetWidth > r.width) { x = Math.max(0, e.clientX - r.left - tip.offsetWidth - 10); }
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    });
    svg.addEventListener('mouseout', function () { tip.style.display = 'none'; });
    layout();
  }
  start(0);
})();
"""


def html_view(timeline):
    """One self-contained HTML fragment: summary, notes, legend, and an SVG timeline drawn here
    (so it reads with scripts blocked) that an inline script makes zoomable (wheel), pannable
    (drag) and gives quick tooltips; every bar also has an SVG <title> for hover without JS."""
    trace = timeline.trace
    uid = _new_uid()
    drawn, drawing_notes = _choose_drawn(trace)
    sections, placement, lanes_h = _layout(trace, drawn)
    svg = _Svg(trace)
    gap = timeline.longest_gap
    bars, bar_labels = _bars_svg(drawn, placement, svg, trace)
    ticks, line_labels = _line_marks_svg(trace, sections, svg)
    gap_shade, gap_label = _gap_svg(gap, svg, lanes_h)
    grid, axis = _axis_svg(svg, lanes_h)
    back, row_text = _rows_svg(sections)
    height = AXIS_H + lanes_h + 2
    config = {"id": uid, "plotW": PLOT_W, "plotX": PLOT_X, "axisH": AXIS_H, "lanesH": lanes_h,
              "windowNs": svg.window, "minSpanNs": 100, "minBarPx": MIN_BAR_PX, "charW": CHAR_W,
              "lineSpacing": LINE_LABEL_SPACING}
    meta = f"cell window {format_duration(timeline.window_ns)} on {_esc(trace.device)}" + (
        f" · {_esc(trace.clock_note)}" if trace.clock_note else "")
    notes = list(trace.notes) + drawing_notes
    parts = [
        f'<div class="xtl" id="{uid}">',
        f"<style>{_STYLE.replace('#ID', '#' + uid)}</style>",
        f'<div class="xtl-summary">{_summary_html(timeline.summary())}</div>',
        f'<p class="xtl-meta">{meta}</p>',
        ('<ul class="xtl-notes">' + "".join(f"<li>{_code_spans(str(n))}</li>" for n in notes) + "</ul>")
        if notes else "",
        _legend_html(drawn, bool(ticks), gap is not None),
        '<div class="xtl-controls" style="display:none"><button type="button" class="xtl-reset">reset zoom</button>'
        '<span>mouse wheel: zoom at the pointer · drag: pan · hover a bar: details</span></div>',
        f'<svg class="xtl-svg" viewBox="0 0 {SVG_W} {height}" preserveAspectRatio="xMinYMin meet" '
        f'role="img" aria-label="{_esc(timeline.summary())}">',
        f'<rect x="0" y="0" width="{SVG_W}" height="{height}" fill="#ffffff"/>',
        f'<g transform="translate(0 {AXIS_H})">' + "".join(back) + "</g>",
        '<g class="xtl-grid">' + "".join(grid) + "</g>",
        f'<svg class="xtl-plot" x="{PLOT_X}" y="{AXIS_H}" width="{PLOT_W}" height="{lanes_h}" '
        f'viewBox="0 0 {PLOT_W} {lanes_h}" preserveAspectRatio="none">',
        "".join(gap_shade), "".join(bars), "".join(ticks), "</svg>",
        f'<clipPath id="{uid}-clip"><rect x="{PLOT_X}" y="0" width="{PLOT_W}" height="{height}"/></clipPath>',
        f'<g clip-path="url(#{uid}-clip)" transform="translate(0 {AXIS_H})">'
        + "".join(bar_labels) + "".join(line_labels) + "".join(gap_label) + "</g>",
        f'<g class="xtl-axis" fill="#57606a">' + "".join(axis) + "</g>",
        f'<line x1="{PLOT_X}" x2="{PLOT_X + PLOT_W}" y1="{AXIS_H}" y2="{AXIS_H}" stroke="#8c959f"/>',
        f'<text x="8" y="14" fill="#57606a">time since cell start</text>',
        f'<g transform="translate(0 {AXIS_H})">' + "".join(row_text) + "</g>",
        "</svg>",
        '<div class="xtl-tip"></div>',
        "<script>" + _SCRIPT.replace("__CONFIG__", json.dumps(config)) + "</script>",
        "</div>",
    ]
    return "\n".join(p for p in parts if p)

"""The timeline's model: the `Trace` a recorder hands over, device busy time and the gaps in it,
what the host was doing when each began, and the formatting every view shares (durations, bytes,
names, stream labels). See the package docstring for the contract and the definitions."""
import bisect
import collections
import dataclasses
import itertools
import re
import tokenize
import io

DEVICE_KINDS = ("kernel", "memcpy", "memset", "graph")
HOST_CALL_KINDS = ("api", "sync")
REQUIRED_KEYS = ("kind", "name", "start_ns", "end_ns")

MIN_GAP_NS = 1000           # shorter idle stretches are launch latency, not gaps
MIN_GAP_WINDOW_FRACTION = 1e-3
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


def find_gaps(trace, busy=None):
    """The named gaps in time order (see the module docstring for which idle time they cover)."""
    busy = busy_intervals(trace) if busy is None else busy
    threshold = gap_threshold_ns(trace)
    stretches = [(s, e) for s, e in _idle_before_last_work(busy, trace.start_ns) if e - s >= threshold]
    host = HostContext(trace) if stretches else None
    return [Gap(start, end, end - start, host.describe(start), host.during(start, end)) for start, end in stretches]


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

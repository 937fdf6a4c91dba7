"""The view of `%%cuda_timeline`: what a notebook cell ran on the GPU, as a summary line, a
plain-text table, an interactive HTML timeline and a Chrome trace file. One module per concern:
trace.py (the Trace, busy time, gaps and what the host was doing), text_view.py, chrome_trace.py
and html_view.py (with timeline.css and timeline.js); `Timeline`, here, is what users hold.

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
import gzip
import json

from .chrome_trace import to_chrome_trace
from .html_view import html_view
from .text_view import text_view
from .trace import (Trace, _duration, _is_device, _percent, _plural, _validate, busy_intervals, find_gaps,  # noqa: F401
                    format_bytes, format_duration, gap_text)

__all__ = ["Timeline", "Trace", "to_chrome_trace"]


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

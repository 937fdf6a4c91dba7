"""%%cuda_timeline's view (the xcuda/_timeline_view package) on synthetic traces: idle time and gap
arithmetic, what a gap is said to come after, the summary and text view, the Chrome trace and
save(), the HTML (self-contained, escaped, one tooltip per bar, unique ids) and, in headless
Chromium, that its script runs without errors and zooms, pans and resets. No GPU, no build."""
import collections
import gzip
import html.parser
import importlib
import importlib.util
import json
import os
import pathlib
import re
import sys

import pytest

# Imported by path, not as xcuda._timeline_view: the package is pure Python and these tests must
# also run before the compiled xcuda package is built, as
#   python3 -m pytest -p no:cacheprovider --noconftest tests/magics/python/test_timeline_view.py
# (this folder's conftest.py imports xcuda); with the package built, ctest's run of the whole
# folder imports the same files this way.
_DIR = pathlib.Path(__file__).resolve().parents[3] / "magics" / "python" / "xcuda" / "_timeline_view"
_spec = importlib.util.spec_from_file_location("xcuda_timeline_view_under_test", _DIR / "__init__.py",
                                               submodule_search_locations=[str(_DIR)])
tv = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = tv
_spec.loader.exec_module(tv)
model = importlib.import_module(_spec.name + ".trace")
html_view = importlib.import_module(_spec.name + ".html_view")
Trace, Timeline = tv.Trace, tv.Timeline

T0 = 1_000_000  # the window starts here on the records' clock; offsets below are from it

SOURCE = "\n".join([
    "import torch",                       # 1
    "y = f(x)",                           # 2
    "",                                   # 3
    "",                                   # 4
    "",                                   # 5
    "z = y.to('cuda', non_blocking=True)",  # 6
    "    torch.cuda.synchronize()  ",     # 7
    "print(y)",                           # 8
])


def rec(kind, name, start, end, **keys):
    return dict(kind=kind, name=name, start_ns=T0 + start, end_ns=T0 + end, **keys)


def kernel(name, start, end, stream, correlation=None, **keys):
    keys = dict(dict(grid=(64, 1, 1), block=(256, 1, 1), registers=32, static_shared=0, dynamic_shared=1024), **keys)
    if correlation is not None:
        keys["correlation"] = correlation
    return rec("kernel", name, start, end, stream=stream, **keys)


def example_trace():
    """A 100 µs window: busy [0,5) (a memset partly before the window), [10,40) (two streams
    overlapping), [50,60) (a copy), [95,100) (a kernel running past the window's end); idle 50 µs;
    gaps [5,10) after line 1, [40,50) after line 2's launch, [60,95) after the sync at line 7."""
    records = [
        rec("memset", "memset", -5_000, 5_000, stream=0, bytes=4096, correlation=9),
        kernel("void f<int>(float*)", 10_000, 30_000, 0, correlation=1),
        kernel("g & h", 20_000, 40_000, 7, correlation=2, registers=40, unknown_extra_key="ignored"),
        rec("memcpy", "memcpy", 50_000, 60_000, stream=0, bytes=20_000, direction="HtoD", pinned=True, correlation=3),
        kernel("tail_kernel", 95_000, 120_000, 7),
        rec("api", "cuLaunchKernel", 8_000, 9_000, correlation=1),
        rec("api", "cuLaunchKernel", 15_000, 16_000, correlation=2),
        rec("api", "cudaMemcpyAsync", 45_000, 47_000, correlation=3),
        rec("sync", "cuStreamSynchronize", 48_000, 61_000, stream=0),
        rec("nvtx", "outer", 2_000, 90_000, domain="demo"),
        rec("nvtx", "inner <b>", 3_000, 20_000),
    ]
    lines = [(T0 + 1_000, 1), (T0 + 7_000, 2), (T0 + 44_000, 6), (T0 + 47_500, 7), (T0 + 61_500, 8)]
    return Trace(records=records, lines=lines, source=SOURCE, start_ns=T0, end_ns=T0 + 100_000,
                 device="NVIDIA H200", clock_note="", notes=["NVTX ranges of domain `demo` only"])


def small_trace(records, start=0, end=100_000, lines=(), source="", **keys):
    return Trace(records=list(records), lines=list(lines), source=source, start_ns=T0 + start, end_ns=T0 + end,
                 device="the CPU device (emulated sm_90)", **keys)


# --------------------------------------------------------------------------------------------
# Idle time and gaps

def test_idle_time_merges_overlapping_streams_and_clips_records_to_the_window():
    t = Timeline(example_trace())
    assert t.window_ns == 100_000
    assert t.busy_ns == 5_000 + 30_000 + 10_000 + 5_000
    assert t.idle_fraction == 0.5
    assert [(g.start_ns - T0, g.end_ns - T0, g.duration_ns) for g in t.gaps] == [
        (5_000, 10_000, 5_000), (40_000, 50_000, 10_000), (60_000, 95_000, 35_000)]


def test_each_gap_names_the_cell_line_and_the_call_the_host_was_in_or_had_just_made():
    gaps = Timeline(example_trace()).gaps
    assert gaps[0].after == "`import torch` at line 1"  # no call yet: the first launch is at 8 µs
    assert gaps[1].after == "`y = f(x)` at line 2, after cuLaunchKernel"
    assert gaps[2].after == "`torch.cuda.synchronize()` at line 7, in cuStreamSynchronize"
    assert Timeline(example_trace()).longest_gap == gaps[2]


def test_the_idle_tail_after_the_last_device_work_is_idle_time_but_not_a_named_gap():
    t = Timeline(small_trace([kernel("k", 10_000, 20_000, 0)]))
    assert t.idle_fraction == 0.9
    assert [(g.start_ns - T0, g.end_ns - T0) for g in t.gaps] == [(0, 10_000)]
    assert t.gaps[0].after == "the start of the cell"  # nothing else known about the host


def test_idle_stretches_shorter_than_a_microsecond_or_a_thousandth_of_the_window_are_not_gaps():
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 10_999, 20_000, 0)], end=20_000))
    assert t.gaps == [] and t.idle_ns == 999
    # a 10 ms window: 5 µs between kernels is launch latency, 20 µs is a gap
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 15_000, 20_000, 0),
                              kernel("c", 40_000, 10_000_000, 0)], end=10_000_000))
    assert [(g.start_ns - T0, g.duration_ns) for g in t.gaps] == [(20_000, 20_000)]


def test_a_graph_counts_as_busy_and_its_nodes_do_not_count_twice():
    t = Timeline(small_trace([rec("graph", "graph of 2 nodes", 10_000, 50_000, stream=3),
                              kernel("node1", 12_000, 30_000, 3), kernel("node2", 31_000, 49_000, 3)]))
    assert t.busy_ns == 40_000
    assert t.gaps[0].duration_ns == 10_000 and len(t.gaps) == 1


def test_a_long_cell_line_is_quoted_shortened_and_a_gap_with_only_a_call_names_the_call():
    source = "result = " + "very_long_function_name(" * 4 + ")" * 4
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 50_000, 60_000, 0)],
                             lines=[(T0 + 5_000, 1)], source=source))
    quoted = re.fullmatch(r"`(.*)` at line 1", t.gaps[0].after).group(1)
    assert len(quoted) == model.LINE_QUOTE_CHARS and quoted.endswith("…") and quoted.startswith("result = very_long")
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), rec("sync", "cuCtxSynchronize", 1_000, 10_500),
                              kernel("b", 50_000, 60_000, 0)]))
    assert t.gaps[0].after == "cuCtxSynchronize"


def test_the_call_named_is_the_innermost_spanning_the_gap_start_or_else_the_last_ended():
    records = [kernel("a", 0, 10_000, 0), kernel("b", 60_000, 70_000, 0),
               rec("sync", "cudaDeviceSynchronize", 5_000, 50_000),   # the runtime call ...
               rec("sync", "cuCtxSynchronize", 5_000, 11_000),        # ... and the driver's, inside it
               rec("api", "cuMemAlloc", 12_000, 13_000)]
    context = model.HostContext(small_trace(records))
    assert context.call_at(T0 + 10_000) == (records[3], True)
    assert context.call_at(T0 + 30_000) == (records[2], True)  # the inner calls have ended
    assert context.call_at(T0 + 55_000) == (records[2], False)
    assert context.call_at(T0 + 1_000) == (None, False)


def test_thousands_of_gaps_each_name_their_own_sync():
    # a launch and a sync per iteration of 20 µs, the GPU idle 18 µs after each (the threshold
    # is 0.1% of the 10 ms window: 10 µs): 499 gaps between kernels, each found by bisection
    records, lines = [], []
    for i in range(500):
        t = 20_000 * i
        lines += [(T0 + t, 2), (T0 + t + 100, 3)]
        records += [rec("api", "cuLaunchKernel", t + 200, t + 300, correlation=i),
                    kernel("k", t + 400, t + 2_000, 0, correlation=i),
                    rec("sync", "cuStreamSynchronize", t + 500, t + 2_100, stream=0)]
    t = Timeline(small_trace(records, end=20_000 * 500, lines=lines,
                             source="for i in range(500):\n    launch()\n    sync()"))
    assert len(t.gaps) == 499 and t.gaps[0].start_ns == T0 + 2_000  # 400 ns before the first: no gap
    assert {g.after for g in t.gaps} == {"`sync()` at line 3, in cuStreamSynchronize"}


def test_a_gap_names_the_line_that_held_the_host_for_most_of_it():
    # the gap [10, 90) µs: line 1 until 12 µs, line 2 (a short one) until 15 µs, line 3 until 90 µs
    source = "launch()\nsync()\ntime.sleep(1)\nlaunch()"
    lines = [(T0, 1), (T0 + 12_000, 2), (T0 + 15_000, 3), (T0 + 90_000, 4)]
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 90_000, 95_000, 0)], lines=lines,
                             source=source))
    gap = t.longest_gap
    assert gap.after == "`launch()` at line 1" and gap.during == "`time.sleep(1)` at line 3"
    assert "after `launch()` at line 1, mostly during `time.sleep(1)` at line 3" in t.summary()
    # no line held it for half the gap: no `during`
    lines = [(T0, 1), (T0 + 40_000, 2), (T0 + 60_000, 3), (T0 + 90_000, 4)]
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 90_000, 95_000, 0)], lines=lines,
                             source=source))
    assert t.longest_gap.during is None


def test_a_quoted_line_leaves_its_comment_out_but_not_a_hash_in_a_string():
    source = 'y = f(x)  # the slow one\ns = "#%d" % i  # a format\nz = g(  # continued\n    1)'
    assert [model.quote_line(source, i) for i in (1, 2, 3)] == [
        "`y = f(x)` at line 1", '`s = "#%d" % i` at line 2', "`z = g(` at line 3"]


def test_a_line_outside_the_source_or_blank_is_named_by_number():
    t = Timeline(small_trace([kernel("a", 0, 10_000, 0), kernel("b", 50_000, 60_000, 0)],
                             lines=[(T0, 1), (T0 + 9_000, 3)], source="x = 1\n\n"))
    assert t.gaps[0].after == "line 3"


# --------------------------------------------------------------------------------------------
# Summary, repr, text

def test_the_summary_states_idle_time_the_longest_gap_and_what_ran():
    assert Timeline(example_trace()).summary() == (
        "GPU idle 50% of the cell (50.0 µs of 100 µs), longest gap 35.0 µs after "
        "`torch.cuda.synchronize()` at line 7, in cuStreamSynchronize, mostly during `print(y)` at line 8; "
        "3 kernels (65.0 µs), 1 copy (20.0 kB, 10.0 µs), 1 memset (4.1 kB, 10.0 µs)")
    assert repr(Timeline(example_trace())) == "<xcuda.Timeline: 3 kernels, 1 copy, GPU idle 50%>"


def test_durations_switch_units_at_a_thousand():
    assert [model.format_duration(ns) for ns in (12, 3_400, 812_000, 4_100_000, 32_400_000, 1_234_000_000)] == [
        "12 ns", "3.4 µs", "812 µs", "4.1 ms", "32.4 ms", "1.2 s"]


def test_no_device_work_says_so_instead_of_dividing_by_zero():
    t = Timeline(small_trace([], end=1_000_000))
    assert t.summary() == "no GPU work was recorded in this cell (1.0 ms window)"
    assert t.idle_fraction == 1.0 and t.gaps == [] and t.longest_gap is None
    assert repr(t) == "<xcuda.Timeline: no GPU work>"
    assert "no GPU work was recorded in this cell" in str(t)
    assert "no GPU work was recorded in this cell" in t._repr_html_()
    assert [e for e in tv.to_chrome_trace(t.trace)["traceEvents"] if e["ph"] == "X"] == []
    empty_window = Timeline(small_trace([], start=0, end=0))
    assert empty_window.idle_fraction == 0.0 and "no GPU work" in empty_window.summary()


def test_the_text_view_lists_kernels_by_total_time_per_stream_copies_gaps_and_notes():
    records = [kernel("small", 1_000 * i, 1_000 * i + 500, 0) for i in range(3)]
    records += [kernel("void big<float>(float*)", 10_000, 20_000, 0)]
    records += [kernel(f"k{i}", 30_000 + 1_000 * i, 30_000 + 1_000 * i + 10, 5) for i in range(12)]
    records += [rec("memcpy", "memcpy", 50_000, 60_000, stream=0, bytes=20_000, direction="DtoH", pinned=False)]
    text = str(Timeline(small_trace(records, notes=["a caveat"], clock_note="host time")))
    default = text[text.index("GPU default stream"):text.index("GPU stream 5")]
    assert default.index("kernel big<float>") < default.index("kernel small")
    assert re.search(r"kernel small\s+3\s+1\.5 µs\s+500 ns", default)
    assert re.search(r"copy DtoH \(device → host\)\s+1\s+10\.0 µs\s+10\.0 µs\s+20\.0 kB\s+2\.00", default)
    assert "(2 more)" in text[text.index("GPU stream 5"):]  # the top 10 of 12 kernels, then the rest
    assert "Longest gaps (GPU idle)" in text and "clock: host time" in text and "  - a caveat" in text
    assert "\x1b" not in text


def test_the_text_view_names_the_gap_after_the_sync():
    text = str(Timeline(example_trace()))
    gaps = text[text.index("Longest gaps"):].splitlines()
    assert gaps[1] == ("  35.0 µs from 60.0 µs after `torch.cuda.synchronize()` at line 7, in cuStreamSynchronize, "
                       "mostly during `print(y)` at line 8")
    assert "sync cuStreamSynchronize" in text and "NVTX inner <b>" in text  # plain text: not escaped


def test_kernel_names_lose_return_type_parameters_and_namespaces_in_labels():
    assert model.short_name("void at::native::f<at::native::mul<float>, 4>(float*, int)") == "f<mul<float>, 4>"
    assert model.short_name("saxpy") == "saxpy"
    long = model.short_name("void k<" + "float, " * 30 + "int>(int)")
    assert len(long) == 60 and long.endswith("…")


def test_a_record_with_only_the_required_keys_renders_everywhere():
    bare = [dict(kind=kind, name=kind, start_ns=T0 + 1_000 * i, end_ns=T0 + 1_000 * i + 500)
            for i, kind in enumerate(("kernel", "memcpy", "memset", "graph", "sync", "api", "nvtx"))]
    t = Timeline(small_trace(bare))
    assert "7 records" not in t._repr_html_()
    assert str(t) and t.summary().startswith("GPU idle")
    assert len([e for e in tv.to_chrome_trace(t.trace)["traceEvents"] if e["ph"] == "X"]) == 7
    assert "unknown stream" in str(t)


def test_a_record_without_a_required_key_is_an_error_that_names_it():
    with pytest.raises(ValueError, match="record 0 has no end_ns"):
        Timeline(small_trace([dict(kind="kernel", name="k", start_ns=T0)]))


# --------------------------------------------------------------------------------------------
# Chrome trace

def chrome(trace=None):
    return json.loads(json.dumps(tv.to_chrome_trace(trace or example_trace())))


def names(events, kind):
    """{(pid, tid): name} of process_name (tid None) or thread_name metadata."""
    return {(e["pid"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == kind}


def test_the_chrome_trace_has_complete_events_in_microseconds_from_the_window_start():
    data = chrome()
    assert data["displayTimeUnit"] == "ms"
    events = data["traceEvents"]
    processes = names(events, "process_name")
    gpu = next(pid for (pid, _), name in processes.items() if name == "GPU: NVIDIA H200")
    host = next(pid for (pid, _), name in processes.items() if name == "Host")
    f = next(e for e in events if e["ph"] == "X" and e["name"] == "void f<int>(float*)")
    assert (f["ts"], f["dur"], f["pid"], f["tid"], f["cat"]) == (10.0, 20.0, gpu, 0, "kernel")
    assert f["args"] == {"stream": 0, "grid": [64, 1, 1], "block": [256, 1, 1], "registers": 32,
                         "static shared bytes": 0, "dynamic shared bytes": 1024, "correlation": 1}
    copy = next(e for e in events if e["ph"] == "X" and e["cat"] == "memcpy")
    assert copy["args"] == {"stream": 0, "bytes": 20000, "GB/s": 2.0, "direction": "HtoD", "memory": "pinned",
                            "correlation": 3}
    memset = next(e for e in events if e["ph"] == "X" and e["cat"] == "memset")
    assert (memset["ts"], memset["dur"]) == (-5.0, 10.0)  # the file keeps true times; the view clips
    threads = names(events, "thread_name")
    assert threads[(gpu, 0)] == "default stream" and threads[(gpu, 7)] == "stream 7"
    sync = next(e for e in events if e["ph"] == "X" and e["cat"] == "sync")
    assert sync["pid"] == host and threads[(host, sync["tid"])] == "API calls"
    nvtx = {e["name"]: e for e in events if e["ph"] == "X" and e["cat"] == "nvtx"}
    assert threads[(host, nvtx["outer"]["tid"])] == "NVTX" and threads[(host, nvtx["inner <b>"]["tid"])] == "NVTX (2)"
    assert nvtx["outer"]["args"] == {"domain": "demo"}
    lines = [e for e in events if e["ph"] == "i"]
    assert [(e["name"], e["ts"]) for e in lines][:2] == [("line 1", 1.0), ("line 2", 7.0)]
    assert {threads[(e["pid"], e["tid"])] for e in lines} == {"cell lines"}
    assert data["otherData"]["notes"] == ["NVTX ranges of domain `demo` only"]


def test_flow_events_link_each_api_call_to_the_work_with_its_correlation():
    events = chrome()["traceEvents"]
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e for e in events if e["ph"] == "f"}
    assert set(starts) == set(finishes) == {1, 2, 3}
    x = {(e["pid"], e["tid"], e["ts"]): e for e in events if e["ph"] == "X"}
    for cid in (1, 2, 3):
        call, work = x[starts[cid]["pid"], starts[cid]["tid"], starts[cid]["ts"]], \
            x[finishes[cid]["pid"], finishes[cid]["tid"], finishes[cid]["ts"]]
        assert call["cat"] == "api" and call["args"]["correlation"] == cid
        assert work["cat"] in model.DEVICE_KINDS and work["args"]["correlation"] == cid
        assert finishes[cid]["bp"] == "e" and starts[cid]["name"] == finishes[cid]["name"]


def test_save_writes_the_chrome_trace_as_json_or_gzipped_json(tmp_path):
    t = Timeline(example_trace())
    assert t.save(tmp_path / "cell.json") == tmp_path / "cell.json"
    assert json.loads((tmp_path / "cell.json").read_text()) == chrome()
    t.save(str(tmp_path / "cell.json.gz"))
    with gzip.open(tmp_path / "cell.json.gz", "rt", encoding="utf-8") as f:
        assert json.load(f) == chrome()


# --------------------------------------------------------------------------------------------
# HTML

class Elements(html.parser.HTMLParser):
    """The tags of an HTML fragment with their attributes and parents, and the text of <script>."""

    VOID = {"br", "meta", "input", "img", "hr"}

    def __init__(self, text):
        super().__init__()
        self.stack, self.found, self.scripts = [], [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs), self.stack[-1] if self.stack else None))
        if tag not in self.VOID:
            self.stack.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.found.append((tag, dict(attrs), self.stack[-1] if self.stack else None))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "script":
            self.scripts.append(data)

    def bars(self):
        return [attrs for tag, attrs, _ in self.found if tag == "rect" and "xtl-bar" in attrs.get("class", "")]

    def bar_titles(self):
        return [parent for tag, _, parent in self.found
                if tag == "title" and parent and parent[0] == "rect" and "xtl-bar" in parent[1].get("class", "")]

    def ids(self):
        return [attrs["id"] for _, attrs, _ in self.found if "id" in attrs]


def test_the_html_fetches_nothing():
    text = Timeline(example_trace())._repr_html_()
    for forbidden in ("src=", 'href="http', "@import", "https://", "http://", "<link", "<iframe"):
        assert forbidden not in text, forbidden
    assert re.findall(r"url\(([^)]*)\)", text) and all(u.startswith("#") for u in re.findall(r"url\(([^)]*)\)", text))
    scripts = Elements(text).scripts
    assert len(scripts) == 1 and not re.search(r"\bimport\b|\brequire\(|fetch\(|XMLHttpRequest", scripts[0])


def test_the_html_escapes_names():
    text = Timeline(example_trace())._repr_html_()
    assert "void f&lt;int&gt;(float*)" in text and "f<int>" not in text
    assert "g &amp; h" in text and "g & h" not in text
    assert "inner &lt;b&gt;" in text and "inner <b>" not in text


def test_every_drawn_bar_has_one_title_and_records_in_the_window_are_drawn():
    page = Elements(Timeline(example_trace())._repr_html_())
    bars = page.bars()
    assert len(bars) == 11  # every record intersects the window
    titled = page.bar_titles()
    assert len(titled) == len(bars)  # every title under a bar, counted per bar below
    assert collections.Counter(a["x"] + "/" + a["y"] for _, a in titled) == \
        collections.Counter(a["x"] + "/" + a["y"] for a in bars)


def test_bars_outside_the_window_are_not_drawn_and_the_html_says_so():
    t = Timeline(small_trace([kernel("in", 0, 10_000, 0), kernel("out", 200_000, 210_000, 0)]))
    text = t._repr_html_()
    assert len(Elements(text).bars()) == 1 and "1 record lies outside the cell&#x27;s window" in text


def test_two_renderings_never_share_an_element_id():
    t = Timeline(example_trace())
    first, second = Elements(t._repr_html_()).ids(), Elements(t._repr_html_()).ids()
    assert len(first) == len(set(first)) and len(second) == len(set(second))
    assert not set(first) & set(second)


def test_over_the_cap_bars_narrower_than_a_pixel_are_merged_per_stream_and_pixel():
    # 6000 kernels of 5-7 ns every 10 ns on 4 streams, and 100 API calls, in 60 µs: a pixel is 75 ns
    records = [kernel(f"k{i % 7}", 10 * i, 10 * i + 5 + i % 3, i % 4) for i in range(6000)]
    records += [rec("api", "cuLaunchKernel", 10 * i, 10 * i + 2, correlation=i) for i in range(100)]
    trace = small_trace(records, end=60_000)
    bars = html_view.merge_narrow(records, trace)
    assert sorted(id(r) for b in bars for r in b.get("merged", [b])) == sorted(map(id, records))  # none lost
    for b in bars:
        members = b.get("merged", [b])
        assert len({(r["kind"] == "api", r.get("stream")) for r in members}) == 1  # one lane per bar
        assert b["start_ns"] == min(r["start_ns"] for r in members) and b["end_ns"] == max(r["end_ns"] for r in members)
    page = Elements(Timeline(trace)._repr_html_())
    assert len(page.bars()) == len(bars) < html_view.MAX_DRAWN_BARS and len(page.bar_titles()) == len(bars)
    text = Timeline(trace)._repr_html_()
    merged = [b for b in bars if "merged" in b]
    assert f"{sum(len(b['merged']) for b in merged)} records narrower than a pixel are drawn merged into " \
           f"{len(merged)} bars" in text and len(merged) > 1000
    assert re.search(r"<title>\d+ records narrower than a pixel, drawn as one bar:\n  \d+ kernels \(k\d ×\d+", text)


def test_over_the_cap_wider_bars_are_left_out_host_calls_and_the_shortest_first_with_a_note():
    records = [kernel(f"k{i}", 10 * i, 10 * i + 10_000 + i, i % 4) for i in range(6000)]
    records += [rec("api", "cuLaunchKernel", 10 * i, 10 * i + 5_000, correlation=i) for i in range(100)]
    text = Timeline(small_trace(records, end=100_000))._repr_html_()
    bars = Elements(text).bars()
    assert len(bars) == html_view.MAX_DRAWN_BARS and "1100 of 6100 records are not drawn" in text
    assert all(b["fill"] == html_view.COLOURS["kernel"][0] for b in bars)  # the API calls went first
    assert "<title>k5999\n" in text and "<title>k999\n" not in text  # then the shortest kernels
    assert len(text) < 3_000_000


def test_the_static_html_reads_without_scripts():
    text = Timeline(example_trace())._repr_html_()
    # the zoom controls appear only once the script runs; the summary and lanes are plain markup
    assert re.search(r'<div class="xtl-controls" style="display:none">', text)
    assert "<b>GPU idle 50% of the cell" in text and ">default stream</text>" in text
    assert ">longest gap 35.0 µs</text>" in text and ">stream 7</text>" in text


# --------------------------------------------------------------------------------------------
# In a browser

CHROMIUM = os.environ.get("XCUDA_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("XCUDA_CHROMEDRIVER", "/usr/bin/chromedriver")


@pytest.fixture
def browser(tmp_path):
    """Headless Chromium through Selenium, with the options tests/browser/lab_driver.py uses."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    if missing:
        pytest.skip(f"needs headless Chromium and chromedriver: {', '.join(missing)} not found")
    if importlib.util.find_spec("selenium") is None:
        pytest.skip("needs selenium (Debian: python3-selenium) to drive Chromium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1300,1400", f"--user-data-dir={tmp_path / 'chromium-profile'}",
                "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # the system chromedriver, named explicitly: nothing is downloaded (no selenium-manager)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER,
                                              log_path=str(tmp_path / "chromedriver.log")), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def severe(driver, ignore=()):
    return [e for e in driver.get_log("browser")
            if e["level"] == "SEVERE" and not any(word in e["message"] for word in ignore)]


def view_boxes(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('svg.xtl-plot')).map(s => s.getAttribute('viewBox'))")


def check_zoom_pan_reset_and_tooltip(driver, initial):
    """Wheel over the first timeline zooms it (only it), dragging pans, reset restores; hovering
    a bar shows the script's tooltip."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from selenium.webdriver.common.by import By
    plot = driver.find_elements(By.CSS_SELECTOR, "svg.xtl-plot")[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", plot)
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(plot, 0, 0), 0, -300).perform()
    zoomed = view_boxes(driver)
    x, _, width, _ = map(float, zoomed[0].split())
    assert width < float(initial[0].split()[2]) and x > 0, zoomed  # zoomed in around the middle
    assert zoomed[1:] == initial[1:]
    ActionChains(driver).move_to_element(plot).click_and_hold().move_by_offset(-150, 0).release().perform()
    panned_x = float(view_boxes(driver)[0].split()[0])
    assert panned_x > x, (panned_x, x)  # dragging left shows later times
    driver.find_elements(By.CSS_SELECTOR, "button.xtl-reset")[0].click()
    assert view_boxes(driver) == initial
    bar = driver.execute_script(
        "return Array.from(document.querySelectorAll('rect.xtl-bar')).find(r => r.querySelector('title')"
        " && r.querySelector('title').textContent.startsWith('void f<int>'))")
    ActionChains(driver).move_to_element(bar).perform()
    tip = driver.execute_script("const t = document.querySelector('.xtl-tip');"
                                "return [getComputedStyle(t).display, t.textContent]")
    assert tip[0] == "block" and tip[1].startswith("void f<int>(float*)\nkernel on default stream"), tip


def test_in_chromium_the_script_runs_without_errors_and_zooms_pans_and_resets(browser, tmp_path):
    t = Timeline(example_trace())
    page = tmp_path / "timeline.html"
    page.write_text("<!doctype html><meta charset='utf-8'><body>" + t._repr_html_() + t._repr_html_() + "</body>",
                    encoding="utf-8")
    browser.get(page.as_uri())
    assert severe(browser) == []
    initial = view_boxes(browser)
    assert initial == [f"0 0 {html_view.PLOT_W} {initial[0].split()[3]}"] * 2
    assert browser.execute_script(
        "return Array.from(document.querySelectorAll('.xtl-controls')).map(c => getComputedStyle(c).display)") \
        == ["flex", "flex"]  # shown by the script of each timeline
    check_zoom_pan_reset_and_tooltip(browser, initial)
    assert severe(browser) == []


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # nbconvert's own call of nbformat.validate
def test_in_nbconverts_html_opened_offline_the_timeline_works(browser, tmp_path):
    for module in ("nbformat", "nbconvert"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"needs {module} to convert a notebook to HTML")
    import nbconvert
    import nbformat
    t = Timeline(example_trace())
    cell = nbformat.v4.new_code_cell("%%cuda_timeline\n...", execution_count=1, outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": t._repr_html_(), "text/plain": str(t)})])
    notebook = nbformat.v4.new_notebook(cells=[cell, nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("display_data", data={"text/html": t._repr_html_(), "text/plain": str(t)})])])
    body, _ = nbconvert.HTMLExporter().from_notebook_node(notebook)
    page = tmp_path / "notebook.html"
    page.write_text(body, encoding="utf-8")
    browser.get(page.as_uri())
    # nbconvert's own template loads require.js and MathJax from a CDN, which fails offline;
    # anything else (our script) must not fail
    assert severe(browser, ignore=("net::ERR_", "cdnjs", "cdn.jsdelivr", "unpkg")) == []
    initial = view_boxes(browser)
    assert len(initial) == 2
    check_zoom_pan_reset_and_tooltip(browser, initial)

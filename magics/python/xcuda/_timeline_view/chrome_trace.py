"""The timeline as Chrome's Trace Event Format (JSON), which Perfetto and chrome://tracing open:
times in µs from the cell's start, unclipped; host lines, calls and NVTX ranges as host threads,
each stream as a GPU thread, flow arrows from each launch to its work."""
from .trace import (_duration, format_rate, HOST_CALL_KINDS, _is_device, _pinned_word, quote_line,
                     stacked_rows, _stream_label, _stream_order, _validate)

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

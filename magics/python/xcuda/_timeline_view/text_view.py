"""The timeline as plain text (terminals, text/plain): the summary, a table per lane, the longest
gaps and the notes."""
import collections

from .trace import (_copy_label, _duration, format_bytes, format_duration, format_rate, gap_text,
                     HOST_CALL_KINDS, _is_device, merged_intervals, short_name, _shorten,
                     _stream_label, _stream_order)


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

"""The timeline as one self-contained HTML fragment: the SVG is drawn here, so it reads with scripts
blocked (tooltips are SVG <title>s); the inline script (timeline.js, beside this file, with its
style timeline.css) adds wheel zoom, drag pan, a reset button and quicker tooltips. Nothing is
fetched. Over MAX_DRAWN_BARS bars, those narrower than a pixel are merged per lane and pixel, and
if that is not enough host calls and then the shortest are left out; the HTML says which."""
import collections
import html
import importlib.resources
import itertools
import json
import math
import re
import secrets

from .trace import (_copy_label, _duration, format_bytes, format_duration, format_rate, gap_text,
                     HOST_CALL_KINDS, _is_device, merged_intervals, _pinned_word, _plural,
                     quote_line, short_name, _shorten, stacked_rows, _stream_label, _stream_order)

MAX_DRAWN_BARS = 5000       # the HTML stays light with thousands of records
MAX_LABELS = 500            # text labels on bars (the widest ones); every bar has a tooltip
MAX_LINE_TICKS = 3000

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


def _asset(name):
    return importlib.resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


_STYLE = _asset("timeline.css")
_SCRIPT = _asset("timeline.js")


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
        '<g class="xtl-axis" fill="#57606a">' + "".join(axis) + "</g>",
        f'<line x1="{PLOT_X}" x2="{PLOT_X + PLOT_W}" y1="{AXIS_H}" y2="{AXIS_H}" stroke="#8c959f"/>',
        '<text x="8" y="14" fill="#57606a">time since cell start</text>',
        f'<g transform="translate(0 {AXIS_H})">' + "".join(row_text) + "</g>",
        "</svg>",
        '<div class="xtl-tip"></div>',
        "<script>" + _SCRIPT.replace("__CONFIG__", json.dumps(config)) + "</script>",
        "</div>",
    ]
    return "\n".join(p for p in parts if p)

"""compute-sanitizer's text report, read into findings in the cell's terms: the kind, the cell
line and its source, the kernel parameter and element an address falls in, the thread and block,
and how often the same finding repeated.

The text is what `compute-sanitizer --log-file` writes: each report a header line, then detail
lines ("at KERNEL+0xOFF in FILE:LINE", "by thread (x,y,z) in block (x,y,z)", "Address 0x...",
"Saved host backtrace ..." and its frames), every line prefixed by "========= ". Headers this
module does not know are kept as kind "other" with their text, so nothing the tool says is lost.
"""
import dataclasses
import re

PREFIX = "========="

# header pattern -> kind; the kinds the CPU device's checks use where they mean the same
_HEADERS = [
    (re.compile(r"Invalid (?P<space>__\w+__ )?(?P<access>read|write|atomic)\w* of size (?P<size>\d+) bytes?"),
     "out_of_bounds"),
    (re.compile(r"Misaligned (?:Shared or Local )?Address", re.I), "misaligned"),
    (re.compile(r"Uninitiali[sz]ed (?P<space>__\w+__ )?memory (?P<access>read) of size (?P<size>\d+) bytes?"),
     "uninitialised_read"),
    (re.compile(r"(?:Error|Warning): Race reported between (?P<access>\w+) access at (?P<at>.+?)$"), "shared_race"),
    (re.compile(r"Barrier error detected\.?\s*(?P<what>.*)"), "divergent_barrier"),
    (re.compile(r"Invalid arguments? (?P<what>.*)"), "invalid_sync"),
]
# Lines that are not findings: what the host saw after a fault, the summary, the tool's notes.
_NOT_FINDINGS = re.compile(r"^(Program hit |ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY|Target application returned|"
                           r"COMPUTE-SANITIZER|Error: process didn't terminate|This tool|No kernel|Note:|"
                           r"Saved host backtrace|Host Frame)")
_AT = re.compile(r"^at (?P<symbol>\S+?)(?:\+0x[0-9a-fA-F]+)?(?: in (?P<file>.+?):(?P<line>\d+))?\s*$")
_RACE_OTHER = re.compile(r"^and (?P<access>\w+) access at (?P<at>.+?)(?: \[(?P<hazards>\d+) hazards?\])?\s*$")
_RACE_AT = re.compile(r"^(?P<symbol>\S+?)(?:\+0x[0-9a-fA-F]+)?(?: in (?P<file>.+?):(?P<line>\d+))?\s*$")
_THREAD = re.compile(r"by thread \((\d+),(\d+),(\d+)\) in block \((\d+),(\d+),(\d+)\)")
_ADDRESS = re.compile(r"^(?:Address|Access to) (0x[0-9a-fA-F]+)")


@dataclasses.dataclass
class Allocation:
    """Where a kernel parameter's array lived in the child: for naming the element an address is."""
    parameter: str
    ptr: int
    nbytes: int
    itemsize: int
    ctype: str = ""


@dataclasses.dataclass
class SanitizerFinding:
    """One kind of finding at one cell line (repeats counted): what %%cuda_check on a GPU reports."""
    kind: str
    header: str
    kernel: str = ""
    line: int = 0
    source: str = ""
    thread: tuple = None
    block: tuple = None
    address: int = None
    parameter: str = None
    element: int = None
    where: str = ""  # "p[1000] is 0 bytes past the end of `p` (1000 elements, 4000 bytes)"
    other_line: int = 0  # a race's other access
    other_source: str = ""
    count: int = 1

    def __str__(self):
        text = self.header
        at = f"kernel `{self.kernel}`" if self.kernel else "the kernel"
        if self.line:
            at += f" at line {self.line}" + (f": `{self.source}`" if self.source else "")
        if self.thread:
            text += f" by thread {_dim(self.thread)} of block {_dim(self.block)}"
        text += f", {at}"
        if self.other_line:
            text += f"\n  and line {self.other_line}" + (f": `{self.other_source}`" if self.other_source else "")
        if self.where:
            text += f"\n  {self.where}"
        if self.count > 1:
            text += f"\n  (reported {self.count} times: other threads, the same line)"
        return text


def _dim(t):
    return "(" + ",".join(str(v) for v in t) + ")"


def _lines_of(log):
    """The report's lines without the prefix, with their indentation (detail lines are indented)."""
    for raw in log.splitlines():
        if raw.startswith(PREFIX):
            yield raw[len(PREFIX):].rstrip()


def parse(log):
    """[(kind, header, details)] in order: details the detail lines of that report, stripped."""
    reports = []
    skipping = False
    for line in _lines_of(log):
        body = line.strip()
        if not body:
            continue
        indented = line.startswith("  ")
        if not indented:
            skipping = bool(_NOT_FINDINGS.match(body))
            if skipping:
                continue
            kind = next((k for pattern, k in _HEADERS if pattern.search(body)), "other")
            reports.append([kind, body, []])
        elif reports and not skipping:
            if body.startswith("Saved host backtrace"):
                skipping = True  # its frames follow, indented, until the next report
                continue
            reports[-1][2].append(body)
    return reports


def _place(address, allocations):
    """(parameter, element, words) for an address: inside an argument's array or nearest to one."""
    best = None
    for a in allocations:
        if a.ptr <= address < a.ptr + a.nbytes:
            element = (address - a.ptr) // a.itemsize
            return a.parameter, element, f"{a.parameter}[{element}] is inside `{a.parameter}` ({_size(a)})"
        distance = a.ptr - address if address < a.ptr else address - (a.ptr + a.nbytes)
        if best is None or distance < best[0]:
            best = (distance, a)
    if best is None:
        return None, None, ""
    distance, a = best
    if address < a.ptr:
        return a.parameter, None, f"{distance} bytes before the start of `{a.parameter}` ({_size(a)})"
    element = (address - a.ptr) // a.itemsize
    return a.parameter, element, (f"{a.parameter}[{element}] is {distance} bytes past the end of `{a.parameter}` "
                                  f"({_size(a)})")


def _size(a):
    elements = a.nbytes // a.itemsize if a.itemsize else 0
    kind = f" of {a.ctype}" if a.ctype else ""
    return f"{elements} elements{kind}, {a.nbytes} bytes"


def _header_words(kind, header, match_groups):
    """The header as the CPU device words it where the meaning is the same."""
    if kind == "out_of_bounds":
        space = (match_groups.get("space") or "").strip().strip("_") or "global"
        return f"out-of-bounds {match_groups['access']} of {match_groups['size']} bytes in {space} memory"
    if kind == "uninitialised_read":
        return f"read of {match_groups['size']} bytes of uninitialised global memory"
    if kind == "shared_race":
        return "shared-memory race"
    if kind == "divergent_barrier":
        what = match_groups.get("what", "").rstrip(".")
        return "barrier not reached by every thread of its block" + (f" ({what})" if what else "")
    return header


def findings(log, allocations=(), source=""):
    """The findings of a compute-sanitizer log, repeats of one kind at one line counted once."""
    source_lines = source.splitlines()

    def text_of(line):
        return source_lines[line - 1].strip() if 0 < line <= len(source_lines) else ""

    merged = {}
    for kind, header, details in parse(log):
        groups = next((m.groupdict() for pattern, k in _HEADERS if k == kind for m in [pattern.search(header)] if m),
                      {})
        f = SanitizerFinding(kind=kind, header=_header_words(kind, header, groups))
        if kind == "shared_race":
            at = _RACE_AT.match(groups["at"])
            if at:
                f.kernel, f.line = at["symbol"], int(at["line"] or 0)
        for d in details:
            m = _AT.match(d)
            if m and not f.line:
                f.kernel, f.line = m["symbol"], int(m["line"] or 0)
                continue
            m = _RACE_OTHER.match(d)
            if m and kind == "shared_race":
                other = _RACE_AT.match(m["at"])
                if other:
                    f.other_line = int(other["line"] or 0)
                if m["hazards"]:
                    f.count = int(m["hazards"])
                continue
            m = _THREAD.search(d)
            if m and f.thread is None:
                v = [int(x) for x in m.groups()]
                f.thread, f.block = tuple(v[:3]), tuple(v[3:])
                continue
            m = _ADDRESS.match(d)
            if m and f.address is None:
                f.address = int(m[1], 16)
        f.source, f.other_source = text_of(f.line), text_of(f.other_line)
        if f.address is not None and kind in ("out_of_bounds", "uninitialised_read", "misaligned"):
            f.parameter, f.element, f.where = _place(f.address, allocations)
        key = (f.kind, f.kernel, f.line, f.other_line, f.parameter, f.header)
        if key in merged:
            merged[key].count += f.count
        else:
            merged[key] = f
    return list(merged.values())

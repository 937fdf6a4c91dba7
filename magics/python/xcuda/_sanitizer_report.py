"""compute-sanitizer's text report, read into findings in the cell's terms: the kind, the cell
line and its source, the kernel parameter and element an address falls in, the thread and block,
and how often the same finding repeated.

The text is what `compute-sanitizer --log-file` writes: each report a header line, then detail
lines ("at KERNEL+0xOFF in FILE:LINE", "by thread (x,y,z) in block (x,y,z)", "Address 0x...",
"Saved host backtrace ..." and its frames), every line prefixed by "========= ". Headers this
module does not know are kept as kind "other" with their text, so nothing the tool says is lost.

A failed device assert is a "Warp assert" report at `__assertfail` with no line; its file, line
and message are in the program's own output (the device prints "cell.cu:5: void k(...): block:
[0,0,0], thread: [3,0,0] Assertion `...` failed."), which `findings` reads for them.
"""
import dataclasses
import re

PREFIX = "========="

# header pattern -> kind; the kinds the CPU device's checks use where they mean the same
_HEADERS = [
    # an invalid access: out of bounds, or misaligned when its detail says so ("is misaligned")
    (re.compile(r"Invalid (?P<space>__\w+__ )?(?P<access>read|write|atomic)\w* of size (?P<size>\d+) bytes?"),
     "out_of_bounds"),
    (re.compile(r"Misaligned (?:Shared or Local )?Address", re.I), "misaligned"),
    (re.compile(r"Uninitiali[sz]ed (?P<space>__\w+__ )?memory (?P<access>read) of size (?P<size>\d+) bytes?"),
     "uninitialised_read"),
    (re.compile(r"(?:Error|Warning): Race reported between (?P<access>\w+) access at (?P<at>.+?)$"), "shared_race"),
    (re.compile(r"Barrier error detected\.?\s*(?P<what>.*)"), "divergent_barrier"),
    (re.compile(r"Invalid arguments? (?P<what>.*)"), "invalid_sync"),
    (re.compile(r"Warp assert"), "assertion"),
    (re.compile(r"Malloc/Free Error encountered\s*:\s*Device-side double free"), "double_free"),
    (re.compile(r"Malloc/Free Error encountered\s*:\s*Invalid pointer to device-side free"), "invalid_free"),
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
_MISALIGNED = re.compile(r"^Access to 0x[0-9a-fA-F]+ is misaligned")
_IN_DEVICE_HEAP = re.compile(r"is located in the device heap")
# The device's own line for a failed assert (program output, not the tool's).
_ASSERTION = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+): (?P<function>.+?): block: \[(?P<block>\d+,\d+,\d+)\], "
                        r"thread: \[(?P<thread>\d+,\d+,\d+)\] Assertion `(?P<message>.*)` failed\.\s*$")
# No allocation lies in the first 4 GiB of a GPU's address space: an address there is a null
# pointer plus an offset (compute-sanitizer measures it to whichever allocation is nearest).
NULL_REGION = 1 << 32


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
    if kind in ("out_of_bounds", "misaligned") and "size" in match_groups:
        space = (match_groups.get("space") or "").strip().strip("_") or "global"
        what = "out-of-bounds" if kind == "out_of_bounds" else "misaligned"
        return f"{what} {match_groups['access']} of {match_groups['size']} bytes in {space} memory"
    if kind == "uninitialised_read":
        return f"read of {match_groups['size']} bytes of uninitialised global memory"
    if kind == "shared_race":
        return "shared-memory race"
    if kind == "divergent_barrier":
        what = match_groups.get("what", "").rstrip(".")
        return "barrier not reached by every thread of its block" + (f" ({what})" if what else "")
    if kind == "assertion":
        return "device assertion failed"
    if kind == "double_free":
        return "double free on the device heap (free of a block already freed)"
    if kind == "invalid_free":
        return "free of a pointer that device malloc did not return"
    return header


def _function_name(signature):
    """`k` of "void k(const float *, float *)", `ns::f<int, 2>` of "void ns::f<int, 2>(int *)"."""
    depth, end = 0, len(signature)
    for i, c in enumerate(signature):
        depth += c == "<"
        depth -= c == ">"
        if c == "(" and depth == 0:
            end = i
            break
    head, depth, start = signature[:end], 0, 0
    for i, c in enumerate(head):
        depth += c == "<"
        depth -= c == ">"
        if c == " " and depth == 0:
            start = i + 1
    return head[start:].strip()


def assertions(output):
    """{(thread, block): (file, line, kernel, message)} of the device's failed-assert lines in a
    program's output."""
    found = {}
    for raw in (output or "").splitlines():
        m = _ASSERTION.match(raw.strip())
        if m:
            thread = tuple(int(v) for v in m["thread"].split(","))
            block = tuple(int(v) for v in m["block"].split(","))
            found.setdefault((thread, block), (m["file"], int(m["line"]), _function_name(m["function"]), m["message"]))
    return found


def _null_place(address, null_pointers):
    """(parameter, words) for an address in the null region."""
    if len(null_pointers) == 1:
        return null_pointers[0], f"`{null_pointers[0]}` is a null pointer (the access is to address {address:#x})"
    if null_pointers:
        names = " or ".join(f"`{n}`" for n in null_pointers)
        return None, f"{names} is a null pointer (the access is to address {address:#x})"
    return None, (f"the address {address:#x} is a null pointer plus {address} bytes (no pointer argument and no "
                  "__device__ pointer of the cell is null: a pointer the kernel computed or read from memory)")


def findings(log, allocations=(), source="", output="", null_pointers=()):
    """The findings of a compute-sanitizer log, repeats of one kind at one line counted once.
    `output`: the program's own output (stdout and stderr), where a failed assert's line is;
    `null_pointers`: the names of the kernel's pointer arguments and the cell's __device__ pointers
    that were null, for naming what an access near address 0 went through."""
    source_lines = source.splitlines()
    asserted = assertions(output)

    def text_of(line):
        return source_lines[line - 1].strip() if 0 < line <= len(source_lines) else ""

    merged = {}
    for kind, header, details in parse(log):
        groups = next((m.groupdict() for pattern, k in _HEADERS if k == kind for m in [pattern.search(header)] if m),
                      {})
        if kind == "out_of_bounds" and any(_MISALIGNED.match(d) for d in details):
            kind = "misaligned"
        in_heap = any(_IN_DEVICE_HEAP.search(d) for d in details)
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
        if kind == "assertion" and asserted:
            # at __assertfail, no line: the device's own line for this thread has it
            _, f.line, f.kernel, message = asserted.get((f.thread, f.block), next(iter(asserted.values())))
            f.header = f"device assertion `{message}` failed"
        f.source, f.other_source = text_of(f.line), text_of(f.other_line)
        if f.address is not None and kind in ("out_of_bounds", "uninitialised_read", "misaligned"):
            if in_heap:
                f.where = ("the address is in the device heap (what malloc in a kernel returns): past the end of a "
                           "block, or in a block already freed")
            elif f.address < NULL_REGION and kind == "out_of_bounds":
                f.parameter, f.where = _null_place(f.address, list(null_pointers))
            else:
                f.parameter, f.element, f.where = _place(f.address, allocations)
                if kind == "misaligned":
                    size = groups.get("size", "")
                    f.where = f"the address is not a multiple of {size} bytes" + (f": {f.where}" if f.where else "")
        key = (f.kind, f.kernel, f.line, f.other_line, f.parameter, f.header)
        if key in merged:
            merged[key].count += f.count
        else:
            merged[key] = f
    return list(merged.values())

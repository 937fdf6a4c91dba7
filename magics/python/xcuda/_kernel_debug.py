"""A kernel debugged as Python is: one launch run on the CPU device from its cell compiled with -G,
a thread stopped at a line of the cell, stepped line by line, and its variables read by their
C++ names and types.

The DWARF of the -G compile (_ptx_dwarf.py) says where each variable lives; the CPU device's
_DebugSession (cuda-runtime/cpu-device/DESIGN.md, "The debugger") stops the launch and reads the
stopped thread's registers and memory. Kernel.debug prints a thread's lines as they run; the
notebook's debugger (the kernel's xcuda/_device_debugger.py) drives the same DebugLaunch through
JupyterLab. On a GPU machine the launch runs on the CPU device too, on copies of the arrays, and
the results are copied back.
"""
import math
import os
import re
import struct
import sys

from xcuda import _core
from xcuda import _ptx_dwarf

CELL_FILE = "cell.cu"  # the name NVRTC gives a %%cuda cell's source (.file in its PTX)


class DebugError(ValueError):
    """An expression, condition or request the debugger cannot answer, saying why."""


# --- values -----------------------------------------------------------------------------------

def _base(name, size, encoding):
    t = _ptx_dwarf.Type("base", name, size)
    t.encoding = encoding
    return t


def _vector(name, member_type):
    t = _ptx_dwarf.Type("struct", name, 3 * member_type.size)
    t.members = [(c, i * member_type.size, member_type) for i, c in enumerate("xyz")]
    return t


UINT = _base("unsigned int", 4, "unsigned")
INT = _base("int", 4, "signed")
UINT3 = _vector("uint3", UINT)
DIM3 = _vector("dim3", UINT)
DOUBLE = _base("double", 8, "float")

_FLOATS = {2: "e", 4: "f", 8: "d"}


class Value:
    """A value of the stopped thread: its C++ type and its bytes (None: not readable there)."""

    def __init__(self, type_, data, stop, address=None):
        self.type = type_
        self.data = data
        self.stop = stop
        self.address = address  # where the bytes were read from, when memory

    @property
    def kind(self):
        return self.type.strip().kind

    def scalar(self):
        """The value as a Python number (pointers: the address), or raise DebugError."""
        t = self.type.strip()
        if self.data is None:
            raise DebugError(f"a {self.type.c_name()} that cannot be read at this point")
        if t.kind == "enum":
            return int.from_bytes(self.data[:t.byte_size() or 4], "little", signed=True)
        if t.kind in ("pointer", "reference"):
            return int.from_bytes(self.data[:8], "little")
        if t.kind != "base":
            raise DebugError(f"a {self.type.c_name()} is not a number")
        size = t.size
        raw = bytes(self.data[:size]).ljust(size, b"\0")
        if t.encoding == "float":
            if size not in _FLOATS:
                return int.from_bytes(raw, "little")
            return struct.unpack("<" + _FLOATS[size], raw)[0]
        if t.encoding == "bool":
            return raw != bytes(size)
        return int.from_bytes(raw, "little", signed=t.encoding in ("signed", "signed_char"))

    def element_type(self):
        t = self.type.strip()
        if t.kind in ("pointer", "reference", "array"):
            return t.target if t.target is not None else _ptx_dwarf.Type("void")
        raise DebugError(f"a {self.type.c_name()} has no elements")

    def index(self, i):
        """self[i] for an array or a pointer."""
        t = self.type.strip()
        elem = self.element_type()
        size = elem.byte_size()
        if t.kind == "array":
            if self.data is None:
                raise DebugError("the array cannot be read at this point")
            count = len(self.data) // size if size else 0
            if not 0 <= i < count:
                raise DebugError(f"index {i} is outside the array's {count} elements")
            return Value(elem, self.data[i * size:(i + 1) * size], self.stop)
        if elem.strip().kind == "void" or size == 0:
            raise DebugError(f"a {self.type.c_name()} points to no type with a size")
        value = self.stop.value_at(elem, self.scalar() + i * size)
        if value.data is None:
            region = self.pointee_region()
            extent = f"{region[0]} elements from it" if region else "no memory the debugger can read"
            raise DebugError(f"element {i} is outside the memory the pointer points into ({extent})")
        return value

    def member(self, name):
        t = self.type.strip()
        if t.kind in ("pointer", "reference"):
            return self.index(0).member(name)
        for member_name, offset, member_type in t.members:
            if member_name == name:
                size = member_type.byte_size()
                data = None if self.data is None else self.data[offset:offset + size]
                return Value(member_type, data, self.stop)
        raise DebugError(f"a {self.type.c_name()} has no member {name}")

    def pointee_region(self):
        """(elements from the pointer to the end of the memory it points into, its index there,
        the region's element count) of a pointer, or None where it points nowhere readable."""
        elem = self.element_type().strip()
        size = elem.byte_size()
        if size == 0 or self.data is None:
            return None
        address = self.scalar()
        region = self.stop.region_of(address)
        if region is None:
            return None
        base, nbytes, _space = region
        return (base + nbytes - address) // size, (address - base) // size, nbytes // size

    def children(self, limit=None):
        """(name, Value) pairs: a struct's members, an array's elements, the elements a pointer
        points into (from it to the end of its allocation)."""
        t = self.type.strip()
        if t.kind in ("struct", "class", "union"):
            return [(name, self.member(name)) for name, _, _ in t.members]
        if t.kind == "array":
            count = len(self.data) // t.target.byte_size() if self.data and t.target.byte_size() else 0
            n = count if limit is None else min(count, limit)
            return [(f"[{i}]", self.index(i)) for i in range(n)]
        if t.kind == "pointer":
            region = self.pointee_region()
            if region is None:
                return []
            count = region[0] if limit is None else min(region[0], limit)
            return [(f"[{i}]", self.index(i)) for i in range(count)]
        return []

    def child_count(self):
        t = self.type.strip()
        if t.kind in ("struct", "class", "union"):
            return len(t.members)
        if t.kind == "array":
            return len(self.data) // t.target.byte_size() if self.data and t.target.byte_size() else 0
        if t.kind == "pointer":
            region = self.pointee_region()
            return region[0] if region else 0
        return 0

    def text(self, elements=6):
        """The value as a debugger shows it: `2.5`, `'A' (65)`, `{x = 1, y = 0, z = 0}`,
        `0x7f..: 1024 float from [0]: {1, 2, 3, ...}`."""
        if self.data is None:
            return "<not available here>"
        t = self.type.strip()
        if t.kind == "base":
            return _number_text(self.scalar(), t)
        if t.kind == "enum":
            v = self.scalar()
            return t.enumerators.get(v, str(v))
        if t.kind in ("struct", "class", "union"):
            return "{" + ", ".join(f"{n} = {v.text(elements)}" for n, v in self.children()) + "}"
        if t.kind == "array":
            items = self.children(elements)
            more = ", ..." if self.child_count() > len(items) else ""
            return "{" + ", ".join(v.text(elements) for _, v in items) + more + "}"
        if t.kind in ("pointer", "reference"):
            address = self.scalar()
            if address == 0:
                return "nullptr"
            head = f"0x{address:x}"
            region = self.pointee_region()
            if region is None:
                return head
            left, at, count = region
            elem = self.element_type().c_name()
            items = [v.text(elements) for _, v in self.children(elements)]
            more = ", ..." if left > len(items) else ""
            where = f"element {at} of {count} {elem}" if at else f"{count} {elem}"
            return f"{head} -> {where}: {{{', '.join(items)}{more}}}"
        return "?"


def _number_text(v, t):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            return str(v)
        text = f"{v:.9g}" if t.size >= 4 else f"{v:.5g}"
        return text if any(c in text for c in ".einn") else text + ".0"
    if t.size == 1 and t.encoding in ("signed_char", "unsigned_char"):
        ch = chr(v & 0xFF)
        return f"{v} {ch!r}" if ch.isprintable() else str(v)
    return str(v)


# --- a stop -----------------------------------------------------------------------------------

class DeviceFrame:
    """A frame of the stopped thread's device call stack (0: innermost)."""

    def __init__(self, stop, index, ptx_name, pc, file, line, column):
        self.stop = stop
        self.index = index
        self.ptx_name = ptx_name
        self.pc = pc
        self.file = file
        self.line = line
        self.column = column
        self.in_cell = os.path.basename(file) == CELL_FILE  # -G's .file names carry the compile's directory
        self.function = stop.launch.info.function(ptx_name) if stop.launch.info else None
        self.name = self.function.name if self.function else ptx_name

    def variables(self):
        """The variables in scope here, parameters first, innermost declaration of a name only."""
        if self.function is None:
            return []
        seen, out = set(), []
        in_scope = [v for v in self.function.variables if self._in_scope(v)]
        # Inner blocks come after outer ones in DWARF: the last declaration of a name wins.
        for v in reversed(in_scope):
            if v.name not in seen:
                seen.add(v.name)
                out.append(v)
        out.reverse()
        return sorted(out, key=lambda v: not v.is_parameter)

    def _in_scope(self, v):
        return v.scope is None or self._between(*v.scope, unknown=True)

    def _between(self, low_label, high_label, unknown=False):
        low, high = self.stop.launch.label_pc(low_label), self.stop.launch.label_pc(high_label)
        if low is None or high is None:
            return unknown
        return low <= self.pc < high

    def value(self, variable):
        session, lane = self.stop.session, self.stop.lane
        loc = variable.location
        if loc.kind == "list":  # where the variable lives at this pc
            here = [where for low, high, where in loc.ranges if self._between(low, high)]
            loc = here[0] if here else _ptx_dwarf.Location("none")
        size = variable.type.byte_size()
        data = None
        if loc.kind == "reg":
            raw = session.read_register(self.index, loc.name, lane)
            if raw is not None:
                data = bytes(raw[:size]).ljust(size, b"\0")
        elif loc.kind in ("param", "local", "shared", "global", "const"):
            data = session.read_variable(loc.kind, loc.name, loc.offset, size, self.index, lane)
        elif loc.kind == "generic" and loc.name == "":
            data = session.read_memory(loc.offset, size, lane)
        return Value(variable.type, data, self.stop)

    def lookup(self, name):
        """The Value a name means here: a variable in scope, or a CUDA built-in."""
        for v in self.variables():
            if v.name == name:
                return self.value(v)
        builtin = self.stop.builtin(name)
        if builtin is not None:
            return builtin
        known = ", ".join([v.name for v in self.variables()] + ["threadIdx", "blockIdx", "blockDim", "gridDim"])
        raise DebugError(f"{name} is not a variable in scope in {self.name} at line {self.line} (in scope: {known})")


class DeviceStop:
    """The followed thread stopped at a line: its frames, variables and CUDA built-ins."""

    def __init__(self, launch, lane, reason, breakpoint=None):
        self.launch = launch
        self.session = launch.session
        self.lane = lane
        self.reason = reason  # 'breakpoint' or 'step'
        self.breakpoint = breakpoint
        self.thread = self.session.thread(lane)
        self.frames = [DeviceFrame(self, i, *f) for i, f in enumerate(self.session.frames())]

    @property
    def line(self):
        return self.frames[0].line if self.frames else 0

    def builtin(self, name):
        t = self.thread
        vectors = {"threadIdx": (UINT3, t["thread"]), "blockIdx": (UINT3, t["block"]),
                   "blockDim": (DIM3, t["block_dim"]), "gridDim": (DIM3, t["grid_dim"])}
        if name in vectors:
            type_, xyz = vectors[name]
            return Value(type_, b"".join(v.to_bytes(4, "little") for v in xyz), self)
        if name == "warpSize":
            return Value(INT, (32).to_bytes(4, "little"), self)
        return None

    def builtins(self):
        return [(name, self.builtin(name)) for name in ("threadIdx", "blockIdx", "blockDim", "gridDim")]

    def active_lanes(self):
        """The lanes of the thread's warp executing with it now, as text ('0-31')."""
        return _lanes_text(self.thread["active"])

    def value_at(self, type_, address):
        data = self.session.read_memory(address, type_.byte_size(), self.lane)
        return Value(type_, data, self, address)

    def region_of(self, address):
        return self.session.region_of(address, self.lane)

    def where(self):
        t = self.thread
        return (f"thread {_dims(t['thread'])} of block {_dims(t['block'])} (warp {t['warp']}, lane {t['lane']}; "
                f"lanes {self.active_lanes()} run with it)")


def _dims(xyz):
    x, y, z = xyz
    return f"({x},{y},{z})"


def _lanes_text(mask):
    parts, lane = [], 0
    while lane < 32:
        if not (mask >> lane) & 1:
            lane += 1
            continue
        end = lane
        while end + 1 < 32 and (mask >> (end + 1)) & 1:
            end += 1
        parts.append(f"{lane}-{end}" if end > lane else str(lane))
        lane = end + 1
    return ",".join(parts) or "none"


# --- expressions --------------------------------------------------------------------------------

_TOKENS = re.compile(r"""\s*(?:
    (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?[fF]?|\d+[eE][-+]?\d+[fF]?)
  | (?P<int>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>&&|\|\||==|!=|<=|>=|->|[-+*/%<>!()\[\].])
)""", re.X)

_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "+": 5, "-": 5, "*": 6, "/": 6,
           "%": 6}


def parse_expression(text):
    """A C++ expression of names, members, indexing, arithmetic, comparisons and && || ! as a
    tree of tuples; DebugError names what does not parse."""
    tokens, at = [], 0
    text = text.strip()
    while at < len(text):
        m = _TOKENS.match(text, at)
        if m is None or m.end() == at:
            raise DebugError(f"cannot read {text[at:]!r} in {text!r}: the debugger evaluates names, members (.x), "
                             "indexing ([i]), arithmetic, comparisons, && || and !")
        kind = m.lastgroup
        value = m.group(kind)
        if kind == "int":
            value = int(value.rstrip("uUlL"), 0)
        elif kind == "float":
            value = float(value.rstrip("fF"))
        tokens.append((kind, value))
        at = m.end()
    if not tokens:
        raise DebugError("an empty expression")
    position = [0]

    def peek():
        return tokens[position[0]] if position[0] < len(tokens) else (None, None)

    def take(expected=None):
        token = peek()
        if token[0] is None or (expected is not None and token[1] != expected):
            raise DebugError(f"{text!r}: expected {expected or 'more'} at the end" if token[0] is None else
                             f"{text!r}: expected {expected!r}, not {token[1]!r}")
        position[0] += 1
        return token

    def primary():
        kind, value = take()
        if kind in ("int", "float"):
            node = ("num", value)
        elif kind == "name":
            node = ("num", value == "true") if value in ("true", "false") else ("name", value)
        elif value == "(":
            node = binary(0)
            take(")")
        elif value in ("-", "!", "*"):
            return ("unary", value, primary())
        else:
            raise DebugError(f"{text!r}: unexpected {value!r}")
        while peek()[1] in ("[", ".", "->"):
            _, op = take()
            if op == "[":
                node = ("index", node, binary(0))
                take("]")
            else:
                kind, name = take()
                if kind != "name":
                    raise DebugError(f"{text!r}: a member name must follow {op!r}")
                node = ("member", node, name)
        return node

    def binary(min_precedence):
        left = primary()
        while True:
            kind, op = peek()
            if kind != "op" or op not in _BINARY or _BINARY[op] <= min_precedence:
                return left
            take()
            left = ("binary", op, left, binary(_BINARY[op]))

    tree = binary(0)
    if position[0] != len(tokens):
        raise DebugError(f"{text!r}: unexpected {tokens[position[0]][1]!r}")
    return tree


def evaluate(tree, frame):
    """A parsed expression's value in `frame`: a Value, or a Python number."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "name":
        return frame.lookup(tree[1])
    if kind == "member":
        base = evaluate(tree[1], frame)
        if not isinstance(base, Value):
            raise DebugError(f"a number has no member {tree[2]}")
        return base.member(tree[2])
    if kind == "index":
        base = evaluate(tree[1], frame)
        if not isinstance(base, Value):
            raise DebugError("a number cannot be indexed")
        return base.index(int(_number(evaluate(tree[2], frame))))
    if kind == "unary":
        op, operand = tree[1], evaluate(tree[2], frame)
        if op == "*":
            if not isinstance(operand, Value):
                raise DebugError("a number cannot be dereferenced")
            return operand.index(0)
        v = _number(operand)
        return -v if op == "-" else (not v)
    op = tree[1]
    if op in ("&&", "||"):
        left = bool(_number(evaluate(tree[2], frame)))
        if op == "&&" and not left:
            return False
        if op == "||" and left:
            return True
        return bool(_number(evaluate(tree[3], frame)))
    a, b = _number(evaluate(tree[2], frame)), _number(evaluate(tree[3], frame))
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            raise DebugError("division by zero")
        if isinstance(a, int) and isinstance(b, int):
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C++ truncates toward zero
            return q if op == "/" else a - q * b
        return a / b if op == "/" else math.fmod(a, b)
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def _number(v):
    return v.scalar() if isinstance(v, Value) else v


def value_text(v):
    if isinstance(v, Value):
        return v.text()
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return _number_text(v, DOUBLE)
    return str(v)


# --- breakpoints --------------------------------------------------------------------------------

_SELECTOR_NAMES = {"threadIdx": "thread", "blockIdx": "block"}


class Breakpoint:
    """A line of the cell with an optional condition (C++, e.g. `threadIdx.x == 5 && i > 3`)
    and hit condition (`3`, `>= 3`, `% 2`: which arrivals of the threads the condition passes
    stop). A condition's `threadIdx.c == N` and `blockIdx.c == N` terms choose the threads on the
    CPU device itself; any other term is evaluated for each thread that reaches the line."""

    def __init__(self, line, condition=None, hit_condition=None, file=CELL_FILE):
        self.line = line
        self.file = file
        self.condition = (condition or "").strip() or None
        self.hit_condition = (hit_condition or "").strip() or None
        self.block, self.thread, self.rest = [-1] * 3, [-1] * 3, []
        if self.condition:
            self._split(parse_expression(self.condition))
        self._hit_test = _hit_test(self.hit_condition) if self.hit_condition else None
        self.hits = 0
        self.id = None

    def _split(self, tree):
        if tree[0] == "binary" and tree[1] == "&&":
            self._split(tree[2])
            self._split(tree[3])
            return
        if tree[0] == "binary" and tree[1] == "==":
            for member, number in ((tree[2], tree[3]), (tree[3], tree[2])):
                if (member[0] == "member" and member[1][0] == "name" and member[1][1] in _SELECTOR_NAMES
                        and member[2] in ("x", "y", "z") and number[0] == "num" and isinstance(number[1], int)):
                    target = getattr(self, _SELECTOR_NAMES[member[1][1]])
                    target["xyz".index(member[2])] = number[1]
                    return
        self.rest.append(tree)

    def passes(self, frame):
        """Whether the stopped thread (frame's) meets the condition's other terms."""
        return all(bool(_number(evaluate(term, frame))) for term in self.rest)

    def count_hit(self):
        self.hits += 1
        return self._hit_test is None or self._hit_test(self.hits)


def _hit_test(text):
    m = re.fullmatch(r"(==|>=|>|%)?\s*(\d+)", text)
    if m is None:
        raise DebugError(f"hit count {text!r}: write N (stop at the Nth hit), >= N, > N or % N")
    op, n = m.group(1) or "==", int(m.group(2))
    if op == "%" and n == 0:
        raise DebugError("hit count % 0: the divisor must be at least 1")
    return {"==": lambda h: h == n, ">=": lambda h: h >= n, ">": lambda h: h > n,
            "%": lambda h: h % n == 0}[op]


_chosen_thread = None  # the condition debug_thread() set: what breakpoints without one stop


def debug_thread(thread=None, block=None):
    """debug_thread(thread=(tx, ty, tz), block=(bx, by, bz)); debug_thread() for none

    The thread the notebook's debugger stops at breakpoints of %%cuda cells that set no condition
    (JupyterLab's gutter sets none), instead of the first thread to arrive. Each of thread and
    block is an int (x) or a tuple of up to 3 ints; the other indices are 0. Returns the
    condition it stands for ('threadIdx.x == 5 && ...'), or None."""
    global _chosen_thread
    if thread is None and block is None:
        _chosen_thread = None
        return None
    terms = []
    for name, value in (("threadIdx", thread), ("blockIdx", block)):
        if value is None:
            value = 0
        if isinstance(value, int):
            value = (value,)
        if not (isinstance(value, (tuple, list)) and 1 <= len(value) <= 3
                and all(isinstance(v, int) and v >= 0 for v in value)):
            raise TypeError(f"debug_thread: {name} must be an int or a tuple of up to 3 ints >= 0, not {value!r}")
        value = tuple(value) + (0,) * (3 - len(value))
        terms += [f"{name}.{c} == {v}" for c, v in zip("xyz", value)]
    _chosen_thread = " && ".join(terms)
    return _chosen_thread


def chosen_thread():
    """The condition debug_thread() set, or None."""
    return _chosen_thread


# --- a launch under the debugger ----------------------------------------------------------------

def _host_array(value):
    """(numpy array to run on, write_back or None) for an array argument on a GPU (CuPy, PyTorch,
    an xcuda.DeviceArray of a GPU); None for anything else."""
    import numpy as np

    if isinstance(value, _core.DeviceArray):
        if value.device == "cpu":
            return None
        return value.get(), value.set
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__") and not isinstance(value, np.ndarray):
        device_type = value.__dlpack_device__()[0]
        if device_type == 1:  # kDLCPU: numpy-like already
            return None
        view = _core.from_dlpack(value)
        return view.get(), view.set
    if hasattr(value, "__cuda_array_interface__"):
        raise DebugError(f"a {type(value).__name__} (it has __cuda_array_interface__ but no DLPack): pass it as an "
                         "xcuda.DeviceArray, a CuPy array or a PyTorch tensor")
    return None


class DebugLaunch:
    """One launch of `kernel` run on the CPU device under the debugger: the cell compiled again with
    -G, the arguments (a GPU's arrays copied to the host first, and their results copied back), the
    breakpoints, and the stops. run(on_stop) calls on_stop(DeviceStop) at each stop; it returns how
    to go on ('run', 'step_over', 'step_in', 'step_out')."""

    def __init__(self, kernel, args, grid, block, shared_mem=0, options=None):
        self.kernel = kernel
        self.args = list(args)
        self.grid, self.block = grid, block
        self.shared_mem = shared_mem
        self.options = dict(options or {})
        self.debug_kernel = kernel._with_debug_info()
        ptx = self.debug_kernel._ptx
        self.info = _ptx_dwarf.read(ptx)
        if self.info is None:
            raise DebugError(f"{kernel.name}: its -G compile has no debug information")
        self.source_lines = kernel.source.split("\n")
        self.session = _core._DebugSession(kernel.lowered_name)
        self.breakpoints = []
        self._labels = {}
        self.previous_device = _core.get_device()
        self.note = None
        if self.previous_device != "cpu" and _core.device_available():  # a GPU is selected
            self.note = (f"xcuda: debugging {kernel.name} on the CPU device (the GPU cannot stop a thread here): "
                         "its arrays are copied there and the results copied back")

    def add_breakpoint(self, breakpoint):
        breakpoint.id = self.session.add_breakpoint(breakpoint.file, breakpoint.line, breakpoint.block,
                                                    breakpoint.thread, breakpoint.condition is not None)
        self.breakpoints.append(breakpoint)
        return breakpoint

    def set_breakpoints(self, breakpoints):
        self.session.clear_breakpoints()
        self.breakpoints = []
        for b in breakpoints:
            self.add_breakpoint(b)

    def label_pc(self, label):
        if label not in self._labels:
            self._labels[label] = self.session.label_pc(label)
        return self._labels[label]

    def source_line(self, line):
        return self.source_lines[line - 1].strip() if 0 < line <= len(self.source_lines) else ""

    def _arguments(self):
        import numpy as np

        converted, write_backs = [], []
        for value in self.args:
            host = _host_array(value)
            if host is not None:
                array, write_back = host
                device = _core.to_device(np.ascontiguousarray(array))
                converted.append(device)
                write_backs.append((device, write_back))
            elif isinstance(value, np.ndarray):
                device = _core.to_device(np.ascontiguousarray(value))
                converted.append(device)
                if value.flags.writeable:
                    write_backs.append((device, lambda result, target=value: np.copyto(target, result.reshape(
                        target.shape))))
            else:
                converted.append(value)
        return converted, write_backs

    def _choose(self, hits):
        """The lane and breakpoint a breakpoint stop stops, or (None, None) to go on: conditions
        and hit counts, lanes in order."""
        by_id = {b.id: b for b in self.breakpoints}
        frames = None
        for lane in range(32):
            for bp_id, lanes in hits:
                b = by_id.get(bp_id)
                if b is None or not (lanes >> lane) & 1:
                    continue
                if b.rest:
                    frames = DeviceStop(self, lane, "breakpoint", b).frames
                    try:
                        if not b.passes(frames[0]):
                            continue
                    except DebugError:
                        continue  # a condition that cannot be evaluated for this thread does not stop it
                if b.count_hit():
                    return lane, b
        return None, None

    def run(self, on_stop):
        """Launches and serves the stops until the launch ends; raises what the launch raised
        (a KernelCheckError from a check, KeyboardInterrupt when interrupted)."""
        if self.note:
            print(self.note)
        _core.set_device("cpu")
        write_backs = []
        try:
            args, write_backs = self._arguments()
            self.session.arm()
            self.debug_kernel(*args, grid=self.grid, block=self.block, shared_mem=self.shared_mem, **self.options)
            while True:
                state = self.session.wait(100)
                if state == "finished":
                    break
                if state == "armed":
                    if self._launch_done():
                        raise DebugError(f"the launch of {self.kernel.name} did not run under the debugger")
                    continue
                if state != "stopped":
                    continue
                hits = self.session.hits()
                if hits:
                    lane, b = self._choose(hits)
                    if lane is None:
                        self.session.resume("run")
                        continue
                    self.session.follow(lane)
                    stop = DeviceStop(self, lane, "breakpoint", b)
                else:
                    lane = self.session.followed_lane()
                    stop = DeviceStop(self, lane if lane is not None else 0, "step")
                how = on_stop(stop)
                self.session.resume(how or "run")
        except BaseException:
            self.session.abort()
            raise
        finally:
            self.session.disarm()
            try:
                _core.synchronize()
                for device, write_back in write_backs:
                    write_back(device.get())
            finally:
                _core.set_device(self.previous_device)

    def _launch_done(self):
        try:
            _core.synchronize()
        except Exception:
            raise
        return self.session.state == "armed"


# --- Kernel.debug ---------------------------------------------------------------------------------

def _thread_and_block(thread):
    """((tx, ty, tz), (bx, by, bz)) from Kernel.debug's thread=: an int, a tuple (t, b) of ints or
    tuples, or (tx, ty, tz) alone."""
    def dims(v, what):
        if isinstance(v, int):
            return [v, 0, 0]
        if isinstance(v, (tuple, list)) and 1 <= len(v) <= 3 and all(isinstance(c, int) for c in v):
            return list(v) + [0] * (3 - len(v))
        raise TypeError(f"thread=: {what} must be an int or a tuple of up to 3 ints, not {v!r}")

    if thread is None:
        return [0, 0, 0], [0, 0, 0]
    if isinstance(thread, int):
        return [thread, 0, 0], [0, 0, 0]
    if isinstance(thread, (tuple, list)) and len(thread) == 2:
        return dims(thread[0], "the thread index"), dims(thread[1], "the block index")
    return dims(thread, "the thread index"), [0, 0, 0]


def _dims3(v):
    if isinstance(v, int):
        return (v, 1, 1)
    v = tuple(v)
    return v + (1,) * (3 - len(v))


def kernel_debug(kernel, *args, grid, block, thread=None, line=None, steps=200, shared_mem=0, file=None,
                 **options):
    """debug(*args, grid, block, thread=(t, b), line=None, steps=200, shared_mem=0, file=None)

    Runs the kernel once on the CPU device, compiled again with -G, and prints one thread's lines
    as they execute, each with the values its variables have before it runs (by their C++ names,
    with threadIdx and blockIdx), down into the device functions it calls. thread=(t, b) picks
    the thread t of block b (each an int or a tuple, e.g. thread=((5, 0), (1, 0))); thread=5 is
    thread 5 of block 0. line=N starts printing when the thread first reaches line N of the cell;
    steps= bounds the lines printed, then the launch runs to its end. Arrays are copied to and from
    the CPU device as a launch copies them (from a GPU too). Returns the lines printed, as
    (line, source, {name: value text}) tuples."""
    out = file or sys.stdout
    t, b = _thread_and_block(thread)
    grid3, block3 = _dims3(grid), _dims3(block)
    for i, (index, size, what) in enumerate(zip(t, block3, "xyz")):
        if not 0 <= index < size:
            raise ValueError(f"thread=: threadIdx.{what} = {index} is outside the block ({block3[0]}, {block3[1]}, "
                             f"{block3[2]}); pick a thread inside it")
    for index, size, what in zip(b, grid3, "xyz"):
        if not 0 <= index < size:
            raise ValueError(f"thread=: blockIdx.{what} = {index} is outside the grid ({grid3[0]}, {grid3[1]}, "
                             f"{grid3[2]}); pick a block inside it")
    if steps < 1:
        raise ValueError(f"steps={steps}: print at least one line (steps=1 or more)")
    launch = DebugLaunch(kernel, args, grid, block, shared_mem, options)
    if line is not None and not 0 < line <= len(launch.source_lines):
        raise ValueError(f"line={line}: the cell has lines 1 to {len(launch.source_lines)}")
    # The thread's first line (of any file), or its first arrival at `line`; then every line it starts.
    who = " && ".join([f"threadIdx.{c} == {v}" for c, v in zip("xyz", t)] +
                      [f"blockIdx.{c} == {v}" for c, v in zip("xyz", b)])
    launch.add_breakpoint(Breakpoint(line or 0, who, file=CELL_FILE if line else ""))
    printed = []
    print(f"{kernel.name}: thread {_dims(t)} of block {_dims(b)} on the CPU device (-G)", file=out)

    def on_stop(stop):
        frame = stop.frames[0]
        values = {v.name: frame.value(v).text(4) for v in frame.variables()}
        indent = "  " * len(stop.frames)
        where = f"{frame.name}:" if len(stop.frames) > 1 else ""
        source = launch.source_line(frame.line) if frame.in_cell else f"({os.path.basename(frame.file)})"
        print(f"{indent}{where}{frame.line}: {source}", file=out)
        if values:
            print(f"{indent}    {', '.join(f'{k} = {v}' for k, v in values.items())}", file=out)
        printed.append((frame.line, source, values))
        if len(printed) == 1:
            launch.session.clear_breakpoints()  # from here on the thread is stepped
        if len(printed) >= steps:
            launch.session.clear_breakpoints()
            print(f"  ... {steps} lines printed (steps={steps}); the launch runs on to its end", file=out)
            return "run"
        return "step_in"

    launch.run(on_stop)
    if not printed:
        print(f"  the thread never reached line {line}" if line is not None else
              "  the thread ran no line of the cell", file=out)
    return printed

"""What the threads did, from a traced launch on the CPU device: for one thread, the lines it
executed with the memory it touched ("x[261] = 87 read"); for a small launch, a picture of which
thread read and wrote which element of each array (report::AccessMap, drawn in C++)."""
import numpy as np

from xcuda._exercise.judge import element_name, value_text

READ, WRITE, ATOMIC = 1, 2, 3  # cpu::Access
GLOBAL, SHARED = 1, 2  # cpu::MemorySpace
MAX_STORY_LINES = 40
_PTX_TYPES = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "s32": np.int32, "u32": np.uint32,
              "b32": np.int32, "s64": np.int64, "u64": np.uint64, "b64": np.int64, "s16": np.int16, "u16": np.uint16,
              "s8": np.int8, "u8": np.uint8, "b8": np.uint8}


def dim3(linear, dims):
    x, y, _ = dims
    return (linear % x, (linear // x) % y, linear // (x * y))


def dim_text(d):
    return "(" + ",".join(str(v) for v in d) + ")"


def decode(bits, dtype, size):
    """The value an access moved, from its little-endian bits."""
    dtype = np.dtype(dtype) if dtype is not None else None
    if dtype is None or dtype.itemsize != size:
        dtype = {1: np.uint8, 2: np.uint16, 4: np.int32, 8: np.int64}.get(size, np.uint64)
        dtype = np.dtype(dtype)
    raw = np.array([int(bits)], dtype=np.uint64).view(np.uint8)[:dtype.itemsize]
    return raw.view(dtype)[0]


def ptx_dtype(opcode):
    for part in reversed(opcode.split(".")):
        if part in _PTX_TYPES:
            return _PTX_TYPES[part]
    return None


class Trace:
    """One traced launch, with the kernel's parameter names and element types."""

    def __init__(self, trace, parameters):
        self.raw = trace
        self.parameters = parameters  # spec.Parameter, in order
        self.grid, self.block = tuple(trace["grid"]), tuple(trace["block"])
        self.threads_per_block = int(np.prod(self.block))
        self.sites = trace["sites"]
        self.a = {k: np.asarray(v) for k, v in trace["accesses"].items()}
        self.s = {k: np.asarray(v) for k, v in trace["steps"].items()}

    def writers(self, parameter_index, itemsize, count):
        """Per element of a parameter's array: the last writer (block * threads_per_block + thread), or -1."""
        a = self.a
        sel = (a["space"] == GLOBAL) & (a["parameter"] == parameter_index) & (a["access"] != READ)
        writer = np.full(count, -1, dtype=np.int64)
        index = a["offset"][sel] // itemsize
        ok = (index >= 0) & (index < count)
        ids = a["block"][sel].astype(np.int64) * self.threads_per_block + a["thread"][sel]
        writer[index[ok]] = ids[ok]  # later writes win: accesses are in execution order
        return writer

    def writes_of(self, parameter_index, itemsize, index):
        """Who wrote element `index` of a parameter's array, in order: [(block, thread)] (linear)."""
        a = self.a
        sel = ((a["space"] == GLOBAL) & (a["parameter"] == parameter_index) & (a["access"] != READ) &
               (a["offset"] // itemsize == index))
        return list(zip(a["block"][sel].tolist(), a["thread"][sel].tolist()))

    def reads(self, parameter_index, itemsize, count):
        a = self.a
        sel = (a["space"] == GLOBAL) & (a["parameter"] == parameter_index) & (a["access"] != WRITE)
        index = a["offset"][sel] // itemsize
        index = index[(index >= 0) & (index < count)]
        return np.bincount(index, minlength=count)[:count].astype(np.uint32)

    def touched_by(self, block, thread, parameter_index, itemsize, count):
        a = self.a
        sel = ((a["space"] == GLOBAL) & (a["parameter"] == parameter_index) & (a["block"] == block) &
               (a["thread"] == thread))
        index = a["offset"][sel] // itemsize
        ok = (index >= 0) & (index < count)
        read, written = np.zeros(count, bool), np.zeros(count, bool)
        read[index[ok & (a["access"][sel] != WRITE)]] = True
        written[index[ok & (a["access"][sel] != READ)]] = True
        return read, written

    def access_text(self, i, shapes):
        a = self.a
        size, access = int(a["size"][i]), int(a["access"][i])
        if a["space"][i] == GLOBAL and a["parameter"][i] >= 0:
            p = self.parameters[int(a["parameter"][i])]
            itemsize = p.dtype.itemsize
            where = element_name(p.name, int(a["offset"][i]) // itemsize, shapes.get(p.name, ()))
            value = decode(a["value"][i], p.dtype, size)
        elif a["space"][i] == SHARED:
            names = self.raw["shared_variables"]
            v = int(a["shared_variable"][i])
            name = names[v].split("::")[-1] if 0 <= v < len(names) else "shared"
            dtype = ptx_dtype(self.sites[int(a["site"][i])][1])
            where = f"{name}[{int(a['offset'][i]) // size}] (shared)"
            value = decode(a["value"][i], dtype, size)
        else:
            where = f"global address {int(a['offset'][i]):#x}"
            value = decode(a["value"][i], None, size)
        verb = {READ: "read", WRITE: "written", ATOMIC: "atomically updated to"}[access]
        if access == ATOMIC:
            return f"{where} {verb} {value_text(value)}"
        return f"{where} = {value_text(value)} {verb}"

    def story(self, block, thread, source_lines, shapes):
        """What (block, thread) did: its steps cut into passes at each jump back (a loop's next
        iteration), each pass as the cell lines it executed in the order it first reached them, with
        the memory it touched there; passes over the same lines in a row are folded into one ("times")."""
        s = self.s
        lane = thread - s["first_thread"].astype(np.int64)
        in_warp = (s["block"] == block) & (lane >= 0) & (lane < 32)
        ran = (s["lanes"].astype(np.int64) >> np.clip(lane, 0, 31)) & 1
        mine = np.flatnonzero(in_warp & (ran == 1))
        pcs = [self.sites[int(s["site"][k])][2] for k in mine]
        lines = [self.sites[int(s["site"][k])][0] for k in mine]
        passes, step_pass = [], []  # passes: [{line: [touched]}] in first-reached order
        for i, pc in enumerate(pcs):
            if not passes or pc <= pcs[i - 1]:
                passes.append({})
            if lines[i] > 0:
                passes[-1].setdefault(lines[i], [])
            step_pass.append(len(passes) - 1)
        # Each access was made by the next step at its instruction.
        a = self.a
        at = 0
        for i in np.flatnonzero((a["block"] == block) & (a["thread"] == thread)):
            pc = self.sites[int(a["site"][i])][2]
            while at < len(pcs) and pcs[at] != pc:
                at += 1
            if at == len(pcs):
                break  # the steps stopped at the trace's limit
            line = self.sites[int(a["site"][i])][0]
            if line > 0:
                passes[step_pass[at]].setdefault(line, []).append(self.access_text(i, shapes))
            at += 1
        folded = []  # [line list, times, {line: touched}]
        for p in passes:
            if folded and list(p) == folded[-1][0]:
                folded[-1][1] += 1
                for line, touched in p.items():
                    folded[-1][2][line].extend(touched)
            else:
                folded.append([list(p), 1, {line: list(t) for line, t in p.items()}])
        entries = [(line, times, touched[line]) for order, times, touched in folded for line in order]
        note = ""
        if len(entries) > MAX_STORY_LINES:
            left = len(entries) - MAX_STORY_LINES
            entries = entries[:MAX_STORY_LINES - 10] + entries[-10:]
            note = f"{left} lines in the middle are left out (the first {MAX_STORY_LINES - 10} and the last 10 shown)"
        if self.raw["truncated"]:
            note = (note + "; " if note else "") + "the trace stopped at its limit: later steps are missing"

        def text(line):
            return source_lines[line - 1] if 0 < line <= len(source_lines) else ""

        shown = [{"line": int(line), "source": text(line), "times": int(times),
                  "touched": touched[:6] + ([f"... {len(touched) - 6} more"] if len(touched) > 6 else [])}
                 for line, times, touched in entries]
        return shown, note

    def thread_title(self, block, thread):
        b, t = dim3(block, self.grid), dim3(thread, self.block)
        return f"thread {dim_text(t)} of block {dim_text(b)}"

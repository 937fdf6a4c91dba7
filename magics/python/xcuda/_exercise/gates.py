"""The gates: what the CPU device counted exactly while the kernel ran the gate test, per element
of the problem, with the line that contributed most and what to try when a gate fails."""
import dataclasses

from xcuda._exercise.spec import GATES

# _cpu_launch_counts' row: (cell line, opcode, warp executions, thread executions, divergent
# branches, global requests, 32-byte sectors, shared-memory bank conflicts)
LINE, OPCODE, EXECUTED, LANES, DIVERGENT, REQUESTS, SECTORS, CONFLICTS = range(8)

ADVICE = {
    "global_loads_per_element": "each element is loaded from global memory more than the limit allows: load it once "
                                "(into a register or shared memory) and reuse it",
    "global_stores_per_element": "each output element is stored more than once: keep partial results in registers or "
                                 "shared memory and store once",
    "global_atomics_per_element": "too many global atomics: combine within the block first (shared memory), then "
                                  "one atomic per block",
    "sectors_per_request": "a warp's accesses are spread over many 32-byte sectors: neighbouring threads "
                           "(threadIdx.x) should touch neighbouring elements",
    "bank_conflicts": "threads of a warp hit different words of one shared-memory bank: pad the array's rows by one "
                      "element (e.g. [32][33]) or change the access order",
    "divergent_branches": "threads of one warp take different sides of a branch: make the condition the same "
                          "across each warp (e.g. let the low threads stay active as the stride halves)",
    "shared_memory_bytes": "the amount of shared memory per block is outside the limit",
    "check_findings": "the checks found a problem (see the findings): a GPU leaves it undefined",
}


@dataclasses.dataclass
class GateResult:
    gate: str
    measured: float
    limit: object
    passed: bool
    judged: bool
    note: str = ""

    @property
    def name(self):
        return GATES[self.gate]


def _is_global(row):
    """A global load or store: the CPU device counted requests for it (shared, local and parameter
    accesses make none); constant-memory loads are not global memory here."""
    return row[REQUESTS] > 0 and ".const" not in row[OPCODE]


def _is_global_atomic(row):
    """Atomics are not counted as requests: a global (or generic) atom/red by its opcode."""
    opcode = row[OPCODE]
    return opcode.startswith(("atom", "red")) and ".shared" not in opcode


def _worst(rows, key):
    """The line (and its text) where `key` is largest."""
    by_line = {}
    for row in rows:
        by_line[row[LINE]] = by_line.get(row[LINE], 0) + key(row)
    if not by_line or max(by_line.values()) <= 0:
        return None
    return max(by_line, key=by_line.get)


def measure(rows, elements, shared_bytes, findings):
    """gate -> (measured value, the line that contributed most or None)."""
    loads = [r for r in rows if r[OPCODE].startswith("ld") and _is_global(r)]
    stores = [r for r in rows if r[OPCODE].startswith("st") and _is_global(r)]
    atomics = [r for r in rows if _is_global_atomic(r)]
    memory = loads + stores
    requests = sum(r[REQUESTS] for r in memory)
    per = max(elements, 1)
    return {
        "global_loads_per_element": (sum(r[LANES] for r in loads) / per, _worst(loads, lambda r: r[LANES])),
        "global_stores_per_element": (sum(r[LANES] for r in stores) / per, _worst(stores, lambda r: r[LANES])),
        "global_atomics_per_element": (sum(r[LANES] for r in atomics) / per, _worst(atomics, lambda r: r[LANES])),
        "sectors_per_request": (sum(r[SECTORS] for r in memory) / requests if requests else 0.0,
                                _worst(memory, lambda r: r[SECTORS] / max(r[REQUESTS], 1))),
        "bank_conflicts": (float(sum(r[CONFLICTS] for r in rows)), _worst(rows, lambda r: r[CONFLICTS])),
        "divergent_branches": (float(sum(r[DIVERGENT] for r in rows)), _worst(rows, lambda r: r[DIVERGENT])),
        "shared_memory_bytes": (float(shared_bytes), None),
        "check_findings": (float(findings), None),
    }


def number_text(gate, v):
    if gate in ("bank_conflicts", "divergent_branches", "shared_memory_bytes", "check_findings"):
        return str(int(v))
    return f"{v:.2f}" if abs(v) >= 0.1 or v == 0 else f"{v:.2g}"


def judge_gates(limits, rows, elements, shared_bytes, findings, judged, source_line):
    """Every gate's result. `judged` False (a test failed): measured if possible, not judged."""
    measured = measure(rows or [], elements, shared_bytes, findings) if rows is not None or findings else None
    results = []
    for gate, limit in limits.items():
        if measured is None or (rows is None and gate != "check_findings"):
            results.append(GateResult(gate, float("nan"), limit, False, False,
                                      "not measured: the gate test did not run to its end"))
            continue
        value, line = measured[gate]
        passed = limit.holds(value)
        note = ""
        if line:
            note = f"line {line}: `{source_line(line).strip()}`"
        if judged and not passed:
            note = (note + ": " if note else "") + ADVICE[gate]
        results.append(GateResult(gate, value, limit, passed and judged, judged, note))
    return results

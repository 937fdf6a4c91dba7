"""Grading a student's kernel against an exercise: every test size on the CPU device with every
check on (and on the GPU too when one is selected), the gates from the CPU device's exact counts
at the gate test, what one thread did for the first wrong element, a picture for small sizes, and
a score. The same grading runs on any machine: the gates and checks always come from the CPU
device; a GPU adds its own pass/fail per test and a timing that is shown, not graded."""
import math

import numpy as np

from xcuda import _core
from xcuda._exercise import gates as gates_mod
from xcuda._exercise.judge import element_name, judge, value_text
from xcuda._exercise.reference import expected_outputs
from xcuda._exercise.result import FindingResult, GradeResult, TestResult
from xcuda._exercise.run import argument_values, gpu_selected, launch, on_cpu_device
from xcuda._exercise.spec import launch_of, parse_signature
from xcuda._exercise.result import _launch_text
from xcuda._exercise.story import Trace, dim_text

TRACE_THREADS = 1 << 16  # a failing test is traced up to this many threads
PICTURE_ELEMENTS = 1024  # arrays drawn up to this many elements

FINDING_WORDS = {
    "out_of_bounds": "an out-of-bounds access", "misaligned": "a misaligned access",
    "use_after_free": "a use after free", "shared_race": "a race on shared memory",
    "divergent_barrier": "a barrier not every thread reaches", "collective_absent_lanes":
    "a warp collective with absent lanes", "assertion": "a failed assert", "trap": "a trap",
}


def finding_hint(e):
    kind = getattr(e, "kind", "")
    if kind == "out_of_bounds":
        target = f"`{e.parameter}`" if getattr(e, "parameter", None) else "an array"
        return (f"a thread reached past the end of {target}: guard the access with the size (if (i < n)) so that "
                "threads beyond the last element do nothing")
    if kind == "shared_race":
        lines = sorted({v for v in (e.line, getattr(e, "other_line", None)) if v})
        between = " and ".join(f"line {v}" for v in lines) or "the two accesses"
        return (f"two threads use the same shared-memory word with no barrier between {between}: a __syncthreads() "
                "is missing between the write and the read")
    if kind == "divergent_barrier":
        return ("__syncthreads() must be reached by every thread of the block: keep it out of branches that depend "
                "on threadIdx or on the data (let threads skip the work, not the barrier)")
    if kind == "misaligned":
        return "an address is not a multiple of the access's size: check the index arithmetic and the casts"
    if kind == "collective_absent_lanes":
        return "a warp collective names lanes that never reach it: give it the mask of the lanes that do"
    return ""


def check_signature(kernel, ex):
    name, params = parse_signature(kernel.signature)
    want = ex.parameters
    problems = []
    if len(params) != len(want):
        problems.append(f"it has {len(params)} parameters, the exercise {len(want)}")
    for i, (got, exp) in enumerate(zip(params, want)):
        if (got.ctype, got.pointer) != (exp.ctype, exp.pointer):
            problems.append(f"parameter {i + 1} is `{got}`, the exercise's is `{exp}`")
        elif exp.output and got.const:
            problems.append(f"parameter {i + 1} `{got}` is const, but the kernel must write it")
    if problems:
        raise TypeError(f"exercise {ex.name!r} expects `{ex.kernel}`; kernel `{name}` is `{kernel.signature}`: "
                        + "; ".join(problems))


def _configs(ex, student_launch):
    if ex.student_launches:
        if student_launch is None:
            raise ValueError(f"exercise {ex.name!r} lets you choose the launch: pass launch=lambda size: (grid, block) "
                             "(or (grid, block, shared_bytes))")
        configs = [launch_of(student_launch, size, "launch") for _, size in ex.tests]
        for (_, size), (grid, block, _) in zip(ex.tests, configs):
            problems = ex.rules.problems(grid, block)
            if problems:
                raise ValueError(f"exercise {ex.name!r}, size {size!r}: your launch breaks its rules: "
                                 + "; ".join(problems))
        return configs
    if student_launch is not None:
        raise ValueError(f"exercise {ex.name!r} chooses the launch itself: leave out launch=")
    return [launch_of(ex.launch, size, "the exercise's launch") for _, size in ex.tests]


def _owner(ex, index, size, config, shape):
    """Who should write element `index`: the exercise's owner(), else the thread whose global
    coordinates are the element's (x the column, y the row of a 2-D output)."""
    grid, block, _ = config
    if ex.owner is not None:
        return ex.owner(index, size, grid, block)
    if len(shape) == 2 and (block[1] > 1 or grid[1] > 1):
        row, col = divmod(index, shape[1])
    else:
        row, col = 0, index % (grid[0] * block[0])  # past the grid: the thread a grid-stride loop takes there
    bx, tx = divmod(col, block[0])
    by, ty = divmod(row, block[1])
    if bx >= grid[0] or by >= grid[1]:
        return None
    return bx + grid[0] * by, tx + block[0] * ty


def grade(kernel, ex, student_launch=None, picture=None):
    if not isinstance(kernel, _core.Kernel):
        raise TypeError(f"grade() takes the kernel a %%cuda cell bound (an xcuda.Kernel), not {type(kernel).__name__}")
    check_signature(kernel, ex)
    configs = _configs(ex, student_launch)
    source_lines = kernel.source.splitlines()

    def source_line(line):
        return source_lines[line - 1] if 0 < line <= len(source_lines) else ""

    gate_index = next(i for i, (_, s) in enumerate(ex.tests) if s == ex.gate_size)
    on_gpu = gpu_selected()
    checked = kernel._with_line_info()
    tests, findings, gate_rows = [], [], None
    runs = []
    with on_cpu_device():
        for i, (_, size) in enumerate(ex.tests):
            args = ex.arguments(i)
            expected, initial = expected_outputs(ex, i, args)
            full = {**initial, **args}
            run = launch(checked, ex.parameters, full, configs[i], count=(i == gate_index))
            runs.append((full, expected, initial))
            if i == gate_index and run.counts is not None:
                counted = [c for c in run.counts if c["kernel"] == checked.name] or run.counts
                gate_rows = [row for c in counted for row in c["rows"]]
            label = ex.label(i)
            if run.finding is not None:
                e = run.finding
                hint = finding_hint(e)
                words = FINDING_WORDS.get(e.kind, e.kind)
                at = f" at line {e.line}" if e.line else ""
                tests.append(TestResult(label, size, configs[i], False, f"stopped by the checks: {words}{at}", hint,
                                        finding=e))
                findings.append(FindingResult(e.line or 0, source_line(e.line or 0).strip(), label, str(e), hint,
                                              e.kind))
                continue
            v = judge(run.outputs, expected, initial, configs[i], size, ex.rtol, ex.atol, ex.hints, inputs=full)
            tests.append(TestResult(label, size, configs[i], v.passed, v.outcome, v.hint, verdict=v))
    if on_gpu:
        for i, (full, expected, initial) in enumerate(runs):
            if tests[i].finding is not None:
                # What the checks stopped is undefined on a GPU, where an illegal address would cost the
                # notebook its GPU context: it is not run there.
                tests[i].gpu = "not run (the checks stopped it)"
                continue
            run = launch(kernel, ex.parameters, full, configs[i])
            v = judge(run.outputs, expected, initial, configs[i], ex.tests[i][1], ex.rtol, ex.atol)
            tests[i].gpu = "pass" if v.passed else v.outcome
            tests[i].passed = tests[i].passed and v.passed

    all_pass = all(t.passed for t in tests)
    resources = kernel.resources or {}
    shared_bytes = int(resources.get("shared_bytes", 0)) + configs[gate_index][2]  # static + the launch's dynamic
    gates = gates_mod.judge_gates(ex.limits, gate_rows, ex.element_count(ex.gate_size), shared_bytes, len(findings),
                                  all_pass, source_line)
    result = GradeResult(ex, kernel.name, tests, gates, findings, on_gpu)
    if result.not_started:  # a stub: "never written" everywhere says nothing the verdict does not
        for t in tests:
            t.hint = ""
    _add_story_and_picture(result, ex, checked, runs, configs, source_lines, picture)
    if on_gpu and all_pass:
        _add_timing(result, ex, kernel, runs[gate_index][0], configs[gate_index], gate_index)
    return result


def _add_story_and_picture(result, ex, checked, runs, configs, source_lines, picture):
    failing = [i for i, t in enumerate(result.tests) if t.verdict is not None and not t.verdict.passed]
    if result.not_started:
        return
    if failing:
        index = failing[0]
    elif picture:
        index = min(range(len(runs)), key=lambda i: ex.element_count(ex.tests[i][1]))
    else:
        return
    grid, block, _ = configs[index]
    threads = math.prod(grid) * math.prod(block)
    if threads > TRACE_THREADS:
        result.notes.append(f"What a thread did is traced for launches of up to {TRACE_THREADS} threads; test "
                            f"{result.tests[index].name!r} has {threads}.")
        return
    full, expected, _ = runs[index]
    with on_cpu_device():
        run = launch(checked, ex.parameters, full, configs[index], trace=True)
    # Launches the kernel's own (another stream's launch could run meanwhile), else all of them.
    mine = [t for t in run.traces or [] if t["kernel"] == checked.name] or run.traces
    if not mine:
        return
    trace = Trace(mine[0], ex.parameters)
    shapes = {p.name: np.shape(full[p.name]) for p in ex.parameters if p.pointer}
    verdict = result.tests[index].verdict
    focus = None
    if verdict is not None and not verdict.passed:
        p_index = next(i for i, p in enumerate(ex.parameters) if p.name == verdict.output)
        p = ex.parameters[p_index]
        shape = shapes[p.name]
        count = int(np.prod(shape)) if shape else 1
        writer = trace.writers(p_index, p.dtype.itemsize, count)
        element = element_name(p.name, verdict.index, shape)
        got = value_text(verdict.got)
        should = "it is wrong" if verdict.expected is None else f"it should be {value_text(verdict.expected)}"
        if writer[verdict.index] >= 0:
            focus = divmod(int(writer[verdict.index]), trace.threads_per_block)
            title = (f"{trace.thread_title(*focus)} did (test {result.tests[index].name}): it wrote {element} = "
                     f"{got} last; {should}")
        else:
            owner = _owner(ex, verdict.index, ex.tests[index][1], configs[index], shape)
            if owner is None:
                title = None
                result.notes.append(f"No thread wrote {element} ({should}), and no thread of the launch "
                                    f"has it as its element: the grid ({_launch_text(configs[index])}) is too small.")
            else:
                focus = owner
                title = (f"{trace.thread_title(*focus)} did (test {result.tests[index].name}): no thread wrote "
                         f"{element} ({should}); this thread's global index leads to it")
        if focus is not None and title is not None:
            lines, note = trace.story(focus[0], focus[1], source_lines, shapes)
            if not lines:
                note = "it executed nothing of the kernel (it was not launched)"
            writers = trace.writes_of(p_index, p.dtype.itemsize, verdict.index)
            if len(set(writers)) > 1:
                names = ", then ".join(trace.thread_title(*w) for w in writers[:4])
                more = f" and {len(writers) - 4} more" if len(writers) > 4 else ""
                note = (f"{element} was written {len(writers)} times, by {names}{more}: an element needs one writer "
                        "(or atomic updates). " + note).strip()
            result.stories.append({"title": title, "lines": lines, "note": note})
    _add_picture(result, ex, trace, full, expected, index, shapes, focus)


def _add_picture(result, ex, trace, full, expected, index, shapes, focus):
    arrays = []
    for p_index, p in enumerate(ex.parameters):
        if not p.pointer:
            continue
        shape = shapes[p.name]
        count = int(np.prod(shape)) if shape else 1
        if count > PICTURE_ELEMENTS:
            result.notes.append(f"The picture is drawn for arrays of up to {PICTURE_ELEMENTS} elements; "
                                f"`{p.name}` has {count} in test {result.tests[index].name!r}.")
            return
        entry = {"name": p.name, "role": "written" if p.output else "read",
                 "columns": int(shape[1]) if len(shape) == 2 else 0,
                 "writer": trace.writers(p_index, p.dtype.itemsize, count).tolist(),
                 "reads": trace.reads(p_index, p.dtype.itemsize, count).tolist()}
        verdict = result.tests[index].verdict
        if p.output and verdict is not None and verdict.output == p.name:
            entry["wrong"] = verdict.wrong.tolist()
        if focus is not None:
            read, written = trace.touched_by(focus[0], focus[1], p_index, p.dtype.itemsize, count)
            entry["focus_read"], entry["focus_written"] = read.tolist(), written.tolist()
        arrays.append(entry)
    title = f"Which thread touched which element: test {result.tests[index].name}, launch " + \
        f"{dim_text(trace.grid)} x {dim_text(trace.block)}"
    result.picture_svg = _core._access_map_svg({
        "title": title, "threads_per_block": trace.threads_per_block, "block_x": trace.block[0], "arrays": arrays,
        "focus": trace.thread_title(*focus) if focus is not None else ""})


def _add_timing(result, ex, kernel, args, config, index):
    grid, block, shared = config
    mine = kernel.benchmark(*argument_values(ex.parameters, args), grid=grid, block=block, shared_mem=shared,
                            repeat=3)
    text = f"On the GPU at test {ex.label(index)}: your kernel takes {mine.median * 1e6:.1f} µs per launch"
    timing = {"kernel_s": mine.median}
    if isinstance(ex.reference, _core.Kernel):
        rgrid, rblock, rshared = launch_of(ex.reference_launch or ex.launch, ex.tests[index][1], "reference_launch")
        ref = ex.reference.benchmark(*argument_values(ex.parameters, args), grid=rgrid, block=rblock,
                                     shared_mem=rshared, repeat=3)
        timing["reference_s"] = ref.median
        text += f", the reference kernel {ref.median * 1e6:.1f} µs ({mine.median / ref.median:.2f}x)"
    result.timing = timing
    result.notes.append(text + " (shown, not graded: the grade does not depend on the machine).")

"""Kernel exercises a teacher writes once, graded on any machine (xcuda.exercise, xcuda.grade,
%%cuda --exercise NAME). docs/exercises.md says how to write one and what a student sees."""
from xcuda._exercise import grading
from xcuda._exercise.result import GradeResult
from xcuda._exercise.spec import Exercise, LaunchRules

_registry = {}
# Where a grader keeps the teachers' exercise files (with their references), read when a name is not
# defined in the session yet: a student's notebook then grades with the full reference on the
# grader's machine, and with the course file's digests elsewhere.
FILES_VARIABLE = "XCUDA_EXERCISE_FILES"
_files_read = set()


def _read_grader_files():
    import os
    import runpy
    for path in filter(None, os.environ.get(FILES_VARIABLE, "").split(os.pathsep)):
        if path in _files_read:
            continue
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{FILES_VARIABLE} names {path!r}, which is not a file: give the paths of Python "
                                    f"files that define exercises, separated by {os.pathsep!r}")
        _files_read.add(path)
        runpy.run_path(path, run_name="xcuda_exercises")


def exercise(name, kernel=None, reference=None, inputs=None, sizes=None, launch=None, **options):
    """exercise(name, kernel, reference, inputs, sizes, launch=None, *, gates={}, rules=LaunchRules(), seed=0,
    rtol=1e-5, atol=1e-6, title='', hints=[], gate_size=None, elements=None, reference_launch=None, owner=None,
    points=None) -> Exercise

    Defines (and registers under `name`) a kernel exercise; exercise(name) alone returns the one
    registered. kernel: the signature the student's kernel must have ('void affine(const float* x,
    float* y, int n)'): non-const pointers are the outputs that are compared. reference: a function
    of the arguments by name returning the expected output (an array, or a dict by output name), or
    an xcuda.Kernel run on the CPU device. inputs(rng, size): the arguments by name for one test
    (outputs left out start as zeros shaped like the reference's). sizes: a list (or {label: size})
    chosen to expose the usual mistakes: smaller than a block, not a multiple of it, several blocks.
    launch(size) -> (grid, block[, shared_bytes]), or None to let the student choose within rules.
    gates: {name: limit} measured exactly on the CPU device at gate_size (the last size by default):
    global_loads_per_element, global_stores_per_element, global_atomics_per_element,
    sectors_per_request, bank_conflicts, divergent_branches, shared_memory_bytes, check_findings (always
    '== 0'); a limit is a number (at most) or a string like '>= 1024'. hints: [(test(got, expected,
    inputs) -> bool, text)] tried before the built-in ones."""
    if kernel is None and reference is None and inputs is None and sizes is None and not options and launch is None:
        if name not in _registry:
            known = ", ".join(sorted(_registry)) or "none yet"
            raise KeyError(f"no exercise named {name!r} (defined: {known}); xcuda.exercise(name, kernel, reference, "
                           "inputs, sizes, ...) defines one, xcuda.load_exercises(path) loads a course's")
        return _registry[name]
    ex = Exercise(name, kernel, reference, inputs, sizes, launch, **options)
    _registry[name] = ex
    return ex


def exercises():
    """The exercises defined in this session, by name."""
    return dict(_registry)


def _resolve(ex):
    if isinstance(ex, Exercise):
        return ex
    from xcuda._exercise import published
    if isinstance(ex, str) and ex not in _registry:
        _read_grader_files()
    if isinstance(ex, str) and ex not in _registry and published.has(ex):
        return published.get(ex)
    if isinstance(ex, str):
        return exercise(ex)
    raise TypeError(f"exercise={ex!r}: pass an exercise's name or the Exercise xcuda.exercise() returned")


def grade(kernel, exercise, launch=None, picture=None):
    """grade(kernel, exercise, launch=None, picture=None) -> GradeResult

    Grades `kernel` (bound by a %%cuda cell) against `exercise` (its name, or an Exercise): every test
    size runs on the CPU device with all its checks (and on the GPU too, when one is selected); the
    gates are measured exactly there. Shows a rubric: each test passed or not with the first wrong
    element and a hint, each gate's measured value and limit, the checks' findings at the cell's
    lines, what the thread of the first wrong element did, a picture for small sizes (picture=True
    draws one for a kernel that passes too) and a score. launch: the student's (grid, block) per size,
    for exercises that let the student choose. .to_dict() is the result for a grader; .check() raises
    AssertionError unless solved."""
    ex = _resolve(exercise)
    return grading.grade(kernel, ex, launch, picture)


def publish_exercises(path, names=None):
    """Writes a course file (.npz) for students: each exercise's signature, test inputs, launches and
    gates, and digests of the expected outputs instead of the reference. names: which exercises
    (default: every one defined in this session). xcuda.load_exercises(path) reads it."""
    from xcuda._exercise import published
    chosen = [exercise(n) for n in (names if names is not None else sorted(_registry))]
    if not chosen:
        raise ValueError("no exercise to publish: define some with xcuda.exercise(...) first")
    published.publish(path, chosen)


def load_exercises(path):
    """Reads a course file (xcuda.publish_exercises) so that grade(kernel, name) can grade its exercises
    without their references: a wrong element is named, but not what it should be. An exercise
    defined in this session under the same name (the teacher's, with its reference) takes precedence.
    Returns the names read."""
    from xcuda._exercise import published
    return published.load(path)


def grade_cell(kernels, name):
    """What `%%cuda --exercise NAME` shows: the cell's kernel that the exercise names, graded."""
    ex = _resolve(name)
    if ex.kernel_name not in kernels:
        found = ", ".join(kernels) or "none"
        raise ValueError(f"exercise {name!r} grades a kernel named `{ex.kernel_name}` ({ex.kernel}); this cell "
                         f"defines {found}")
    return grade(kernels[ex.kernel_name], ex)


__all__ = ["Exercise", "GradeResult", "LaunchRules", "exercise", "exercises", "grade", "grade_cell", "load_exercises",
           "publish_exercises"]

"""A grade: what the student sees (a rubric with a text/plain twin) and what a grader reads
(GradeResult.to_dict(), also in the display bundle as application/vnd.xcuda.grade+json)."""
import dataclasses
import json
import math

from xcuda import _core
from xcuda._exercise.gates import number_text

GRADE_MIME = "application/vnd.xcuda.grade+json"


@dataclasses.dataclass
class TestResult:
    name: str
    size: object
    launch: tuple  # (grid, block, shared bytes)
    passed: bool
    outcome: str
    hint: str = ""
    finding: object = None  # the KernelCheckError that stopped it
    verdict: object = None  # judge.Verdict (None when a finding stopped it)
    gpu: str = ""  # on a GPU: "pass" or what was wrong there

    def to_dict(self):
        grid, block, shared = self.launch
        d = {"name": self.name, "size": list(self.size) if isinstance(self.size, tuple) else self.size,
             "launch": {"grid": list(grid), "block": list(block), "shared_bytes": shared},
             "passed": self.passed, "outcome": self.outcome, "hint": self.hint, "first_wrong": None,
             "finding": None, "gpu": self.gpu or None}
        v = self.verdict
        if v is not None and not v.passed:
            d["first_wrong"] = {"output": v.output, "index": v.index, "got": _plain(v.got),
                                "expected": _plain(v.expected)}
        if self.finding is not None:
            e = self.finding
            d["finding"] = {"kind": e.kind, "line": e.line, "thread": list(e.thread), "block": list(e.block),
                            "parameter": e.parameter}
        return d


@dataclasses.dataclass
class FindingResult:
    line: int
    source: str
    test: str
    message: str
    hint: str
    kind: str

    def to_dict(self):
        return dataclasses.asdict(self)


def _plain(v):
    """A JSON-safe scalar."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class GradeResult:
    """What xcuda.grade() found: .solved, .score and .max_score, .tests, .gates, .findings, .stories
    (what a thread did), .notes; .to_dict() for a grader; .check() raises AssertionError unless solved.
    Shown in a notebook as a rubric (HTML with a text/plain twin)."""

    def __init__(self, exercise, kernel, tests, gates, findings, on_gpu):
        self.exercise = exercise.name
        self.title = exercise.title
        self.kernel = kernel
        self.tests = tests
        self.gates = gates
        self.findings = findings
        self.device = ("the CPU device and the GPU" if on_gpu else "the CPU device")
        self.stories = []
        self.notes = []
        self.picture_svg = ""
        self.timing = None
        self._points = exercise.points

    @property
    def not_started(self):
        """The kernel left every output of every test as it was, and nothing stopped it: a stub."""
        return all(t.verdict is not None and t.verdict.untouched and not t.verdict.passed for t in self.tests)

    @property
    def tests_passed(self):
        return sum(t.passed for t in self.tests)

    @property
    def solved(self):
        return self.tests_passed == len(self.tests) and all(g.passed for g in self.gates)

    @property
    def max_score(self):
        return float(self._points) if self._points is not None else float(len(self.tests) + len(self.gates))

    @property
    def score(self):
        earned = self.tests_passed
        if self.tests_passed == len(self.tests):
            earned += sum(g.passed for g in self.gates)
        return self.max_score * earned / (len(self.tests) + len(self.gates))

    @property
    def verdict(self):
        failed = len(self.tests) - self.tests_passed
        if self.not_started:
            return "not solved yet: the kernel leaves every output as it was (complete it and run its cell again)"
        if failed:
            stopped = sum(t.finding is not None for t in self.tests)
            text = f"not yet: {failed} of {len(self.tests)} tests fail"
            return text + (f" ({stopped} stopped by the checks)" if stopped else "")
        failing = [g for g in self.gates if not g.passed]
        if failing:
            return (f"correct, but {len(failing)} of {len(self.gates)} gates fail: "
                    + ", ".join(g.name for g in failing))
        return "solved: every test and gate passes"

    def check(self):
        """Raises AssertionError with the verdict unless solved (a grading cell's assertion); returns self."""
        if not self.solved:
            raise AssertionError(f"exercise {self.exercise!r}: {self.verdict}")
        return self

    def points(self, out_of):
        """Shows the rubric and returns the score scaled to `out_of`: a grading cell ending with it gives
        nbgrader's partial credit (a cell whose last value is a number between 0 and its points)."""
        from IPython.display import display
        display(self)
        return round(out_of * self.score / self.max_score, 3) if self.max_score else 0.0

    def to_dict(self):
        return {
            "exercise": self.exercise, "kernel": self.kernel, "device": self.device, "solved": self.solved,
            "not_started": self.not_started, "verdict": self.verdict, "score": self.score,
            "max_score": self.max_score, "tests": [t.to_dict() for t in self.tests],
            "gates": [{"gate": g.gate, "name": g.name, "measured": _plain(float(g.measured)), "limit": str(g.limit),
                       "passed": g.passed, "judged": g.judged, "note": g.note} for g in self.gates],
            "findings": [f.to_dict() for f in self.findings], "stories": self.stories, "notes": self.notes,
            "timing": self.timing,
        }

    def json(self):
        return json.dumps(self.to_dict(), indent=1)

    def _rubric(self):
        tests = [{"name": t.name, "launch": _launch_text(t.launch), "passed": t.passed, "outcome": t.outcome,
                  "hint": t.hint, "gpu": t.gpu} for t in self.tests]
        gates = [{"name": g.name, "measured": "" if math.isnan(g.measured) else number_text(g.gate, g.measured),
                  "limit": str(g.limit), "passed": g.passed, "judged": g.judged, "note": g.note} for g in self.gates]
        notes = list(self.notes)
        if not self.not_started and any(not g.judged for g in self.gates):
            notes.append("Gates are judged once every test passes.")
        return _core._rubric_report({
            "exercise": self.exercise, "title": self.title, "kernel": self.kernel, "device": self.device,
            "verdict": self.verdict, "solved": self.solved, "score": self.score, "max_score": self.max_score,
            "tests": tests, "gates": gates, "findings": [f.to_dict() for f in self.findings],
            "stories": self.stories, "notes": notes, "picture_svg": self.picture_svg})

    def __str__(self):
        return self._rubric().plain

    def __repr__(self):
        return f"<xcuda.GradeResult {self.exercise!r}: {self.verdict}; score {self.score:g}/{self.max_score:g}>"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_mimebundle_(self, include=None, exclude=None):
        r = self._rubric()
        return {"text/plain": r.plain, "text/html": r.html, GRADE_MIME: self.to_dict()}


def _launch_text(config):
    grid, block, shared = config

    def d(v):
        used = v[:2] if v[2] == 1 else v
        return str(v[0]) if v[1:] == (1, 1) else "(" + ", ".join(map(str, used)) + ")"

    return f"{d(grid)} x {d(block)}" + (f", {shared} B shared" if shared else "")

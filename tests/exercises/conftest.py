"""The course's solutions, read from notebooks/06-course-solutions.ipynb (the one place they are
written), and a helper that compiles a kernel and grades it on the CPU device."""
import pathlib
import re

import nbformat
import pytest

import xcuda
import xcuda.course  # noqa: F401  (registers the course's exercises)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "notebooks" / "06-course-solutions.ipynb"
STUBS = ROOT / "notebooks" / "06-course.ipynb"

requires_device = pytest.mark.skipif(not xcuda.device_available(), reason=(
    "no device: XCUDA_DEVICE=none and no GPU (ctest's exercises suite runs these on the CPU device)"))


def exercise_cells(path):
    """{exercise name: the %%cuda cell's C++ (the magic line dropped, solution markers kept as comments)}."""
    cells = {}
    for cell in nbformat.read(path, as_version=4).cells:
        m = re.match(r"%%cuda --exercise (\w+)\n", cell.source)
        if cell.cell_type == "code" and m:
            cells[m.group(1)] = cell.source[m.end():]
    return cells


def solution(name):
    return exercise_cells(SOLUTIONS)[name]


def kernel_of(source, name):
    """The kernel `name` of `source`, compiled with xcuda.compile (its line 1 is source's line 1)."""
    return xcuda.compile(source).kernels[name]


def grade(source, exercise, **options):
    ex = xcuda.exercise(exercise)
    return xcuda.grade(kernel_of(source, ex.kernel_name), exercise, **options)


def replaced(source, old, new):
    """The solution with one piece changed (the change must apply: a test of a mistake that the
    solution no longer contains would prove nothing)."""
    assert source.count(old) == 1, f"{old!r} is not in the solution exactly once:\n{source}"
    return source.replace(old, new)

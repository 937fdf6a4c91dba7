"""The real nbgrader round trip with a %%cuda exercise: generate_assignment turns the teacher's
notebook into the students' (the kernel's body a C++ stub, the reference nowhere in the release),
then autograde runs three submissions in the xcuda kernel (right, wrong, untouched) against the
teacher's file the grader names in XCUDA_EXERCISE_FILES, and the gradebook holds their scores.

nbgrader comes from PyPI into a venv (XCUDA_NBGRADER_VENV, made by ctest's
exercises.nbgrader.setup); the xcuda kernel is the build tree's (JUPYTER_PATH)."""
import os
import pathlib
import shutil
import subprocess
import textwrap

import nbformat
import pytest

import xcuda

VENV = pathlib.Path(os.environ.get("XCUDA_NBGRADER_VENV", "/nonexistent"))
NBGRADER = VENV / "bin" / "nbgrader"

pytestmark = [
    pytest.mark.skipif(not NBGRADER.exists(), reason=(
        f"nbgrader is not installed in XCUDA_NBGRADER_VENV ({VENV}): ctest's exercises.nbgrader.setup installs it "
        "from PyPI (tests/exercises/setup_nbgrader.sh)")),
    pytest.mark.skipif(not xcuda.device_available(), reason="no device: XCUDA_DEVICE=none and no GPU"),
]

TEACHER = '''
import numpy as np
import xcuda

xcuda.exercise(
    "affine", kernel="void affine(const float* x, float* y, int n)",
    reference=lambda x, n: 3 * x + 1,
    inputs=lambda rng, n: {"x": rng.integers(-100, 100, n).astype(np.float32), "n": n},
    sizes=[100, 1000, 5000], launch=lambda n: ((n + 255) // 256, 256),
    gates={"global_loads_per_element": 1})
'''

SOLUTION_BODY = """\
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0f * x[i] + 1.0f;"""
WRONG_BODY = """\
    int i = threadIdx.x;
    if (i < n) y[i] = 3.0f * x[i] + 1.0f;"""
KERNEL_HEAD = '%%cuda\nextern "C" __global__ void affine(const float* x, float* y, int n) {\n'


def nbgrader_cell(source, **meta):
    cell = nbformat.v4.new_code_cell(source)
    cell.metadata["nbgrader"] = {"schema_version": 3, "grade": False, "solution": False, "locked": False, **meta}
    return cell


def teacher_notebook():
    nb = nbformat.v4.new_notebook(cells=[
        nbgrader_cell('import xcuda\nxcuda.load_exercises("course.npz")', grade_id="setup", locked=True),
        nbgrader_cell(KERNEL_HEAD + "    // BEGIN SOLUTION\n" + SOLUTION_BODY + "\n    // END SOLUTION\n}",
                      grade_id="affine_kernel", solution=True),
        nbgrader_cell('xcuda.grade(affine, "affine").points(3)', grade_id="affine_tests", grade=True, locked=True,
                      points=3),
    ])
    nb.metadata = {"kernelspec": {"name": "xcuda", "display_name": "Python 3 (xcuda)", "language": "python"},
                   "language_info": {"name": "python"}}
    return nb


def run(args, cwd, env):
    out = subprocess.run([str(NBGRADER), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out


def test_generate_assignment_stubs_the_cuda_cell_and_autograde_scores_right_wrong_and_untouched(tmp_path):
    course = tmp_path / "course"
    source = course / "source" / "ps1"
    source.mkdir(parents=True)
    grader = tmp_path / "grader"
    grader.mkdir()
    (grader / "teacher.py").write_text(TEACHER)
    nbformat.write(teacher_notebook(), source / "ps1.ipynb")
    # The teacher publishes the course file (digests, no reference) with the teacher's file loaded.
    publish = textwrap.dedent(f'''
        import runpy, xcuda
        runpy.run_path({str(grader / "teacher.py")!r})
        xcuda.publish_exercises({str(source / "course.npz")!r}, ["affine"])
    ''')
    subprocess.run(["/usr/bin/python3", "-c", publish], check=True, timeout=300)
    (course / "nbgrader_config.py").write_text(textwrap.dedent('''
        c = get_config()
        c.CourseDirectory.course_id = "gpu101"
        c.Execute.timeout = 600
        import xcuda.nbgrader
        c.GenerateAssignment.preprocessors = xcuda.nbgrader.generate_assignment_preprocessors()
    '''))
    # nbgrader runs its own tools (alembic) from PATH.
    env = dict(os.environ, PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")

    run(["generate_assignment", "ps1", "--force"], course, env)
    release = course / "release" / "ps1"
    stub_nb = nbformat.read(release / "ps1.ipynb", as_version=4)
    kernel_cell = stub_nb.cells[1].source
    assert kernel_cell == KERNEL_HEAD + "    // YOUR CODE HERE\n}", kernel_cell
    assert "NotImplementedError" not in kernel_cell
    released = sorted(p.name for p in release.iterdir())
    assert released == ["course.npz", "ps1.ipynb"], released
    assert "3 * x + 1" not in (release / "ps1.ipynb").read_text()

    # Three students: one solves it, one forgets blockIdx, one hands the stub back.
    for student, body in (("right", SOLUTION_BODY), ("wrong", WRONG_BODY), ("untouched", None)):
        submitted = course / "submitted" / student / "ps1"
        shutil.copytree(release, submitted)
        nb = nbformat.read(submitted / "ps1.ipynb", as_version=4)
        if body is not None:
            nb.cells[1].source = KERNEL_HEAD + body + "\n}"
        nbformat.write(nb, submitted / "ps1.ipynb")
    env["XCUDA_EXERCISE_FILES"] = str(grader / "teacher.py")
    run(["autograde", "ps1", "--force"], course, env)

    scores = subprocess.run(
        [str(VENV / "bin" / "python"), "-c", textwrap.dedent('''
            from nbgrader.api import Gradebook
            with Gradebook("sqlite:///gradebook.db") as gb:
                for s in ("right", "wrong", "untouched"):
                    print(s, gb.find_submission_notebook("ps1", "ps1", s).score)
        ''')], cwd=course, capture_output=True, text=True, timeout=120, check=True).stdout.split()
    got = dict(zip(scores[::2], map(float, scores[1::2])))
    # 3 tests + 2 gates (loads, findings): the wrong kernel passes the smallest test only.
    assert got == {"right": 3.0, "wrong": 0.6, "untouched": 0.0}, got
    graded = nbformat.read(course / "autograded" / "wrong" / "ps1" / "ps1.ipynb", as_version=4)
    text = "".join(o.get("data", {}).get("text/plain", "") for o in graded.cells[2].outputs)
    # The grader's run had the full reference: the expected value is named.
    assert "y[256] is 0, expected" in text and "does the index use blockIdx?" in text, text

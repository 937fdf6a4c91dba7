"""Defining an exercise in a few lines and grading with it: the teacher's side (xcuda.exercise, its
errors), the student's (xcuda.grade, %%cuda --exercise, the rubric and its text twin, what a thread
did, the picture), the grader's (GradeResult.to_dict, .check, .points, XCUDA_EXERCISE_FILES) and the
course file that carries digests instead of the reference (xcuda.publish_exercises/load_exercises)."""
import json
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xcuda
from conftest import kernel_of, requires_device

AFFINE = r'''
extern "C" __global__ void affine(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0f * x[i] + 1.0f;
}
'''
AFFINE_NO_BLOCKIDX = AFFINE.replace("blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x")


def define_affine(name="affine_api", launch=lambda n: ((n + 255) // 256, 256), **options):
    return xcuda.exercise(
        name,
        kernel="void affine(const float* x, float* y, int n)",
        reference=lambda x, n: 3 * x + 1,
        inputs=lambda rng, n: {"x": rng.integers(-50, 50, n).astype(np.float32), "n": n},
        sizes=[100, 1000, 4096],
        launch=launch,
        gates={"global_loads_per_element": 1, "sectors_per_request": 4},
        **options)


# --- the teacher's side ---------------------------------------------------------------------------

def test_an_exercise_is_a_few_lines_and_registered_under_its_name():
    ex = define_affine()
    assert xcuda.exercise("affine_api") is ex
    assert ex.kernel_name == "affine" and [p.name for p in ex.outputs] == ["y"]
    assert ex.label(0) == "n = 100 (smaller than a block of 256)"
    assert ex.label(1) == "n = 1000 (not a multiple of the block, 256)"
    assert ex.label(2) == "n = 4096 (16 blocks)"
    assert str(ex.limits["check_findings"]) == "== 0"


def test_the_seed_fixes_each_tests_inputs():
    a, b = define_affine(seed=3), define_affine(seed=3)
    assert np.array_equal(a.arguments(1)["x"], b.arguments(1)["x"])
    assert not np.array_equal(a.arguments(1)["x"], define_affine(seed=4).arguments(1)["x"])


@pytest.mark.parametrize("change, message", [
    ({"kernel": "affine(x, y)"}, "write the kernel's signature as C++ declares it"),
    ({"kernel": "void affine(const float* x, int n)"}, "has no output"),
    ({"kernel": "void affine(const thing* x, float* y)"}, "pointers to thing are not supported"),
    ({"gates": {"speed": 1}}, "unknown gate 'speed'"),
    ({"gates": {"bank_conflicts": "at most 2"}}, "a limit is a number"),
    ({"sizes": []}, "at least one test size"),
    ({"gate_size": 7}, "gate_size 7 is not one of the sizes"),
])
def test_a_wrong_definition_says_what_is_wrong_and_how_to_write_it(change, message):
    args = dict(kernel="void affine(const float* x, float* y, int n)", reference=lambda x, n: 3 * x + 1,
                inputs=lambda rng, n: {"x": np.zeros(n, np.float32), "n": n}, sizes=[100],
                launch=lambda n: (1, 256))
    args.update(change)
    with pytest.raises(ValueError, match=re.escape(message)):
        xcuda.exercise("bad_definition", **args)


def test_an_unknown_exercise_names_the_ones_defined():
    define_affine()
    with pytest.raises(KeyError, match="no exercise named 'nonesuch'.*affine_api"):
        xcuda.exercise("nonesuch")


# --- the student's side ---------------------------------------------------------------------------

@requires_device
def test_a_right_kernel_solves_it_and_the_rubric_shows_every_test_and_gate():
    result = xcuda.grade(kernel_of(AFFINE, "affine"), define_affine())
    assert result.solved and result.score == result.max_score == 3 + 3
    text = str(result)
    assert "solved: every test and gate passes. Score 6/6." in text
    for label in ("n = 100 (smaller than a block of 256)", "global loads per element", "findings of the checks"):
        assert label in text
    bundle = result._repr_mimebundle_()
    assert "<table" in bundle["text/html"] and bundle["application/vnd.xcuda.grade+json"]["solved"] is True


@requires_device
def test_elements_from_the_block_size_on_left_at_zero_get_the_blockidx_hint_and_what_the_thread_did():
    result = xcuda.grade(kernel_of(AFFINE_NO_BLOCKIDX, "affine"), define_affine())
    failed = [t for t in result.tests if not t.passed]
    assert [t.name for t in failed] == ["n = 1000 (not a multiple of the block, 256)", "n = 4096 (16 blocks)"]
    assert failed[0].outcome.startswith("y[256] is 0, expected ")
    assert failed[0].hint.startswith("elements 256 and up are 0: 256 is your block size: does the index use blockIdx?")
    assert all(not g.judged for g in result.gates)
    (story,) = result.stories
    assert story["title"].startswith("thread (0,0,0) of block (1,0,0) did (test n = 1000")
    assert "no thread wrote y[256]" in story["title"]
    touched = [t for line in story["lines"] for t in line["touched"]]
    assert any(t.startswith("x[0] = ") and t.endswith(" read") for t in touched), touched
    assert any(t.startswith("y[0] = ") and t.endswith(" written") for t in touched), touched
    assert 4 in [line["line"] for line in story["lines"]]
    assert result.picture_svg.startswith("<svg") and ">y (written)</text>" in result.picture_svg
    assert "What thread (0,0,0) of block (1,0,0) did" in str(result)


@requires_device
def test_a_wrong_value_names_the_thread_that_wrote_it_and_the_values_it_moved():
    wrong = AFFINE.replace("if (i < n) y[i] = 3.0f * x[i] + 1.0f;",
                           "if (i < n) y[i] = i == 261 ? 0.0f : 3.0f * x[i] + 1.0f;")
    result = xcuda.grade(kernel_of(wrong, "affine"), define_affine())
    t = next(t for t in result.tests if not t.passed)
    assert t.outcome.startswith("y[261] is 0, expected") and "(1 of 1000 elements wrong)" in t.outcome
    (story,) = result.stories
    assert story["title"].startswith("thread (5,0,0) of block (1,0,0) did")
    assert "it wrote y[261] = 0 last" in story["title"]
    assert any(t == "y[261] = 0 written" for line in story["lines"] for t in line["touched"])


@requires_device
def test_a_signature_that_differs_is_a_type_error_naming_the_parameter():
    other = AFFINE.replace("const float* x, float* y, int n", "const double* x, float* y, int n")
    with pytest.raises(TypeError, match=r"parameter 1 is `const double\* x`, the exercise's is `const float\* x`"):
        xcuda.grade(kernel_of(other, "affine"), define_affine())


@requires_device
def test_the_student_chooses_the_launch_within_the_rules():
    ex = define_affine("affine_student", launch=None)
    kernel = kernel_of(AFFINE, "affine")
    with pytest.raises(ValueError, match="lets you choose the launch: pass launch="):
        xcuda.grade(kernel, ex)
    with pytest.raises(ValueError, match="a block of 100 threads is not a multiple of 32"):
        xcuda.grade(kernel, ex, launch=lambda n: ((n + 99) // 100, 100))
    assert xcuda.grade(kernel, ex, launch=lambda n: ((n + 127) // 128, 128)).solved
    with pytest.raises(ValueError, match="chooses the launch itself"):
        xcuda.grade(kernel, define_affine(), launch=lambda n: (1, 32))


@requires_device
def test_a_reference_kernel_serves_as_the_reference():
    ex = xcuda.exercise("affine_by_kernel", kernel="void affine(const float* x, float* y, int n)",
                        reference=kernel_of(AFFINE, "affine"),
                        inputs=lambda rng, n: {"x": rng.random(n, np.float32), "y": np.zeros(n, np.float32), "n": n},
                        sizes=[100, 1000], launch=lambda n: ((n + 255) // 256, 256))
    assert xcuda.grade(kernel_of(AFFINE, "affine"), ex).solved
    assert not xcuda.grade(kernel_of(AFFINE_NO_BLOCKIDX, "affine"), ex).solved


# --- the grader's side ----------------------------------------------------------------------------

@requires_device
def test_the_result_for_a_grader_is_plain_json():
    result = xcuda.grade(kernel_of(AFFINE_NO_BLOCKIDX, "affine"), define_affine())
    d = json.loads(result.json())
    assert d["exercise"] == "affine_api" and d["solved"] is False and d["score"] == 1 and d["max_score"] == 6
    assert d["tests"][1]["first_wrong"] == {"output": "y", "index": 256, "got": 0.0,
                                            "expected": d["tests"][1]["first_wrong"]["expected"]}
    assert d["tests"][1]["launch"] == {"grid": [4, 1, 1], "block": [256, 1, 1], "shared_bytes": 0}
    with pytest.raises(AssertionError, match="not yet: 2 of 3 tests fail"):
        result.check()


@requires_device
def test_points_scale_the_score_for_nbgraders_partial_credit(capsys):
    result = xcuda.grade(kernel_of(AFFINE_NO_BLOCKIDX, "affine"), define_affine())
    assert result.points(12) == 2.0
    assert "not yet: 2 of 3 tests fail" in capsys.readouterr().out  # the rubric is shown with it


@requires_device
def test_checks_findings_stop_a_test_and_show_at_the_cells_line():
    overrun = AFFINE.replace("if (i < n)", "if (i <= n)")
    result = xcuda.grade(kernel_of(overrun, "affine"), define_affine())
    t = result.tests[0]
    assert not t.passed and t.finding.kind == "out_of_bounds" and t.outcome.endswith("at line 4")
    (finding, *_) = result.findings
    assert finding.line == 4 and "if (i <= n)" in finding.source and "guard the access" in finding.hint
    assert "Findings of the checks" in str(result)


GRADER_FILE = '''
import numpy as np
import xcuda
xcuda.exercise("affine_from_file", kernel="void affine(const float* x, float* y, int n)",
               reference=lambda x, n: 3 * x + 1, inputs=lambda rng, n: {"x": rng.random(n, np.float32), "n": n},
               sizes=[100, 1000], launch=lambda n: ((n + 255) // 256, 256))
'''


@requires_device
def test_a_grader_names_the_teachers_files_in_an_environment_variable(tmp_path):
    path = tmp_path / "teacher.py"
    path.write_text(GRADER_FILE)
    script = textwrap.dedent(f'''
        import xcuda
        kernel = xcuda.compile({AFFINE!r}).kernels["affine"]
        print(xcuda.grade(kernel, "affine_from_file").verdict)
    ''')
    import os
    env = dict(os.environ, XCUDA_EXERCISE_FILES=str(path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "solved: every test and gate passes" in out.stdout
    env["XCUDA_EXERCISE_FILES"] = str(tmp_path / "missing.py")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert "XCUDA_EXERCISE_FILES names" in out.stderr and "which is not a file" in out.stderr


@pytest.mark.skipif(xcuda.gpu_available(), reason="a GPU is a device: XCUDA_DEVICE=none leaves it usable")
def test_with_no_device_at_all_grading_raises_no_device_error():
    script = textwrap.dedent(f'''
        import numpy as np, xcuda
        kernel = xcuda.compile({AFFINE!r}).kernels["affine"]
        xcuda.exercise("a", kernel="void affine(const float* x, float* y, int n)", reference=lambda x, n: 3 * x + 1,
                       inputs=lambda rng, n: {{"x": np.zeros(n, np.float32), "n": n}}, sizes=[10],
                       launch=lambda n: (1, 32))
        try:
            xcuda.grade(kernel, "a")
        except xcuda.NoDeviceError:
            print("NoDeviceError")
    ''')
    import os
    env = dict(os.environ, XCUDA_DEVICE="none")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.stdout.strip() == "NoDeviceError", out.stdout + out.stderr


# --- the course file: digests instead of the reference --------------------------------------------

@requires_device
def test_a_published_course_grades_without_its_reference(tmp_path):
    path = tmp_path / "course.npz"
    define_affine("affine_published")
    xcuda.publish_exercises(path, ["affine_published"])
    raw = path.read_bytes()
    script = textwrap.dedent(f'''
        import xcuda
        print(xcuda.load_exercises({str(path)!r}))
        right = xcuda.compile({AFFINE!r}).kernels["affine"]
        wrong = xcuda.compile({AFFINE_NO_BLOCKIDX!r}).kernels["affine"]
        print("RIGHT", xcuda.grade(right, "affine_published").verdict)
        r = xcuda.grade(wrong, "affine_published")
        print("WRONG", r.verdict)
        print("OUTCOME", r.tests[1].outcome)
        print("HINT", r.tests[1].hint)
    ''')
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "['affine_published']" in out.stdout
    assert "RIGHT solved: every test and gate passes" in out.stdout
    assert "WRONG not yet: 2 of 3 tests fail" in out.stdout
    assert "OUTCOME y[256] is 0, is wrong (the expected values are not in this notebook)" in out.stdout
    assert "HINT elements 256 and up are 0: 256 is your block size" in out.stdout
    # The expected values are not in the file: 3 * x + 1 of the first test's inputs appears nowhere.
    x = define_affine("affine_published").arguments(0)["x"]
    assert (3 * x + 1).tobytes()[:64] not in raw


def test_digests_accept_a_float_within_the_tolerance_and_refuse_one_beyond():
    from xcuda._exercise.published import Hashed
    expected = np.array([1.0, -2.5, 1000.0, np.nan], np.float32)
    h = Hashed.of(expected, rtol=1e-5, atol=1e-6, salt=12345)
    step = 1e-6 + 1e-5 * 1000
    assert not h.wrong_mask(expected).any()
    assert not h.wrong_mask(expected + np.float32(0.9 * step)).any()
    assert h.wrong_mask(expected + np.float32(3 * step))[:3].all()
    ints = Hashed.of(np.array([3, 0, 7], np.int32), 0, 0, salt=1)
    assert ints.wrong_mask(np.array([3, 1, 7], np.int32)).tolist() == [False, True, False]


# --- %%cuda --exercise ----------------------------------------------------------------------------

@requires_device
def test_the_cuda_magic_grades_the_cells_kernel():
    from IPython.testing.globalipapp import start_ipython
    from IPython.utils.capture import capture_output
    define_affine("affine_magic")
    ip = start_ipython()
    ip.extension_manager.load_extension("xcuda")
    with capture_output() as captured:
        ip.run_cell_magic("cuda", "--exercise affine_magic", AFFINE_NO_BLOCKIDX)
    text = captured.stdout + "".join(o.data.get("text/plain", "") for o in captured.outputs)
    assert "Exercise `affine_magic` (kernel `affine`)" in text and "not yet: 2 of 3 tests fail" in text, text
    assert "affine" in ip.user_ns  # the kernel is bound as by any %%cuda cell
    with pytest.raises(ValueError, match="grades a kernel named `affine`.*this cell defines other"):
        ip.run_cell_magic("cuda", "--exercise affine_magic", AFFINE.replace("void affine", "void other"))


# --- on a GPU -------------------------------------------------------------------------------------

requires_gpu = pytest.mark.skipif(not xcuda.gpu_available() or xcuda.get_device() == "cpu", reason=(
    "needs a GPU: on one, every test also runs there and the kernel is timed (this machine: "
    + (xcuda.driver_unavailable_reason() or "the CPU device is selected") + ")"))


@requires_gpu
def test_on_a_gpu_the_grade_is_the_cpu_devices_and_the_time_is_shown_not_graded():
    ex = xcuda.exercise("affine_gpu", kernel="void affine(const float* x, float* y, int n)",
                        reference=kernel_of(AFFINE, "affine"),
                        inputs=lambda rng, n: {"x": rng.random(n, np.float32), "y": np.zeros(n, np.float32), "n": n},
                        sizes=[100, 1000, 100_000], launch=lambda n: ((n + 255) // 256, 256),
                        gates={"global_loads_per_element": 1, "sectors_per_request": 4})
    for source in (AFFINE, AFFINE_NO_BLOCKIDX):
        on_gpu = xcuda.grade(kernel_of(source, "affine"), ex)
        device = xcuda.get_device()
        xcuda.set_device("cpu")
        try:
            on_cpu = xcuda.grade(kernel_of(source, "affine"), ex)
        finally:
            xcuda.set_device(device)
        assert on_gpu.device == "the CPU device and the GPU" and on_cpu.device == "the CPU device"
        assert on_gpu.verdict == on_cpu.verdict and on_gpu.score == on_cpu.score
        # nan where a gate was not measured (the tests failed): equal to nan here
        np.testing.assert_array_equal([g.measured for g in on_gpu.gates], [g.measured for g in on_cpu.gates])
        assert [t.gpu == "pass" for t in on_gpu.tests] == [t.passed for t in on_cpu.tests]
    # A kernel the checks stop is not run on the GPU, whose context an illegal address would cost.
    overrun = xcuda.grade(kernel_of(AFFINE.replace("if (i < n)", "if (i <= n)"), "affine"), ex)
    assert all(t.gpu == "not run (the checks stopped it)" for t in overrun.tests)
    right = xcuda.grade(kernel_of(AFFINE, "affine"), ex)
    assert right.timing["kernel_s"] > 0 and right.timing["reference_s"] > 0
    assert any("shown, not graded" in note for note in right.notes)

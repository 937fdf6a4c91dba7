"""Executes every notebook in notebooks/ with the xcuda kernel and checks what the cells print.

Environment:
  JUPYTER_PATH           must lead to an xcuda kernelspec (ctest: the build tree's; the GPU run: the
                         one `python -m xcuda install --sys-prefix` wrote)
  XCUDA_NOTEBOOK_KERNEL  kernel to run them with (default "xcuda"; "python3" runs them in ipykernel
                         with the `xcuda` extension module, e.g. on the GPU machine's Python 3.12)
  XCUDA_GPU_TESTS        "1": the machine must have a GPU; "0": it must not (kernels then run on the
                         CPU device, or with XCUDA_DEVICE=none nowhere: the cells tagged "gpu" then
                         stop with NoDeviceError); unset: whatever the kernel reports
  XCUDA_REQUIRE_INTEROP  "1": CuPy/PyTorch cells may not skip
  XCUDA_ARTIFACTS_DIR    where the executed notebooks are written (for reading the outputs later)
  XCUDA_NOTEBOOK_GLOB    which notebooks to execute (default "*.ipynb": all of them)
"""
import os
import pathlib
import signal
import contextlib

import nbformat
import pytest
from nbclient import NotebookClient

from notebook_checks import check_notebook, needs_gpu, output_text, skipped_cells, tag_problems
from stored_outputs import names_its_device, stale_cells, structure_differences

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = pathlib.Path(os.environ.get("XCUDA_NOTEBOOK_DIR", ROOT / "notebooks"))
KERNEL = os.environ.get("XCUDA_NOTEBOOK_KERNEL", "xcuda")
CELL_TIMEOUT_S = 240
NOTEBOOK_TIMEOUT_S = 420
ALL_NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob(os.environ.get("XCUDA_NOTEBOOK_GLOB", "*.ipynb")))


@contextlib.contextmanager
def deadline(seconds, what):
    def expired(signum, frame):
        raise TimeoutError(f"{what} did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def execute(nb, workdir, what):
    # Every cell runs whatever an earlier one raised: check_notebook judges each error.
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=CELL_TIMEOUT_S, startup_timeout=60, allow_errors=True,
                            resources={"metadata": {"path": str(workdir)}})
    # ipykernel forwards C-level output (os.write(1), printf, device printf) to the notebook only
    # when PYTEST_CURRENT_TEST is unset; a user's kernel never runs under pytest.
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}
    with deadline(NOTEBOOK_TIMEOUT_S, what):
        client.execute(env=env)
    return nb


@pytest.fixture(scope="session")
def device(tmp_path_factory):
    """Where launches run here ('gpu', 'cpu' for the CPU device, 'none'): asked of the kernel itself,
    and held against XCUDA_GPU_TESTS."""
    probe = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import xcuda\nprint('gpu', xcuda.gpu_available(), 'device', xcuda.device_available())")])
    execute(probe, tmp_path_factory.mktemp("probe"), "the device probe")
    text = output_text(probe.cells[0])
    where = "gpu" if "gpu True" in text else "cpu" if "device True" in text else "none"
    wanted = os.environ.get("XCUDA_GPU_TESTS")
    if wanted == "1" and where != "gpu":
        pytest.fail(f"XCUDA_GPU_TESTS=1 but the {KERNEL} kernel sees no usable GPU: {text!r}")
    if wanted == "0" and where == "gpu":
        pytest.fail(f"XCUDA_GPU_TESTS=0 but the {KERNEL} kernel sees a GPU")
    return where


def test_every_shipped_notebook_is_found():
    names = {p.name for p in ALL_NOTEBOOKS}
    assert {"02-teaching.ipynb", "03-profiling.ipynb", "04-interop.ipynb", "05-scale-out.ipynb"} <= names, names


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[p.stem for p in ALL_NOTEBOOKS])
def test_notebook_is_for_the_xcuda_kernel_and_its_stored_outputs_belong_to_its_cells(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.get("kernelspec", {}).get("name") == "xcuda"
    assert names_its_device(nb), (f"{path.name}'s first cell does not name the device its stored outputs come from "
                                  f"({nb.metadata['xcuda']['outputs_from']}): tests/notebooks/stored_outputs.py writes it")
    stale = stale_cells(nb)
    assert not stale, (f"cells {stale} were edited after their outputs were stored: run the notebooks on the GPU "
                       "machine again and store them (tests/notebooks/stored_outputs.py), or clear those outputs")


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=[p.stem for p in ALL_NOTEBOOKS])
def test_cells_that_need_a_gpu_let_run_all_go_on_without_one(path):
    problems = tag_problems(nbformat.read(path, as_version=4))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom_and_prints_its_checked_results(path, device, tmp_path):
    stored = nbformat.read(path, as_version=4)
    nb = execute(nbformat.read(path, as_version=4), tmp_path, path.name)
    artifacts = os.environ.get("XCUDA_ARTIFACTS_DIR")
    if artifacts:
        pathlib.Path(artifacts).mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, pathlib.Path(artifacts) / path.name)
    problems = check_notebook(nb, device, require_interop=os.environ.get("XCUDA_REQUIRE_INTEROP") == "1")
    if problems:
        where = {"gpu": "on a GPU", "cpu": "on the CPU device", "none": "with no device"}[device]
        pytest.fail(f"{path.name} ({where}):\n\n" + "\n\n".join(problems), pytrace=False)
    # The stored outputs are a GPU run's: another GPU run must show the same kinds of output.
    if device == "gpu" and stored.metadata.get("xcuda", {}).get("outputs_from"):
        differences = structure_differences(stored, nb)
        assert not differences, (f"{path.name}: this GPU run's outputs differ in structure from the stored ones "
                                 "(store this run's, tests/notebooks/stored_outputs.py, if the change is meant):\n"
                                 + "\n".join(differences))
    skipped = skipped_cells(nb)
    if skipped:
        print(f"{path.name}: cells {skipped} skipped for a missing optional library")


def notebook(prefix):
    (path,) = [p for p in ALL_NOTEBOOKS if p.name.startswith(prefix)]
    return nbformat.read(path, as_version=4)


def test_quickstart_ends_by_pointing_on_to_the_other_notebooks():
    cells = notebook("01-").cells
    closing = [c.source for c in cells if c.cell_type == "markdown"][-1]
    assert "sm_90" in closing and "CPU device" in closing, "01 should say why it compiled for sm_90 without a GPU"
    for p in ALL_NOTEBOOKS:
        if p.name[:3] in ("02-", "03-", "04-", "05-"):
            assert f"]({p.name})" in closing, f"01's closing cell does not link {p.name}"


def is_grading_cell(cell, kernel):
    return (cell.cell_type == "code" and cell.source.startswith(f"xcuda.grade({kernel}, ") and needs_gpu(cell)
            and "not solved yet" in cell.metadata.get("xcuda", {}).get("expect_run", []))


def test_teaching_closes_with_a_summary_and_three_exercises_each_graded():
    cells = notebook("02-").cells
    (summary,) = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Summary")]
    bullets = [line for line in cells[summary].source.splitlines() if line.startswith("- ")]
    assert 5 <= len(bullets) <= 8, f"the summary has {len(bullets)} bullets"
    (defined,) = [i for i, c in enumerate(cells) if c.cell_type == "code" and "xcuda.exercise(" in c.source]
    assert defined > summary and "hide-input" in cells[defined].metadata.get("tags", [])
    starts = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and "### Exercise" in c.source]
    assert len(starts) == 3 and starts[0] > defined, starts
    for start, end in zip(starts, starts[1:] + [len(cells)]):
        body = cells[start + 1:end]
        where = cells[start].source.split("### ")[1].splitlines()[0]
        assert [c.cell_type for c in body] == ["code", "code"], f"{where}: a stub and its grading cell"
        assert body[0].source.startswith("%%cuda") and "TODO" in body[0].source, f"{where}: no kernel stub"
        kernel = body[0].source.split("__global__ void ")[1].split("(")[0]
        assert is_grading_cell(body[1], kernel), f"{where}: no cell grades `{kernel}`"
        name = body[1].source.split('"')[1]
        assert f'"{name}", kernel="void {kernel}(' in cells[defined].source, f"{where}: {name} is not defined"


def test_teaching_race_cell_reports_a_shared_memory_race_with_both_lines_on_the_cpu_device(tmp_path):
    cells = notebook("02-").cells
    (check,) = [i for i, c in enumerate(cells) if c.cell_type == "code"
                and c.source.startswith("%%cuda_check --tool racecheck") and "count_even_racy" in c.source]
    (kernels,) = [i for i, c in enumerate(cells[:check]) if c.source.startswith("%%cuda") and "count_even_racy" in c.source]
    source = cells[kernels].source.splitlines()
    read = next(n for n, line in enumerate(source, 1) if "int seen = block_count" in line)
    write = next(n for n, line in enumerate(source, 1) if "block_count = seen + 1" in line)
    # The cells the race cell needs, on the CPU device whatever the machine has (a GPU's compute-sanitizer words it otherwise).
    run = [nbformat.v4.new_code_cell("import numpy as np, xcuda\nxcuda.set_device('cpu')"), cells[kernels],
           *[c for c in cells[kernels + 1:check] if c.cell_type == "code"], cells[check],
           nbformat.v4.new_code_cell("f = _.findings[0]\nprint('finding', f.kind, sorted({f.line, f.other_line}))")]
    nb = execute(nbformat.v4.new_notebook(cells=run), tmp_path, "the race cell")
    report = output_text(nb.cells[-2])
    assert "race on shared memory" in report and f"line {read}" in report and f"line {write}" in report, report
    assert f"finding shared_race {[read, write]}" in output_text(nb.cells[-1]), output_text(nb.cells[-1])

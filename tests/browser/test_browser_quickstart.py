"""A real browser runs the quickstart: JupyterLab (PyPI, in the venv that setup.sh makes)
on 127.0.0.1 with a random free port and a token, headless Chromium (Debian's chromium and
chromedriver) driven by Selenium. It opens a copy of notebooks/01-quickstart.ipynb with the
xcuda kernel, runs all cells from the Run menu, waits for every cell to finish and the
kernel to go idle, checks the page shows the outputs the notebook's cells declare (see
tests/notebooks/notebook_checks.py), and saves a screenshot.

Environment:
  XCUDA_BROWSER_VENV     the venv holding jupyter-lab (setup.sh VENV)
  JUPYTER_PATH           leads to an xcuda kernelspec (ctest: the build tree's)
  XCUDA_ARTIFACTS_DIR    where browser-quickstart.png goes
  XCUDA_BROWSER_NOTEBOOK the notebook to open (default notebooks/01-quickstart.ipynb)
  XCUDA_GPU_TESTS        "1" when the kernel has a GPU (its cells tagged "gpu" then must not raise
                         NoDeviceError; without one they must, and Run All goes on past them)
"""
import os
import pathlib
import shutil
import sys
import time

import nbformat
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "notebooks"))
from notebook_checks import NO_DEVICE_ERROR, SILENT_FAILURES, expected_texts  # noqa: E402

from lab_driver import (artifact_path, KERNEL_DISPLAY_NAME, PAGE_LOAD_S, cell_outputs, chromium, jupyterlab,  # noqa: E402
                        kernel_ready, prompts, run_all_from_menu, run_finished, screenshot_on_failure, wait)

NOTEBOOK = pathlib.Path(os.environ.get("XCUDA_BROWSER_NOTEBOOK", ROOT / "notebooks" / "01-quickstart.ipynb"))
RUN_ALL_S = 120
TOTAL_S = 220   # the whole test stays under 4 minutes


def test_quickstart_runs_in_jupyterlab_and_shows_its_outputs(tmp_path):
    started = time.monotonic()
    assert NOTEBOOK.exists(), f"{NOTEBOOK} is missing"
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # Where the kernel runs its kernels: a GPU (the GPU machine), else the CPU device (CI), or none.
    device = ("gpu" if os.environ.get("XCUDA_GPU_TESTS") == "1"
              else "none" if os.environ.get("XCUDA_DEVICE") == "none" else "cpu")
    code = [c for c in nb.cells if c.cell_type == "code"]
    expected = [expected_texts(c, device) for c in code]
    assert any(expected), (f"{NOTEBOOK.name} declares no output expectations in its cell metadata "
                      "(see tests/notebooks/notebook_checks.py): nothing to look for in the page")
    code_cells = len(code)
    (tmp_path / "notebooks").mkdir()
    shutil.copy(NOTEBOOK, tmp_path / "notebooks" / NOTEBOOK.name)
    screenshot = artifact_path(tmp_path, "browser-quickstart.png")

    with jupyterlab(tmp_path) as (base, token), chromium(tmp_path) as driver:
        with screenshot_on_failure(driver, screenshot):
            driver.get(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}")
            wait(driver, PAGE_LOAD_S, lambda d: len(prompts(d)) == code_cells,
                 f"the notebook's {code_cells} code cells")
            wait(driver, PAGE_LOAD_S, kernel_ready, f"the {KERNEL_DISPLAY_NAME} kernel to start and go idle")

            run_all_from_menu(driver)
            clicked = time.monotonic()
            wait(driver, RUN_ALL_S, lambda d: run_finished(d, clicked), "every cell to run and the kernel to go idle")
            outputs = cell_outputs(driver)
            driver.save_screenshot(str(screenshot))
    print(f"screenshot: {screenshot}")

    assert len(outputs) == code_cells, f"the page shows {len(outputs)} code cells, the notebook has {code_cells}"
    problems = []
    for index, (texts, shown) in enumerate(zip(expected, outputs)):
        problems += [f"code cell {index}: {t!r} not in its output {shown[:500]!r}" for t in texts if t not in shown]
        problems += [f"code cell {index} shows {bad!r}: {shown[:500]!r}" for bad in SILENT_FAILURES if bad in shown]
        if device != "none" and NO_DEVICE_ERROR in shown:
            problems.append(f"code cell {index} raised {NO_DEVICE_ERROR}, yet kernels run here ({device})")
    if problems:
        pytest.fail("after Run All:\n" + "\n".join(problems), pytrace=False)
    elapsed = time.monotonic() - started
    print(f"browser test took {elapsed:.1f} s")
    assert elapsed < TOTAL_S, f"the browser test took {elapsed:.0f} s (limit {TOTAL_S} s)"

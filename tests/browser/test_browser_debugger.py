"""JupyterLab's visual debugger on an xcuda notebook, as a user works it: the bug button in
the notebook's toolbar turns the debugger on, a click in the cell's gutter sets a breakpoint,
running the cell stops there (the call stack and the variables show the function's frame), and
Continue lets the cell finish. Saves browser-debugger.png (stopped at the breakpoint).

Environment: as lab_driver.py, plus XCUDA_ARTIFACTS_DIR for the screenshot.
"""

import nbformat
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from lab_driver import (artifact_path, PAGE_LOAD_S, cell_outputs, chromium, jupyterlab, kernel_ready, prompts,
                        screenshot_on_failure, wait)

NOTEBOOK_NAME = "debug-me.ipynb"
CELL = """def add(a, b):
    total = a + b
    return total

print("sum", add(2, 3))"""
BREAKPOINT_LINE = 2
STEP_S = 30


def visible(driver, selector):
    return [e for e in driver.find_elements(By.CSS_SELECTOR, selector) if e.is_displayed()]


def text_of(driver, selector):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent).join('\\n')", selector)


def bug_button_state(driver):
    """The toolbar's debugger toggle (a jp-button in JupyterLab 4): None while absent, else
    whether it is enabled and whether it is pressed."""
    return driver.execute_script(
        "const b = document.querySelector('.jp-NotebookPanel-toolbar .jp-DebuggerBugButton');"
        "if (!b) return null;"
        "const pressed = b.getAttribute('aria-pressed') === 'true' || b.classList.contains('lm-mod-toggled')"
        "  || !!b.querySelector('[aria-pressed=\"true\"]');"
        "return {enabled: !b.hasAttribute('disabled') && b.getAttribute('aria-disabled') !== 'true',"
        "        pressed: pressed, html: b.outerHTML.slice(0, 400)}")


def enable_debugger(driver):
    wait(driver, STEP_S, lambda d: (bug_button_state(d) or {}).get("enabled"),
         "the notebook toolbar's debugger button to be enabled (the kernel says debugger: true)")
    driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel-toolbar .jp-DebuggerBugButton").click()
    wait(driver, STEP_S, lambda d: (bug_button_state(d) or {}).get("pressed"),
         f"the debugger button to show it is on: {bug_button_state(driver)}")


def set_breakpoint(driver, line):
    # The breakpoint gutter has one element per line, after a hidden spacer.
    gutter = wait(driver, STEP_S, lambda d: (lambda els: els if len(els) >= line else None)(
        visible(d, ".jp-Notebook .jp-CodeCell .cm-breakpoint-gutter .cm-gutterElement")),
        "the cell's breakpoint gutter")
    gutter[line - 1].click()
    wait(driver, STEP_S, lambda d: visible(d, ".jp-Notebook .cm-breakpoint-gutter .cm-breakpoint-icon"),
         "the breakpoint marker in the cell's gutter")


def run_cell(driver):
    # Ctrl+Enter in the cell's editor: runs it in place (Shift+Enter would add a cell).
    driver.find_element(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell .cm-content").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()


def test_debugger_stops_at_a_breakpoint_in_a_cell(tmp_path):
    (tmp_path / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CELL))
    nb.metadata["kernelspec"] = {"name": "xcuda", "display_name": "Python 3 (xcuda)", "language": "python"}
    nbformat.write(nb, tmp_path / "notebooks" / NOTEBOOK_NAME)
    screenshot = artifact_path(tmp_path, "browser-debugger.png")

    with jupyterlab(tmp_path) as (base, token), chromium(tmp_path) as driver:
        with screenshot_on_failure(driver, screenshot):
            driver.get(f"{base}/lab/tree/{NOTEBOOK_NAME}?token={token}")
            wait(driver, PAGE_LOAD_S, lambda d: len(prompts(d)) == 1, "the notebook's code cell")
            wait(driver, PAGE_LOAD_S, kernel_ready, "the xcuda kernel to start and go idle")
            enable_debugger(driver)
            set_breakpoint(driver, BREAKPOINT_LINE)
            run_cell(driver)
            wait(driver, STEP_S, lambda d: "add" in text_of(d, ".jp-DebuggerCallstackFrame"),
                 "the call stack to show the function stopped at the breakpoint")
            wait(driver, STEP_S, lambda d: visible(d, ".jp-Notebook .jp-DebuggerEditor-highlight"),
                 "the stopped line highlighted in the cell")
            variables = wait(driver, STEP_S, lambda d: (lambda t: t if "a" in t and "3" in t else None)(
                text_of(d, ".jp-DebuggerVariables")), "the variables panel to show the frame's a and b")
            assert "b" in variables and "2" in variables
            assert "[*]" in prompts(driver)[0], "the cell should still be running while stopped"
            driver.save_screenshot(str(screenshot))

            button = wait(driver, STEP_S, lambda d: next(
                (b for b in visible(d, "button, jp-button")
                 if (b.get_attribute("title") or "").startswith("Continue")), None), "the Continue button")
            button.click()
            wait(driver, STEP_S, lambda d: "sum 5" in "".join(cell_outputs(d)), "the cell's output after Continue")
            wait(driver, STEP_S, kernel_ready, "the kernel to go idle")
    print(f"screenshot: {screenshot}")


CUDA_NOTEBOOK_NAME = "debug-a-kernel.ipynb"
CUDA_CELL = """%%cuda
__device__ float scale(float a, float v) {
    float r = a * v;
    return r;
}
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = scale(a, x[i]);
        y[i] = t + y[i];
    }
}"""
CUDA_BREAKPOINT_LINE = 9  # float t = scale(a, x[i]);
LAUNCH_CELL = """import numpy as np
x = np.arange(64, dtype=np.float32) + 10
y = np.ones(64, np.float32)
saxpy[2, 32](np.float32(2), x, y, np.int32(64))
print("y[0] =", y[0])"""


def variables_shown(driver):
    """The variables panel's rows as {name: value} (JupyterLab 4's tree view)."""
    return driver.execute_script(
        "const out = {};"
        "for (const n of document.querySelectorAll('.jp-DebuggerVariables .jp-DebuggerVariables-name')) {"
        "  const row = n.parentElement;"
        "  const detail = row && row.querySelector('.jp-DebuggerVariables-detail');"
        "  out[n.textContent.replace(/:$/, '').trim()] = detail ? detail.textContent.trim() : '';"
        "}"
        "return out;")


def run_cell_at(driver, index):
    cells = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell")
    cells[index].find_element(By.CSS_SELECTOR, ".cm-content").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys(Keys.ENTER).key_up(Keys.CONTROL).perform()


def toolbar_button(driver, title):
    return wait(driver, STEP_S, lambda d: next(
        (b for b in visible(d, "button, jp-button") if (b.get_attribute("title") or "").startswith(title)), None),
        f"the debugger's {title} button")


def test_a_gutter_breakpoint_in_a_cuda_cell_stops_a_kernel_thread_with_its_variables(tmp_path):
    # JupyterLab 4 gives every code cell the breakpoint gutter, %%cuda ones too (it highlights them
    # as Python), and sends their breakpoints to the kernel like any cell's: dumpCell, then
    # setBreakpoints on its path. The kernel stops the launch on the CPU device there.
    (tmp_path / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(CUDA_CELL))
    nb.cells.append(nbformat.v4.new_code_cell(LAUNCH_CELL))
    nb.metadata["kernelspec"] = {"name": "xcuda", "display_name": "Python 3 (xcuda)", "language": "python"}
    nbformat.write(nb, tmp_path / "notebooks" / CUDA_NOTEBOOK_NAME)
    screenshot = artifact_path(tmp_path, "browser-debugger-cuda.png")

    with jupyterlab(tmp_path) as (base, token), chromium(tmp_path) as driver:
        with screenshot_on_failure(driver, screenshot):
            driver.get(f"{base}/lab/tree/{CUDA_NOTEBOOK_NAME}?token={token}")
            wait(driver, PAGE_LOAD_S, lambda d: len(prompts(d)) == 2, "the notebook's two code cells")
            wait(driver, PAGE_LOAD_S, kernel_ready, "the xcuda kernel to start and go idle")
            enable_debugger(driver)
            run_cell_at(driver, 0)
            wait(driver, STEP_S, lambda d: "saxpy" in "".join(cell_outputs(d)), "the %%cuda cell to compile")
            wait(driver, STEP_S, kernel_ready, "the kernel to go idle after compiling")
            cuda_cell = driver.find_elements(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell")[0]
            gutter = wait(driver, STEP_S, lambda d: (lambda els: els if len(els) >= CUDA_BREAKPOINT_LINE else None)(
                [e for e in cuda_cell.find_elements(By.CSS_SELECTOR, ".cm-breakpoint-gutter .cm-gutterElement")
                 if e.is_displayed()]), "the %%cuda cell's breakpoint gutter")
            gutter[CUDA_BREAKPOINT_LINE - 1].click()
            wait(driver, STEP_S, lambda d: cuda_cell.find_elements(By.CSS_SELECTOR, ".cm-breakpoint-icon"),
                 "the breakpoint marker in the %%cuda cell's gutter")
            run_cell_at(driver, 1)
            wait(driver, STEP_S, lambda d: "saxpy" in text_of(d, ".jp-DebuggerCallstackFrame"),
                 "the call stack to show the kernel's frame")
            assert "<module>" in text_of(driver, ".jp-DebuggerCallstackFrame")  # the launching cell below it
            wait(driver, STEP_S, lambda d: cuda_cell.find_elements(By.CSS_SELECTOR, ".jp-DebuggerEditor-highlight"),
                 "the stopped line highlighted in the %%cuda cell")
            shown = wait(driver, STEP_S, lambda d: (lambda v: v if "i" in v and "t" in v else None)(
                variables_shown(d)), "the variables panel to show the thread's i and t")
            # thread 0 of block 0 arrived first (the panel shows the kernel's 2.0 as 2, as JavaScript would)
            assert float(shown["i"]) == 0 and float(shown["a"]) == 2.0 and float(shown["t"]) == 0, shown
            driver.save_screenshot(str(screenshot))

            toolbar_button(driver, "Next").click()
            shown = wait(driver, STEP_S, lambda d: (lambda v: v if v.get("t") in ("20", "20.0") else None)(
                variables_shown(d)), "t to be 2 * x[0] = 20.0 after stepping over line 9")
            assert float(shown["i"]) == 0
            toolbar_button(driver, "Continue").click()
            wait(driver, STEP_S, lambda d: "y[0] = 21.0" in "".join(cell_outputs(d)),
                 "the launching cell's output after Continue")
            wait(driver, STEP_S, kernel_ready, "the kernel to go idle")
    print(f"screenshot: {screenshot}")

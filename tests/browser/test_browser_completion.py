"""Tab completion in a %%cuda cell, as a user gets it in JupyterLab: typing a kernel's first
lines and `__sync` into an empty cell, then Tab, opens the completer with the CUDA names the
kernel offers (__syncthreads, ...) and none of the Python ones (print, ...): the kernel answers
complete_request in a %%cuda cell with CUDA completions (_editor_language). Saves
browser-completion.png (the open completer).

Environment: as lab_driver.py, plus XCUDA_ARTIFACTS_DIR for the screenshot.
"""

import nbformat
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from lab_driver import (artifact_path, KERNEL_DISPLAY_NAME, PAGE_LOAD_S, chromium, jupyterlab, kernel_ready,
                        prompts, screenshot_on_failure, wait)

NOTEBOOK_NAME = "complete-me.ipynb"
# What is typed into the cell, line by line (Enter between them); the cursor ends after `__sync`.
LINES = ["%%cuda", "__global__ void k(float* p) {", "__sync"]
EXPECTED = "__syncthreads"
PYTHON_ONLY = ("print", "import", "len")   # what IPython would offer; none of them is CUDA
STEP_S = 30
COMPLETER_S = 10


def editor_text(driver):
    """The cell's source as the editor holds it (CodeMirror 6: one .cm-line per line)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .cm-content .cm-line'))"
        ".map(e => e.textContent).join('\\n')")


def completer_items(driver):
    """The names the visible completer lists (None while it is hidden or still empty): each
    item is an <li class="jp-Completer-item" data-value="NAME"> holding <code class="jp-Completer-match">."""
    return driver.execute_script(
        "const c = Array.from(document.querySelectorAll('.jp-Completer'))"
        "  .find(e => !e.classList.contains('lm-mod-hidden') && e.getClientRects().length > 0);"
        "if (!c) return null;"
        "const items = Array.from(c.querySelectorAll('.jp-Completer-item')).map(li =>"
        "  li.getAttribute('data-value') ||"
        "  (li.querySelector('.jp-Completer-match') || li).textContent.trim());"
        "return items.length ? items : null")


def test_tab_in_a_cuda_cell_offers_cuda_completions(tmp_path):
    (tmp_path / "notebooks").mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(""))
    nb.metadata["kernelspec"] = {"name": "xcuda", "display_name": KERNEL_DISPLAY_NAME, "language": "python"}
    nbformat.write(nb, tmp_path / "notebooks" / NOTEBOOK_NAME)
    screenshot = artifact_path(tmp_path, "browser-completion.png")

    with jupyterlab(tmp_path) as (base, token), chromium(tmp_path) as driver:
        with screenshot_on_failure(driver, screenshot):
            driver.get(f"{base}/lab/tree/{NOTEBOOK_NAME}?token={token}")
            wait(driver, PAGE_LOAD_S, lambda d: len(prompts(d)) == 1, "the notebook's code cell")
            wait(driver, PAGE_LOAD_S, kernel_ready, f"the {KERNEL_DISPLAY_NAME} kernel to start and go idle")

            editor = driver.find_element(By.CSS_SELECTOR, ".jp-Notebook .jp-CodeCell .cm-content")
            editor.click()
            wait(driver, STEP_S, lambda d: d.execute_script(
                "return !!document.activeElement && !!document.activeElement.closest('.jp-CodeCell .cm-content')"),
                "the cell's editor to take the keyboard focus")
            for index, line in enumerate(LINES):
                editor.send_keys(line)
                if index < len(LINES) - 1:
                    editor.send_keys(Keys.ENTER)
            # Auto-indent may add spaces, and auto-closing brackets a `}`: neither matters; the
            # lines typed must be there, with the cursor after `__sync`.
            typed = wait(driver, STEP_S, lambda d: (lambda t: t if LINES[-1] in t else None)(editor_text(d)),
                         "the typed text in the cell's editor")
            shown = [line.strip() for line in typed.split("\n")]
            assert shown[:3] == LINES, f"the editor holds {typed!r}, not the lines typed {LINES}"
            assert all(line in ("", "}") for line in shown[3:]), f"the editor holds more than was typed: {typed!r}"

            editor.send_keys(Keys.TAB)
            seen = []   # what the completer listed last, for the failure message

            def lists_expected(d):
                seen[:] = completer_items(d) or []
                return list(seen) if EXPECTED in seen else None

            try:
                items, timed_out = wait(driver, COMPLETER_S, lists_expected, f"the completer to list {EXPECTED}"), None
            except pytest.fail.Exception as e:
                items, timed_out = None, e.msg
            if timed_out:   # failed here, not in the except block: the page text is printed once
                pytest.fail(f"{timed_out}\nthe completer listed: {seen or 'nothing (no popup)'}; "
                            f"the editor holds {editor_text(driver)!r}", pytrace=False)
            driver.save_screenshot(str(screenshot))
            print(f"the completer lists: {items}")

            assert all(name.startswith("__sync") for name in items), f"the completer lists other names: {items}"
            python = [name for name in PYTHON_ONLY if name in items]
            assert not python, f"the completer in a %%cuda cell lists Python names {python}: {items}"
    print(f"screenshot: {screenshot}")

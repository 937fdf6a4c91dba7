"""Drives JupyterLab in a real browser for the browser tests: JupyterLab (PyPI, in the venv
that setup.sh makes) on 127.0.0.1 with a random free port and a token, headless Chromium
(Debian's chromium and chromedriver) through Selenium, and what the tests read off the page.

Environment:
  XCUDA_BROWSER_VENV     the venv holding jupyter-lab (setup.sh VENV)
  JUPYTER_PATH           leads to an xcuda kernelspec (ctest: the build tree's)
"""
import contextlib
import json
import os
import pathlib
import secrets
import signal
import socket
import subprocess
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
KERNEL_DISPLAY_NAME = "Python 3 (xcuda)"
SERVER_START_S = 60
PAGE_LOAD_S = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_json(path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def lab_settings(settings_dir):
    """User settings that keep the page deterministic: every cell in the DOM (no windowing,
    so all outputs can be read), no news or update pop-ups over the notebook."""
    write_json(settings_dir / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
               {"windowingMode": "none"})
    write_json(settings_dir / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
               {"fetchNews": "false", "checkForUpdates": False})


@contextlib.contextmanager
def jupyterlab(workdir):
    if "XCUDA_BROWSER_VENV" not in os.environ:
        pytest.fail("set XCUDA_BROWSER_VENV to the venv that tests/browser/setup.sh VENV made (ctest does)")
    venv = pathlib.Path(os.environ["XCUDA_BROWSER_VENV"])
    port, token = free_port(), secrets.token_hex(24)
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(workdir / "config"),
               JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(workdir / "lab-settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(workdir / "lab-workspaces"))
    lab_settings(workdir / "lab-settings")
    log = open(workdir / "jupyterlab.log", "wb")
    server = subprocess.Popen(
        [str(venv / "bin" / "jupyter-lab"), "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={workdir / 'notebooks'}"] + (["--allow-root"] if os.geteuid() == 0 else []),
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_server(server, base, token, workdir / "jupyterlab.log")
        yield base, token
    finally:
        stop_server(server, base, token)
        log.close()


def wait_for_server(server, base, token, log_path):
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"jupyter-lab exited with {server.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"jupyter-lab did not answer on {base} within {SERVER_START_S} s:\n{log_path.read_text()}")


def stop_server(server, base, token):
    """Asks the server to shut down (it stops its kernels), then makes sure it is gone."""
    if server.poll() is None:
        try:
            req = urllib.request.Request(f"{base}/api/shutdown", method="POST",
                                         headers={"Authorization": f"token {token}"})
            urllib.request.urlopen(req, timeout=5).close()
        except OSError:
            pass
    for sig, wait_s in ((None, 10), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if sig is not None and server.poll() is None:
            os.killpg(server.pid, sig)
        try:
            server.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def chromium(workdir):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,2000", f"--user-data-dir={workdir / 'chromium-profile'}",
                "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    # The system chromedriver, named explicitly: nothing is downloaded (no selenium-manager).
    service = Service(executable_path=CHROMEDRIVER, log_path=str(workdir / "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(PAGE_LOAD_S)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def wait(driver, seconds, condition, what):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.25).until(condition)
    except TimeoutException:
        pytest.fail(f"timed out after {seconds} s waiting for {what}; page text:\n{page_text(driver)[-3000:]}")


def page_text(driver):
    return driver.execute_script("return document.body ? document.body.textContent : ''")


def cell_outputs(driver):
    """The text of each code cell's output area, in order (the cells' sources left out: they
    may contain the very strings the outputs are checked for)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).map(c => {"
        "  const o = c.querySelector('.jp-OutputArea'); return o ? o.textContent : ''; })")


def prompts(driver):
    """The input prompts of the notebook's code cells: '[ ]:', '[*]:' or '[3]:'."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt'))"
        ".map(e => e.textContent.trim())")


def kernel_status(driver):
    """The notebook's kernel as JupyterLab's status bar shows it, e.g. 'Python 3 (xcuda) | Idle'."""
    return driver.execute_script(
        "const e = Array.from(document.querySelectorAll('.jp-StatusBar-Widget *'))"
        "  .find(e => e.children.length === 0 && / \\| /.test(e.textContent));"
        "return e ? e.textContent.trim() : ''")


def dialog_text(driver):
    return driver.execute_script(
        "const e = document.querySelector('.jp-Dialog'); return e ? e.textContent.trim() : null")


def kernel_ready(driver):
    """True once the status bar reads '<xcuda> | Idle'; fails at once on a dialog (kernel
    chooser, kernel died) rather than waiting out the timeout."""
    dialog = dialog_text(driver)
    if dialog:
        pytest.fail(f"JupyterLab shows a dialog instead of the running kernel: {dialog!r} "
                    f"(kernel status: {kernel_status(driver)!r})")
    name, _, state = kernel_status(driver).partition("|")
    toolbar = driver.execute_script(
        "const e = document.querySelector('.jp-NotebookPanel-toolbar .jp-KernelName');"
        "return e ? e.textContent.trim() : ''")
    return name.strip() == KERNEL_DISPLAY_NAME and toolbar == KERNEL_DISPLAY_NAME and state.strip() == "Idle"


def run_finished(driver, clicked):
    """True once every code cell has an execution count and the kernel is idle. Run All stops
    at a cell that raised, leaving the rest unrun: that fails at once, not at the timeout."""
    shown = prompts(driver)
    if any(p in ("[ ]:", "[*]:", "") for p in shown):
        if "[*]:" not in shown and kernel_ready(driver) and time.monotonic() - clicked > 3:
            pytest.fail(f"Run All stopped before the end (a cell raised?): prompts {shown}; page text:\n"
                        f"{page_text(driver)[-3000:]}")
        return False
    return kernel_ready(driver)


def run_all_from_menu(driver):
    menu = wait(driver, 20, lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel")
                                            if e.text == "Run"), None), "the Run menu")
    menu.click()
    item = wait(driver, 10, lambda d: next(
        (e for e in d.find_elements(By.CSS_SELECTOR, '.lm-Menu-item[data-command="runmenu:run-all"]')
         if e.is_displayed()), None), "Run > Run All Cells")
    item.click()


@contextlib.contextmanager
def screenshot_on_failure(driver, path):
    """Saves the page to `path` when the block raises (what the browser showed at the failure)."""
    try:
        yield
    except BaseException:
        try:
            driver.save_screenshot(str(path))
            print(f"screenshot of the failure: {path}")
        except WebDriverException as e:
            print(f"no screenshot of the failure: {e.msg}")
        raise


def artifact_path(tmp_path, name):
    """Where a test's screenshot goes: $XCUDA_ARTIFACTS_DIR (ctest: build/artifacts), else tmp_path."""
    artifacts = pathlib.Path(os.environ.get("XCUDA_ARTIFACTS_DIR", tmp_path))
    artifacts.mkdir(parents=True, exist_ok=True)
    return artifacts / name

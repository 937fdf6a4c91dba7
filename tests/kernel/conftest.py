"""Fixtures and helpers for the xcuda kernel's protocol tests (jupyter_client, no GPU)."""

import functools
import os
import shutil
import signal
import subprocess
import tempfile
import time
from queue import Empty

import pytest
from jupyter_client.manager import KernelManager

KERNEL_NAME = "xcuda"
# Every test is bounded: a hung kernel fails the test instead of blocking CI.
TEST_TIMEOUT_S = 60


def pytest_configure(config):
    # The kernels these tests start keep IPython's profile and history database in a directory
    # of this run's own, never in the user's ~/.ipython (a test may name another in its env).
    os.environ["IPYTHONDIR"] = tempfile.mkdtemp(prefix="xcuda-test-ipython-")
    # SIGUSR2 makes a test kernel print its threads' Python stacks (hang_report).
    os.environ["XCUDA_DUMP_STACKS_ON_SIGUSR2"] = "1"


def pytest_unconfigure(config):
    shutil.rmtree(os.environ.pop("IPYTHONDIR"), ignore_errors=True)


@pytest.fixture(autouse=True)
def per_test_timeout(request):
    def on_alarm(signum, frame):
        raise TimeoutError(f"{request.node.name} took more than {TEST_TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TEST_TIMEOUT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@functools.lru_cache(maxsize=None)
def kernel_python():
    """The Python the kernelspec under test starts (its argv[0]): the kernel's own, which
    need not be the one running these tests (a pip-installed kernel in a virtualenv)."""
    from jupyter_client.kernelspec import KernelSpecManager

    return KernelSpecManager().get_kernel_spec(KERNEL_NAME).argv[0]


def xcuda_command():
    """How the kernelspec under test runs the xcuda package: [python, -m, xcuda] when it is
    installed in that Python, [python, launcher] for a CMake build or install."""
    from jupyter_client.kernelspec import KernelSpecManager

    argv = KernelSpecManager().get_kernel_spec(KERNEL_NAME).argv
    return argv[:argv.index("-f")]


def package_env():
    """The environment in which `python -m xcuda` imports the package under test: as it is
    for a pip install, with the package's parent on PYTHONPATH for a CMake build."""
    command = xcuda_command()
    if command[1:] == ["-m", "xcuda"]:
        return dict(os.environ)
    return dict(os.environ, PYTHONPATH=os.path.dirname(command[1]))


def in_kernel_python(code):
    """What `code` prints when the kernel's Python runs it as a script."""
    return subprocess.run([kernel_python(), "-c", code], check=True, capture_output=True,
                          text=True, timeout=60).stdout


def start_kernel(env=None):
    km = KernelManager(kernel_name=KERNEL_NAME)
    km.start_kernel(**({"env": env} if env is not None else {}))
    return km, connect(km)


def connect(km):
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=30)
    # wait_for_ready may have sent more than one kernel_info_request while the kernel
    # started; their replies must not be taken for the first test's.
    while True:
        try:
            kc.get_shell_msg(timeout=0.3)
        except Empty:
            break
    return kc


def stop_kernel(km, kc):
    kc.stop_channels()
    if km.is_alive():
        km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel()
    yield km, kc
    stop_kernel(km, kc)


@pytest.fixture
def fresh_kernel():
    km, kc = start_kernel()
    yield km, kc
    stop_kernel(km, kc)


def kernel_pid(km):
    provisioner = getattr(km, "provisioner", None)
    process = getattr(provisioner, "process", None) or getattr(km, "kernel", None)
    return getattr(process, "pid", None)


def hang_report(km):
    """What a kernel that stopped answering is doing, for the failure message: its threads'
    Python stacks go to its stderr (pytest shows it under "Captured stderr"), and the C++
    stacks of every thread come from gdb, where gdb is installed."""
    pid = kernel_pid(km)
    if pid is None:
        return "(no kernel process to examine)"
    try:
        os.kill(pid, signal.SIGUSR2)
        time.sleep(0.5)
    except OSError as e:
        return f"(the kernel process {pid} is gone: {e})"
    if shutil.which("gdb") is None:
        return "(Python stacks: see the captured stderr; no gdb here for the C++ stacks)"
    try:
        out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 25"],
                             capture_output=True, text=True, timeout=120).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"(Python stacks: see the captured stderr; gdb failed: {e})"
    threads = out[out.find("\nThread "):] if "\nThread " in out else out
    return f"Python stacks: see the captured stderr. C++ stacks (gdb):\n{threads[-12000:]}"


def flush_iopub(kc):
    while True:
        try:
            kc.get_iopub_msg(timeout=0.2)
        except Empty:
            return


def collect(kc, msg_id, timeout=20, others=None):
    """The iopub messages of one request, from busy to idle. Messages of other requests
    met on the way are appended to others when given (else dropped)."""
    messages = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no idle for {msg_id} within {timeout} s; got {messages}")
        msg = kc.get_iopub_msg(timeout=remaining)
        if msg["parent_header"].get("msg_id") != msg_id:
            if others is not None:
                others.append(msg)
            continue
        messages.append(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages


def shell_reply(kc, msg_id, timeout=20):
    reply = kc.get_shell_msg(timeout=timeout)
    assert reply["parent_header"]["msg_id"] == msg_id, "reply to another request"
    return reply


def execute(kc, code, timeout=20, **kwargs):
    """Runs code; returns (reply, iopub messages between busy and idle inclusive)."""
    msg_id = kc.execute(code, **kwargs)
    reply = shell_reply(kc, msg_id, timeout)
    return reply, collect(kc, msg_id, timeout)


def stream_text(messages, name="stdout"):
    return "".join(m["content"]["text"] for m in messages
                   if m["msg_type"] == "stream" and m["content"]["name"] == name)


def output_types(messages):
    return [m["msg_type"] for m in messages]


# Shared by the fault suites (test_faults_*.py): kernels whose state is the test's own, and the
# check every fault case ends with.
KERNEL_INFO_BUDGET_S = 1.0


def kernel_env(state_dir):
    # Compiled modules and IPython's history go to a directory of the test's own, never the
    # user's ~/.cache and ~/.ipython.
    return dict(os.environ, XDG_CACHE_HOME=str(state_dir / "cache"), IPYTHONDIR=str(state_dir / "ipython"))


@pytest.fixture(scope="module")
def isolated_kernel(tmp_path_factory):
    km, kc = start_kernel(env=kernel_env(tmp_path_factory.mktemp("kernel")))
    yield km, kc
    stop_kernel(km, kc)


@pytest.fixture
def fresh_isolated_kernel(tmp_path):
    km, kc = start_kernel(env=kernel_env(tmp_path))
    yield km, kc
    stop_kernel(km, kc)


def assert_answers_kernel_info(kc, budget=KERNEL_INFO_BUDGET_S):
    start = time.monotonic()
    msg_id = kc.kernel_info()
    reply = shell_reply(kc, msg_id, timeout=budget + 5)
    elapsed = time.monotonic() - start
    assert reply["msg_type"] == "kernel_info_reply"
    assert elapsed < budget, f"kernel_info took {elapsed:.2f} s after the fault"
    collect(kc, msg_id)


def errors(messages):
    return [m["content"] for m in messages if m["msg_type"] == "error"]


def wait_for_death(km, budget):
    deadline = time.monotonic() + budget
    while km.is_alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def run_ok(kc, code, timeout=60):
    reply, messages = execute(kc, code, timeout=timeout)
    assert reply["content"]["status"] == "ok", errors(messages)
    return messages


def wait_for_stdout(kc, msg_id, marker, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and marker in msg["content"]["text"]):
            return

"""Start-up with a foreign python3 on PATH, the Python that hosts the kernel, nothing written to
the terminal, shutdown and restart within 2.5 s, and no kernel left running when its frontend dies."""

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager

from conftest import (KERNEL_NAME, connect, execute, in_kernel_python, kernel_pid, start_kernel, stop_kernel,
                      stream_text)

SHUTDOWN_BUDGET_S = 2.5


def wait_for_exit(km, budget):
    start = time.monotonic()
    while km.is_alive():
        if time.monotonic() - start > budget + 2:
            break
        time.sleep(0.02)
    return time.monotonic() - start


def shutdown_time(km, kc, restart=False):
    start = time.monotonic()
    msg_id = kc.shutdown(restart=restart)
    reply = kc.get_control_msg(timeout=SHUTDOWN_BUDGET_S)
    assert reply["msg_type"] == "shutdown_reply"
    assert reply["content"]["restart"] is restart
    elapsed = wait_for_exit(km, SHUTDOWN_BUDGET_S)
    return time.monotonic() - start


def test_shutdown_of_an_idle_kernel_is_quick(fresh_kernel):
    km, kc = fresh_kernel
    assert shutdown_time(km, kc) < SHUTDOWN_BUDGET_S


def test_shutdown_while_a_cell_runs_python(fresh_kernel):
    km, kc = fresh_kernel
    kc.execute("import time\nwhile True: time.sleep(0.01)")
    time.sleep(0.5)
    assert shutdown_time(km, kc) < SHUTDOWN_BUDGET_S


def test_shutdown_while_the_main_thread_is_stuck_in_a_c_call(fresh_kernel):
    km, kc = fresh_kernel
    # libc sleep with the GIL held: nothing in Python can run, like a blocking GPU wait.
    kc.execute("import ctypes; ctypes.PyDLL(None).sleep(30)")
    time.sleep(0.5)
    assert shutdown_time(km, kc) < SHUTDOWN_BUDGET_S


def test_restart_request_ends_the_process_within_budget_and_a_new_kernel_answers(fresh_kernel):
    km, kc = fresh_kernel
    kc.execute("import time; time.sleep(30)")
    time.sleep(0.5)
    assert shutdown_time(km, kc, restart=True) < SHUTDOWN_BUDGET_S
    kc.stop_channels()
    km.start_kernel()
    kc2 = connect(km)
    try:
        reply, _ = execute(kc2, "1 + 1")
        assert reply["content"]["status"] == "ok"
    finally:
        kc2.stop_channels()


def test_a_virtualenv_python3_first_on_path_does_not_change_the_kernels_python():
    # A virtualenv of another Python (3.12-style pyvenv.cfg, empty site-packages) first on
    # PATH: the kernel runs in the Python its kernelspec names, not in whatever python3 the
    # PATH offers (which would lose the site-packages where IPython lives).
    with tempfile.TemporaryDirectory() as venv:
        os.makedirs(os.path.join(venv, "bin"))
        os.makedirs(os.path.join(venv, "lib", "python3.12", "site-packages"))
        os.symlink(sys.executable, os.path.join(venv, "bin", "python3"))
        os.symlink(sys.executable, os.path.join(venv, "bin", "python"))
        with open(os.path.join(venv, "pyvenv.cfg"), "w") as cfg:
            cfg.write(f"home = {os.path.dirname(sys.executable)}\n"
                      "include-system-site-packages = false\nversion = 3.12.3\n")
        env = dict(os.environ)
        env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env.get("PATH", "")
        env["VIRTUAL_ENV"] = venv
        km, kc = start_kernel(env=env)
        try:
            code = "import IPython, sys, shutil; print(sys.executable, sys.prefix, shutil.which('python3'))"
            reply, messages = execute(kc, code)
            assert reply["content"]["status"] == "ok"
            text = "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream")
            executable, prefix, on_path = text.split()
            assert on_path.startswith(venv), "the test's venv is not first on PATH"
            assert not prefix.startswith(venv)
            assert not executable.startswith(venv)
        finally:
            stop_kernel(km, kc)


def test_the_kernel_runs_in_the_python_its_kernelspec_names_with_that_pythons_packages():
    # The kernel is an extension module of the Python that starts it: sys.executable,
    # sys.prefix and the xcuda package are that Python's (a user's venv: its torch and CuPy).
    script = "import os, sys; print(os.path.realpath(sys.executable)); print(sys.prefix)"
    expected = in_kernel_python(script)
    km, kc = start_kernel()
    try:
        reply, messages = execute(kc, script)
        assert reply["content"]["status"] == "ok"
        assert stream_text(messages) == expected
        reply, messages = execute(kc, "import sys, xcuda, xcuda._kernel as k; "
                                      "print(sys.modules['xcuda._kernel'] is k, k.__file__.startswith(os.path.dirname(xcuda.__file__)))")
        assert stream_text(messages) == "True True\n"
    finally:
        stop_kernel(km, kc)


def test_kernel_info_says_python_as_ipykernel_does_before_any_cell():
    # Answered before the shell exists (IPython is still importing in the background): the
    # facts must not depend on it, and the frontend's highlighting needs the ipython mode.
    km, kc = start_kernel()
    try:
        content = kc.kernel_info(reply=True, timeout=10)["content"]
        info = content["language_info"]
        assert info["name"] == "python" and info["file_extension"] == ".py"
        assert info["version"] == in_kernel_python("import sys; print(*sys.version_info[:3], sep='.')").strip()
        assert info["codemirror_mode"] == {"name": "ipython", "version": 3}
        assert info["pygments_lexer"] == "ipython3"
        assert content["implementation"] == "xcuda"
        # The first requests after it all see the shell: completion first, then a cell.
        reply = kc.complete("impo", 4, reply=True, timeout=30)
        assert "import" in reply["content"]["matches"]
        reply, _ = execute(kc, "get_ipython().__class__.__name__")
        assert reply["content"]["status"] == "ok"
        # Comms (ipywidgets) go through the kernel's own Comm, under the comm package's
        # create_comm and ipykernel.comm's old name, which the background imports must not
        # have pre-empted with the real ipykernel's.
        reply, messages = execute(kc, "import comm; print(type(comm.create_comm()).__module__)")
        assert stream_text(messages) == "xcuda._kernel\n"
        # ipykernel.comm, where ipykernel is installed (old ipywidgets import it from there)
        reply, messages = execute(kc, "import importlib.util as u\n"
                                      "if u.find_spec('ipykernel'):\n"
                                      "    import ipykernel.comm as c; print(getattr(c, '__file__', None), c.Comm.__module__)\n"
                                      "else:\n    print(None, 'xcuda._kernel')")
        assert reply["content"]["status"] == "ok"
        assert stream_text(messages) == "None xcuda._kernel\n"
    finally:
        stop_kernel(km, kc)


def test_a_fresh_kernels_first_cell_finds_the_heavy_optional_modules_not_imported(fresh_kernel):
    # What a start must not pay for before a cell asks for it (start to kernel_info, idle RSS):
    # numpy, matplotlib, debugpy (the debugger's, ~0.3 s), the real ipykernel.
    km, kc = fresh_kernel
    reply, messages = execute(kc, "import sys\n"
                                  "print(sorted(m for m in ('numpy', 'matplotlib', 'matplotlib_inline', 'debugpy', "
                                  "'ipykernel') if m in sys.modules))")
    assert reply["content"]["status"] == "ok"
    assert stream_text(messages) == "[]\n"
    reply, messages = execute(kc, "import numpy; print(numpy.zeros(2).sum())")
    assert reply["content"]["status"] == "ok"
    assert stream_text(messages) == "0.0\n"


def test_a_python_shell_that_cannot_start_is_an_error_in_each_cell_and_the_kernel_lives():
    # An IPython that fails to import (a broken install shadowing the real one): the kernel
    # still answers, and every cell says what failed and what to do, instead of the kernel
    # dying at start-up and the frontend restarting it in a loop.
    with tempfile.TemporaryDirectory() as shadow:
        os.makedirs(os.path.join(shadow, "IPython"))
        with open(os.path.join(shadow, "IPython", "__init__.py"), "w") as f:
            f.write("raise ImportError('this IPython is broken on purpose')\n")
        env = dict(os.environ, PYTHONPATH=shadow)
        km, kc = start_kernel(env=env)
        try:
            for _ in range(2):
                reply, messages = execute(kc, "1 + 1")
                assert reply["content"]["status"] == "error"
                errors = [m["content"] for m in messages if m["msg_type"] == "error"]
                assert len(errors) == 1
                assert "the Python shell could not be started" in errors[0]["evalue"]
                assert "this IPython is broken on purpose" in errors[0]["evalue"]
                assert "restart the kernel" in errors[0]["evalue"]
            assert kc.kernel_info(reply=True, timeout=5)["content"]["status"] == "ok"
            assert km.is_alive()
        finally:
            stop_kernel(km, kc)


FRONTEND = """
import sys, time
from jupyter_client.manager import KernelManager
km = KernelManager(kernel_name="xcuda")
km.start_kernel()
print(km.provisioner.pid if getattr(km, "provisioner", None) else km.kernel.pid, flush=True)
kc = km.client(); kc.start_channels(); kc.wait_for_ready(timeout=30)
print("ready", flush=True)
time.sleep(600)
"""


def process_gone(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.split()[:2] == ["State:", "Z"] for line in f)  # exited, not yet reaped
    except FileNotFoundError:
        return True


def test_the_kernel_exits_when_its_frontend_is_killed():
    # jupyter_client names itself in JPY_PARENT_PID; a frontend killed with SIGKILL cannot shut
    # its kernel down, which must then end by itself (ipykernel polls its parent the same way).
    frontend = subprocess.Popen([sys.executable, "-c", FRONTEND], stdout=subprocess.PIPE, text=True)
    try:
        kernel_pid = int(frontend.stdout.readline())
        assert frontend.stdout.readline().strip() == "ready"
        assert not process_gone(kernel_pid)
    finally:
        frontend.kill()
        frontend.wait()
    deadline = time.monotonic() + 10
    while not process_gone(kernel_pid):
        assert time.monotonic() < deadline, f"kernel {kernel_pid} still runs 10 s after its frontend died"
        time.sleep(0.1)


@contextlib.contextmanager
def kernel_with_terminal(terminal):
    """A kernel whose stdout and stderr (a frontend's terminal) go to the file `terminal`."""
    with open(terminal, "w") as out:
        km = KernelManager(kernel_name=KERNEL_NAME)
        km.start_kernel(stdout=out, stderr=out)
        kc = connect(km)
        try:
            yield km, kc
        finally:
            stop_kernel(km, kc)


def test_a_start_writes_no_xeus_banner_to_the_terminal(tmp_path):
    # xeus 2.4.1 writes "Run with XEUS 2.4.1" to std::clog as it starts serving: the frontend's
    # terminal (jupyter console, the notebook server's log) showed it for every kernel.
    terminal = tmp_path / "terminal"
    with kernel_with_terminal(terminal) as (_, kc):
        reply, _ = execute(kc, "print('to the cell, not the terminal')")
        assert reply["content"]["status"] == "ok"
    written = terminal.read_text()
    assert "XEUS" not in written and "to the cell" not in written, written


def test_sigusr2_prints_a_test_kernels_python_stacks_to_its_terminal_and_it_goes_on(tmp_path):
    # hang_report's first half (conftest): what a hung kernel was doing, from its own threads.
    terminal = tmp_path / "terminal"
    with kernel_with_terminal(terminal) as (km, kc):
        execute(kc, "def waiting_here():\n    import time\n    time.sleep(0.1)\nwaiting_here()")
        os.kill(kernel_pid(km), signal.SIGUSR2)
        deadline = time.monotonic() + 10
        while "Thread 0x" not in terminal.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        reply, messages = execute(kc, "print('still here')")
        assert reply["content"]["status"] == "ok" and stream_text(messages) == "still here\n"
    written = terminal.read_text()
    assert "Thread 0x" in written and "most recent call first" in written, written

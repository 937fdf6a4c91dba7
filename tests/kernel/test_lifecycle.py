"""Start-up with a foreign python3 on PATH, shutdown and restart within 2.5 s."""

import os
import sys
import tempfile
import time

from conftest import connect, execute, start_kernel, stop_kernel

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


def test_a_virtualenv_python3_first_on_path_does_not_change_the_embedded_python():
    # A virtualenv of another Python (3.12-style pyvenv.cfg, empty site-packages) first on
    # PATH: an embedded interpreter that looked python3 up on PATH would take its prefix and
    # lose the dist-packages where IPython lives.
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

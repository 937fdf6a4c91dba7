"""`python -m xcuda`: runs the xcuda kernel as Jupyter starts it (the kernelspec's argv), or
installs that kernelspec for the Python running this."""

import json
import os
import sys

USAGE = """\
usage: python -m xcuda install [--user | --sys-prefix | --prefix PREFIX] [--name NAME] [--display-name TEXT]
       python -m xcuda -f CONNECTION_FILE    (what Jupyter runs; see the kernelspec)
       python -m xcuda --version"""


def _connection_file(argv):
    """The value of -f (`-f FILE` or `-f=FILE`, as ipykernel takes it), or None."""
    for i, arg in enumerate(argv):
        if arg in ("-f", "--f") and i + 1 < len(argv):
            return argv[i + 1]
        for prefix in ("-f=", "--f="):
            if arg.startswith(prefix):
                return arg[len(prefix):]
    return None


# The longest socket path the platform's AF_UNIX addresses hold (sun_path less its NUL).
_IPC_PATH_LIMIT = 103 if sys.platform == "darwin" else 107
_PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def _connection_problem(connection_file):
    """Why the kernel cannot serve this connection file, or None. (ZeroMQ's own answer to an
    ipc socket path that is too long is a bare "File name too long".)"""
    try:
        with open(connection_file, encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError) as e:
        return f"cannot read the connection file {connection_file!r}: {e}"
    if not isinstance(info, dict):
        return f"the connection file {connection_file!r} holds no JSON object"
    if info.get("transport") != "ipc":
        return None
    for port in _PORTS:
        path = f"{info.get('ip', '')}-{info.get(port, '')}"
        if len(path.encode()) > _IPC_PATH_LIMIT:
            return (f"the ipc transport needs socket paths of at most {_IPC_PATH_LIMIT} bytes on this platform, "
                    f"and {path!r} has {len(path.encode())}: set JUPYTER_RUNTIME_DIR to a shorter directory "
                    "(or use the tcp transport)")
    return None


def _stacks_on_sigusr2():
    """With XCUDA_DUMP_STACKS_ON_SIGUSR2=1 (the test suites set it), SIGUSR2 writes every
    thread's Python stack to the stderr the kernel was started with (fd 2 itself is captured
    into cells once the kernel runs): what a hung kernel was doing. Returns the stream to keep.

    faulthandler's handler needs no GIL, so it also shows a GIL deadlock. It runs in a thread
    of its own that only sleeps: every other thread blocks SIGUSR2, because a signal handled in
    a thread waiting in zmq_poll ends that wait with EINTR, which xeus's loops do not survive."""
    if os.environ.get("XCUDA_DUMP_STACKS_ON_SIGUSR2") != "1":
        return None
    import faulthandler
    import signal
    import threading
    import time

    log = os.fdopen(os.dup(2), "w")
    faulthandler.register(signal.SIGUSR2, file=log, all_threads=True)

    def sleep_with_only_sigusr2():
        signal.pthread_sigmask(signal.SIG_SETMASK, signal.valid_signals() - {signal.SIGUSR2})
        while True:
            time.sleep(3600)

    threading.Thread(target=sleep_with_only_sigusr2, name="xcuda-stacks-on-sigusr2", daemon=True).start()
    # this thread's mask is inherited by every thread the kernel starts from here on
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2})
    return log


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["install"]:
        from xcuda.kernelspec import main as install

        return install(argv[1:])
    if argv[:1] in (["--version"], ["-V"]):
        from xcuda import __version__

        print(f"xcuda {__version__} (Python {sys.version.split()[0]} at {sys.executable})")
        return 0
    if argv[:1] in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    connection_file = _connection_file(argv)
    if connection_file is None:
        print(f"{USAGE}\n\nxcuda is a Jupyter kernel: install its kernelspec (python -m xcuda install) "
              "and pick it in Jupyter.", file=sys.stderr)
        return 2
    if not os.path.isfile(connection_file):
        print(f"xcuda: the connection file {connection_file!r} does not exist; Jupyter writes it "
              "before it starts the kernel (run the kernel from Jupyter, or pass an existing file)",
              file=sys.stderr)
        return 2
    problem = _connection_problem(connection_file)
    if problem is not None:
        print(f"xcuda: {problem}", file=sys.stderr)
        return 2
    from xcuda import _kernel

    stacks_log = _stacks_on_sigusr2()  # noqa: F841 (kept open while the kernel runs)
    return _kernel.run(connection_file)


if __name__ == "__main__":
    sys.exit(main())

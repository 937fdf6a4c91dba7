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
# xeus 2.4.1 reads each bound endpoint back into 32 bytes (ZMQ_LAST_ENDPOINT): a longer ipc
# endpoint fails with a bare "Invalid argument", which Jupyter's own paths
# (~/.local/share/jupyter/runtime/kernel-<uuid>-ipc-N) always are.
_XEUS_ENDPOINT_LIMIT = 31
_PORTS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


class ConnectionError_(Exception):
    """A connection file the kernel cannot serve; the message says why and what to do."""


def _read_connection(connection_file):
    try:
        with open(connection_file, encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError) as e:
        raise ConnectionError_(f"cannot read the connection file {connection_file!r}: {e}") from None
    if not isinstance(info, dict):
        raise ConnectionError_(f"the connection file {connection_file!r} holds no JSON object")
    return info


def _ipc_socket_paths(info):
    return {port: f"{info.get('ip', '')}-{info.get(port, '')}" for port in _PORTS}


def _short_ipc_endpoints(connection_file, info):
    """For the ipc transport: binds the kernel's sockets at short paths in a private directory
    and links the paths the frontend connects to (from the connection file) to them, so that
    xeus reads every endpoint back. Returns (connection file to serve, cleanup)."""
    paths = _ipc_socket_paths(info)
    for path in paths.values():
        if len(path.encode()) > _IPC_PATH_LIMIT:
            raise ConnectionError_(
                f"the ipc transport needs socket paths of at most {_IPC_PATH_LIMIT} bytes on this platform, "
                f"and {path!r} has {len(path.encode())}: set JUPYTER_RUNTIME_DIR to a shorter directory "
                "(or use the tcp transport)")
    if all(len(f"ipc://{p}") <= _XEUS_ENDPOINT_LIMIT for p in paths.values()):
        return connection_file, lambda: None
    import shutil
    import tempfile

    short = tempfile.mkdtemp(prefix="xc", dir="/tmp" if os.path.isdir("/tmp") else None)
    links = []

    def cleanup():
        for link in links:
            if os.path.islink(link):
                os.unlink(link)
        shutil.rmtree(short, ignore_errors=True)

    try:
        served = dict(info, ip=os.path.join(short, "p"))
        for port, path in paths.items():
            target = f"{served['ip']}-{info.get(port, '')}"
            if len(f"ipc://{target}") > _XEUS_ENDPOINT_LIMIT:
                raise ConnectionError_(f"the temporary directory {short!r} is too long for xeus's ipc endpoints; "
                                       "use the tcp transport")
            if os.path.lexists(path):  # a stale socket of an earlier kernel
                os.unlink(path)
            os.symlink(target, path)
            links.append(path)
        served_file = os.path.join(short, "connection.json")
        with open(served_file, "w", encoding="utf-8") as f:
            json.dump(served, f)
    except OSError as e:
        cleanup()
        raise ConnectionError_(f"cannot prepare the ipc sockets next to {info.get('ip')!r}: {e}") from None
    except ConnectionError_:
        cleanup()
        raise
    return served_file, cleanup


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
    try:
        info = _read_connection(connection_file)
        served, cleanup = (_short_ipc_endpoints(connection_file, info) if info.get("transport") == "ipc"
                           else (connection_file, lambda: None))
    except ConnectionError_ as e:
        print(f"xcuda: {e}", file=sys.stderr)
        return 2
    from xcuda import _kernel

    try:
        return _kernel.run(served)
    finally:
        cleanup()


if __name__ == "__main__":
    sys.exit(main())

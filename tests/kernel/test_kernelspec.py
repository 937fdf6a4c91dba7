"""`python -m xcuda install` and `python -m xcuda` itself, run by the Python of the kernel
under test (Debian's for the build tree, a virtualenv's for a pip install)."""

import errno
import json
import os
import socket
import subprocess

import pytest

from conftest import connect, execute, kernel_python, package_env, stop_kernel, stream_text, xcuda_command
from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file
from jupyter_client.manager import KernelManager


def run_xcuda(*args, env=None):
    return subprocess.run([kernel_python(), "-m", "xcuda", *args], env=env or package_env(),
                          capture_output=True, text=True, timeout=60)


def spec_dir(prefix, name="xcuda"):
    return os.path.join(prefix, "share", "jupyter", "kernels", name)


def python_path(python):
    return subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True,
                          text=True, check=True).stdout.strip()


def test_install_prefix_writes_a_kernelspec_that_runs_this_python(tmp_path):
    result = run_xcuda("install", "--prefix", str(tmp_path))
    assert result.returncode == 0, result.stderr
    directory = spec_dir(tmp_path)
    assert directory in result.stdout
    with open(os.path.join(directory, "kernel.json")) as f:
        spec = json.load(f)
    assert spec["argv"] == [python_path(kernel_python()), "-m", "xcuda", "-f", "{connection_file}"]
    assert spec["interrupt_mode"] == "signal"
    assert spec["language"] == "python"
    assert spec["display_name"] == "Python 3 (xcuda)"
    # JupyterLab offers the debugger from this: true exactly where that Python has debugpy
    has_debugpy = subprocess.run([kernel_python(), "-c", "import debugpy"], capture_output=True).returncode == 0
    assert spec["metadata"] == {"debugger": has_debugpy}
    assert sorted(os.listdir(directory)) == ["kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"]
    # nothing else left beside it (no staging directories)
    assert os.listdir(os.path.dirname(directory)) == ["xcuda"]


def test_the_kernelspec_names_no_path_but_its_python(tmp_path):
    # A kernelspec copied to another machine (a JupyterHub image, an Enterprise Gateway
    # kernelspec directory) may refer to nothing of the machine that wrote it but that Python.
    assert run_xcuda("install", "--prefix", str(tmp_path)).returncode == 0
    directory = spec_dir(tmp_path)
    with open(os.path.join(directory, "kernel.json")) as f:
        spec = json.load(f)

    def strings(value):
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for v in value.values():
                yield from strings(v)
        elif isinstance(value, list):
            for v in value:
                yield from strings(v)

    assert [s for s in strings(spec) if os.path.isabs(s) or os.sep in s] == [spec["argv"][0]]
    assert not any(os.path.islink(os.path.join(directory, name)) for name in os.listdir(directory))


def test_name_and_display_name(tmp_path):
    result = run_xcuda("install", "--prefix", str(tmp_path), "--name", "xcuda-torch",
                       "--display-name", "CUDA (torch env)")
    assert result.returncode == 0, result.stderr
    with open(os.path.join(spec_dir(tmp_path, "xcuda-torch"), "kernel.json")) as f:
        assert json.load(f)["display_name"] == "CUDA (torch env)"


def test_an_invalid_name_is_refused_with_what_to_pass(tmp_path):
    result = run_xcuda("install", "--prefix", str(tmp_path), "--name", "my kernel!")
    assert result.returncode == 1
    assert "'my kernel!' is not valid" in result.stderr and "--name" in result.stderr
    assert not os.path.exists(os.path.join(tmp_path, "share", "jupyter", "kernels", "my kernel!"))


def test_sys_prefix_and_user_go_where_jupyter_looks(tmp_path):
    env = dict(package_env(), JUPYTER_DATA_DIR=str(tmp_path / "user-data"))
    result = run_xcuda("install", "--user", env=env)
    assert result.returncode == 0, result.stderr
    assert os.path.isfile(tmp_path / "user-data" / "kernels" / "xcuda" / "kernel.json")
    result = run_xcuda("install", "--sys-prefix", "--prefix", str(tmp_path), env=env)
    assert result.returncode == 2 and "not allowed with" in result.stderr


def test_an_unwritable_prefix_is_a_clear_error_and_nothing_is_written(tmp_path):
    # A regular file where a directory must be: refused even for root (CI runs as root).
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    result = run_xcuda("install", "--prefix", str(blocker / "env"))
    assert result.returncode == 1
    assert "cannot write the kernelspec to" in result.stderr
    assert "--user" in result.stderr  # what to do instead
    assert "Traceback" not in result.stderr
    assert blocker.read_text() == ""


def test_a_second_environment_says_it_replaced_the_first(tmp_path):
    directory = spec_dir(tmp_path)
    os.makedirs(directory)
    with open(os.path.join(directory, "kernel.json"), "w") as f:
        json.dump({"argv": ["/opt/other-env/bin/python", "-m", "xcuda", "-f", "{connection_file}"],
                   "display_name": "old", "language": "python"}, f)
    with open(os.path.join(directory, "stale-file"), "w") as f:
        f.write("from the other install")
    result = run_xcuda("install", "--prefix", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "replaced the kernelspec xcuda that started /opt/other-env/bin/python" in result.stdout
    assert not os.path.exists(os.path.join(directory, "stale-file"))
    assert sorted(os.listdir(os.path.dirname(directory))) == ["xcuda"]
    # The same environment again replaces silently.
    again = run_xcuda("install", "--prefix", str(tmp_path))
    assert again.returncode == 0 and "replaced" not in again.stdout


def test_a_kernelspec_found_first_on_jupyters_path_is_named(tmp_path):
    earlier = tmp_path / "earlier"
    os.makedirs(spec_dir(earlier))
    with open(os.path.join(spec_dir(earlier), "kernel.json"), "w") as f:
        json.dump({"argv": ["/opt/shadow/bin/python", "-m", "xcuda"], "display_name": "x", "language": "python"}, f)
    env = dict(package_env(), JUPYTER_PATH=str(earlier / "share" / "jupyter"))
    result = run_xcuda("install", "--prefix", str(tmp_path / "env"), env=env)
    assert result.returncode == 0, result.stderr
    assert "finds the kernelspec xcuda in" in result.stdout and "/opt/shadow/bin/python" in result.stdout


def test_the_installed_kernelspec_starts_a_kernel_in_that_python(tmp_path):
    assert run_xcuda("install", "--prefix", str(tmp_path)).returncode == 0
    km = KernelManager(kernel_name="xcuda")
    km.kernel_spec_manager.kernel_dirs = [os.path.join(tmp_path, "share", "jupyter", "kernels")]
    km.start_kernel(env=package_env())
    kc = connect(km)
    try:
        reply, messages = execute(kc, "import sys; print(sys.executable)")
        assert reply["content"]["status"] == "ok"
        assert stream_text(messages).strip() == python_path(kernel_python())
    finally:
        stop_kernel(km, kc)


def test_the_command_line_says_how_it_is_used():
    result = run_xcuda()
    assert result.returncode == 2
    assert "python -m xcuda install" in result.stderr and "-f CONNECTION_FILE" in result.stderr
    missing = run_xcuda("-f", "/nonexistent/kernel-1.json")
    assert missing.returncode == 2
    assert "'/nonexistent/kernel-1.json' does not exist" in missing.stderr
    version = run_xcuda("--version")
    assert version.returncode == 0 and version.stdout.startswith("xcuda ")


def test_an_ipc_path_too_long_for_the_platform_is_refused_saying_why(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    connection = tmp_path / "kernel.json"
    ports = {p: n for n, p in enumerate(["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"], 1)}
    connection.write_text(json.dumps({"transport": "ipc", "ip": str(deep / "kernel-ipc"), "key": "k",
                                      "signature_scheme": "hmac-sha256", **ports}))
    result = run_xcuda("-f", str(connection))
    assert result.returncode == 2
    assert "socket paths of at most" in result.stderr and "JUPYTER_RUNTIME_DIR" in result.stderr


def test_the_ipc_transport_serves_a_frontend(tmp_path):
    km = KernelManager(kernel_name="xcuda", transport="ipc", ip=str(tmp_path / "k"))
    km.start_kernel(env=package_env())
    kc = connect(km)
    try:
        reply, messages = execute(kc, "print(6 * 7)")
        assert reply["content"]["status"] == "ok" and stream_text(messages) == "42\n"
    finally:
        stop_kernel(km, kc)


def free_ports(ip, count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind((ip, 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def in_use(ip, port):
    with socket.socket() as s:
        try:
            s.bind((ip, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return True
            raise
    return False


def listening_elsewhere(ip, ports):
    """The (address, port) of TCP sockets listening on one of `ports` at an address other than
    `ip` (from /proc/net/tcp, Linux), e.g. 127.0.0.1 or the wildcard 0.0.0.0."""
    listening = []
    with open("/proc/net/tcp") as table:
        next(table)
        for row in table:
            local, state = row.split()[1], row.split()[3]
            address, port = local.split(":")
            port = int(port, 16)
            address = socket.inet_ntoa(bytes.fromhex(address)[::-1])
            if state == "0A" and port in ports and address != ip:  # 0A: LISTEN
                listening.append((address, port))
    return listening


def test_the_kernel_binds_the_ip_and_ports_its_connection_file_names(tmp_path):
    # What a remote launcher (Enterprise Gateway's, a batch job's) does: it picks the address and
    # the five ports, writes them into a connection file and starts the kernelspec's command with
    # it; the kernel must listen there and nowhere else.
    ip = "127.0.0.2"
    try:
        ports = free_ports(ip, 5)
    except OSError as e:
        pytest.skip(f"cannot bind {ip} on this machine ({e}): no second loopback address to test with")
    channels = ("shell", "iopub", "stdin", "control", "hb")
    connection, _ = write_connection_file(str(tmp_path / "kernel-remote.json"), ip=ip,
                                          key=os.urandom(16).hex().encode(),
                                          **{f"{c}_port": p for c, p in zip(channels, ports)})
    kernel = subprocess.Popen(xcuda_command() + ["-f", connection], env=package_env())
    kc = BlockingKernelClient()
    kc.load_connection_file(connection)
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=30)
        reply, messages = execute(kc, "print(6 * 7)")
        assert reply["content"]["status"] == "ok" and stream_text(messages) == "42\n"
        assert all(in_use(ip, port) for port in ports)
        # on that address only: nothing listens on those ports on the usual loopback address or
        # on all addresses (connections that happen to use such a port number do not count)
        elsewhere = listening_elsewhere(ip, ports)
        assert not elsewhere, f"the kernel also listens on {elsewhere}"
    finally:
        kc.shutdown()
        kc.stop_channels()
        try:
            kernel.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kernel.kill()
            kernel.wait()

#!/usr/bin/env bash
# Where a hosted xcuda kernel's start-up goes on the machine it runs on (after
# tests/gpu/run-on-device.sh installed the wheel): the interpreter alone, site, the package's
# imports and the kernel's shared libraries, each the median of 7 runs, wall clock.
# usage: bench/probes/startup_probe.sh [PYTHON]   (default python3)
py=${1:-python3}
t() {  # LABEL CMD...: median wall ms of 7 runs
  local label=$1; shift
  "$py" - "$label" "$@" <<'PY'
import statistics, subprocess, sys, time
label, cmd = sys.argv[1], sys.argv[2:]
runs = []
for _ in range(7):
    t0 = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); runs.append((time.perf_counter() - t0) * 1e3)
print(f"{label:48s} {statistics.median(runs):7.1f} ms  (min {min(runs):.1f})")
PY
}
t "python -c pass" "$py" -c pass
t "python -S -c pass (no site)" "$py" -S -c pass
t "python -I -c pass (isolated)" "$py" -I -c pass
t "import xcuda (package + _core)" "$py" -c "import xcuda"
t "import xcuda._kernel (+ xeus, zmq libs)" "$py" -c "import xcuda._kernel"
t "python -m xcuda --version" "$py" -m xcuda --version
t "import IPython" "$py" -c "import IPython"
t "import ipykernel.kernelapp" "$py" -c "import ipykernel.kernelapp"
"$py" -X importtime -c "import xcuda._kernel" 2>&1 | sort -t'|' -k2 -n | tail -6
"$py" -c "import os, site; print('.pth files in site-packages:', sorted(f for d in site.getsitepackages() if os.path.isdir(d) for f in os.listdir(d) if f.endswith('.pth')))"
# Spawn to "shell port accepts a TCP connection" (the kernel has bound its sockets), polled every
# 1 ms: start-up without the client's ZeroMQ reconnect interval (100 ms steps) on top.
"$py" - "$py" <<'PY'
import json, os, socket, statistics, subprocess, sys, tempfile, time
py = sys.argv[1]
def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks: s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks: s.close()
    return ports
def bound_ms(argv):
    ports = free_ports(5)
    info = dict(zip(["shell_port", "iopub_port", "stdin_port", "control_port", "hb_port"], ports),
                ip="127.0.0.1", transport="tcp", key="probe", signature_scheme="hmac-sha256")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(info, f)
    t0 = time.perf_counter()
    proc = subprocess.Popen([a.replace("{connection_file}", f.name) for a in argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", ports[0]), timeout=0.05).close()
                return (time.perf_counter() - t0) * 1e3
            except OSError:
                if proc.poll() is not None or time.perf_counter() - t0 > 30:
                    raise RuntimeError(f"{argv} never bound its shell port")
                time.sleep(0.001)
    finally:
        proc.kill(); proc.wait(); os.unlink(f.name)
for name, argv in (("xcuda", [py, "-m", "xcuda", "-f", "{connection_file}"]),
                   ("ipykernel", [py, "-m", "ipykernel_launcher", "-f", "{connection_file}"])):
    try:
        runs = [bound_ms(argv) for _ in range(7)]
        print(f"{name + ': spawn to shell port bound':48s} {statistics.median(runs):7.1f} ms  (min {min(runs):.1f})")
    except Exception as e:
        print(f"{name}: {e}")
PY

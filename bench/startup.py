"""Part 5: a fresh kernel. Start to the first kernel_info reply, idle RSS, and start to the
first %%cuda result, for the xcuda kernel (started by --kernel-cmd) vs ipykernel, and vs
ipykernel running an nvcc4jupyter-style cell (nvcc to an executable, run it) or CuPy.
Needs jupyter_client and ipykernel: in this Python, or in --jupyter-python (then this file
runs there as a script and hands its samples back as JSON). The plain ipykernel peer runs on
that same Python; the CuPy peer on --cupy-kernel-cmd's, when given (CuPy may live elsewhere).
Every kernel reports its own Python, IPython and ipykernel after its timed cells."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PART = "startup"
KI_X, KI_I = "xcuda kernel: start to kernel_info reply", "ipykernel: start to kernel_info reply"
RSS_X, RSS_I = "xcuda kernel: idle RSS", "ipykernel: idle RSS"
FIRST_X = "xcuda kernel: start to first %%cuda result"
FIRST_NVCC = "ipykernel + nvcc4jupyter-style cell: start to result"
FIRST_CUPY = "ipykernel + CuPy RawKernel: start to result"
KI_CUPY = "ipykernel of the CuPy peer: start to kernel_info reply"
NAMES = (KI_X, KI_I, KI_CUPY, RSS_X, RSS_I, FIRST_X, FIRST_NVCC, FIRST_CUPY)
EXPECT = "RESULT 3.0 2047.0"

SAXPY = r'''extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + y[i];
}'''

XCUDA_CELLS = ["%%cuda\n" + SAXPY, '''
import numpy as np
x = np.arange(1024, dtype=np.float32); y = np.ones_like(x); out = np.empty_like(x)
saxpy[4, 256](x, y, out, x.size)
print("RESULT", out[1], out[1023])
''']

NVCC_PROGRAM = SAXPY + r'''
#include <cstdio>
int main() {
    const int n = 1024; float *x, *y, *out;
    cudaError_t m = cudaMallocManaged(&x, n * 4);
    if (m != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(m)); return 1; }
    cudaMallocManaged(&y, n * 4); cudaMallocManaged(&out, n * 4);
    for (int i = 0; i < n; ++i) { x[i] = i; y[i] = 1; }
    saxpy<<<4, 256>>>(x, y, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); return 1; }
    std::printf("RESULT %.1f %.1f\n", out[1], out[1023]);
}
'''

# What nvcc4jupyter's %%cuda does: write the cell to a file, nvcc it to an executable, run it
# and print what it printed.
NVCC_CELLS = ['''
import os, subprocess, tempfile
d = tempfile.mkdtemp()
open(os.path.join(d, "cell.cu"), "w").write(%r)
subprocess.run([%r, "-arch=sm_90", "-o", os.path.join(d, "cell"), os.path.join(d, "cell.cu")], check=True)
p = subprocess.run([os.path.join(d, "cell")], capture_output=True, text=True)
print(p.stdout + p.stderr)
''']

CUPY_CELLS = ['''
import cupy as cp, numpy as np
k = cp.RawKernel(%r, "saxpy")
x = cp.arange(1024, dtype=cp.float32); y = cp.ones_like(x); out = cp.empty_like(x)
k((4,), (256,), (x, y, out, np.int32(1024)))
o = out.get()
print("RESULT", o[1], o[1023])
''' % SAXPY]


# Run after the timed cells (untimed): which Python and which libraries this kernel ran on.
INFO_CELL = '''
import json as _j, sys as _s
_v = lambda m: getattr(_s.modules.get(m), "__version__", None)
print("BENCH_INFO" + _j.dumps({"python": _s.version.split()[0], "executable": _s.executable,
      "prefix": _s.prefix, "IPython": _v("IPython"), "ipykernel": _v("ipykernel"), "numpy": _v("numpy"),
      "cupy": _v("cupy")}))
'''


def _nvcc() -> str:
    return os.environ.get("NVCC") or "/usr/local/cuda/bin/nvcc"


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def _one(argv, cells, want_rss: bool) -> dict:
    """Start a kernel from `argv`, time kernel_info, read idle RSS, run `cells`, check the result.
    Each start gets fresh, empty compile caches (xcuda's under XDG_CACHE_HOME, CuPy's), so the
    first result of every round includes a cold compile, for every peer alike."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    root = tempfile.mkdtemp(prefix="xcuda-bench-spec-")
    os.makedirs(os.path.join(root, "bench"))
    with open(os.path.join(root, "bench", "kernel.json"), "w") as f:
        json.dump({"argv": argv, "display_name": "bench", "language": "python"}, f)
    km = KernelManager(kernel_name="bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[root]))
    out = {}
    caches = tempfile.mkdtemp(prefix="xcuda-bench-kernel-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(caches, "xdg"), CUPY_CACHE_DIR=os.path.join(caches, "cupy"))
    t0 = time.perf_counter()
    km.start_kernel(env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        ready = time.perf_counter() - t0
        out["kernel_info_ms"] = ready * 1e3
        if want_rss:
            time.sleep(1.0)
            proc = getattr(getattr(km, "provisioner", None), "process", None) or km.kernel
            out["rss_mib"] = _rss_mib(proc.pid)
        texts = []

        def hook(msg):
            c = msg["content"]
            if msg["msg_type"] == "stream":
                texts.append(c["text"])
            elif msg["msg_type"] == "error":
                texts.append(f"{c['ename']}: {c['evalue']}")
        t1 = time.perf_counter()
        try:
            for cell in cells:
                reply = kc.execute_interactive(cell, timeout=300, output_hook=hook)
                if reply["content"]["status"] != "ok":
                    c = reply["content"]
                    raise RuntimeError(f"cell failed: {c.get('ename')}: {c.get('evalue')}")
            got = "".join(texts)
            if EXPECT not in got:
                raise RuntimeError(f"cell printed {got.strip()[-300:]!r}, expected {EXPECT!r}")
            out["first_result_ms"] = (ready + time.perf_counter() - t1) * 1e3
        except Exception as exc:  # the start-up numbers above still count
            out["cell_failure"] = f"{type(exc).__name__}: {exc}"
        out["kernel"] = _kernel_info(kc)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        shutil.rmtree(caches, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)
    return out


def _kernel_info(kc) -> dict:
    texts = []

    def hook(msg):
        if msg["msg_type"] == "stream":
            texts.append(msg["content"]["text"])
    try:
        kc.execute_interactive(INFO_CELL, timeout=60, output_hook=hook)
        line = [t for t in "".join(texts).splitlines() if t.startswith("BENCH_INFO")][0]
        return json.loads(line[len("BENCH_INFO"):])
    except Exception as exc:
        return {"unknown": f"{type(exc).__name__}: {exc}"}


def describe_kernel(info: dict) -> str:
    """One line for the report: which Python (and IPython, ipykernel, CuPy) a kernel ran on."""
    if not info or "unknown" in info:
        return "its Python is unknown" + (f" ({info['unknown']})" if info else "")
    libs = ", ".join(f"{k} {info[k]}" for k in ("IPython", "ipykernel", "numpy", "cupy") if info.get(k))
    return f"Python {info['python']} ({info['executable']}, prefix {info['prefix']})" + (f"; {libs}" if libs else "")


def measure(kernel_cmd: str, reps: int, cupy_kernel_cmd: str = "") -> dict:
    """name -> {"samples": [...], "unit": u} or {"failure": reason}; "kernels" -> which Python
    each kernel ran on."""
    xargv = _argv(kernel_cmd, "--kernel-cmd")
    iargv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    cargv = _argv(cupy_kernel_cmd, "--cupy-kernel-cmd") if cupy_kernel_cmd else iargv
    configs = {
        "xcuda": (xargv, XCUDA_CELLS, True),
        "ipykernel+nvcc": (iargv, [NVCC_CELLS[0] % (NVCC_PROGRAM, _nvcc())], True),
        "ipykernel+cupy": (cargv, CUPY_CELLS, False),
    }
    ki_name = {"xcuda": KI_X, "ipykernel+nvcc": KI_I, "ipykernel+cupy": KI_CUPY}
    rss_name = {"xcuda": RSS_X, "ipykernel+nvcc": RSS_I}
    first_name = {"xcuda": FIRST_X, "ipykernel+nvcc": FIRST_NVCC, "ipykernel+cupy": FIRST_CUPY}
    samples = {k: [] for k in NAMES}
    failures = {}       # the kernel did not start or answer
    cell_failures = {}  # it answered, but the cells did not print the expected result
    kernels = {}
    for rep in range(reps):
        order = list(configs)
        order = order[rep % len(order):] + order[:rep % len(order)]
        for which in order:
            if which in failures:
                continue
            argv, cells, want_rss = configs[which]
            try:
                r = _one(argv, cells, want_rss)
            except Exception as exc:
                failures[which] = f"{type(exc).__name__}: {exc}"
                continue
            kernels.setdefault(which, {"argv": argv, **r["kernel"]})
            samples[ki_name[which]].append(r["kernel_info_ms"])
            if "rss_mib" in r:
                samples[rss_name[which]].append(r["rss_mib"])
            if "first_result_ms" in r:
                samples[first_name[which]].append(r["first_result_ms"])
            else:
                cell_failures[which] = r["cell_failure"]
    sources = {KI_X: "xcuda", RSS_X: "xcuda", FIRST_X: "xcuda", KI_I: "ipykernel+nvcc", RSS_I: "ipykernel+nvcc",
               FIRST_NVCC: "ipykernel+nvcc", KI_CUPY: "ipykernel+cupy", FIRST_CUPY: "ipykernel+cupy"}
    out = {"kernels": kernels}
    for name, values in samples.items():
        unit = "MiB" if "RSS" in name else "ms"
        src = sources[name]
        where = describe_kernel(kernels.get(src, {}))
        if values:
            out[name] = {"samples": values, "unit": unit, "kernel": where}
        else:
            why = failures.get(src) or cell_failures.get(src) or "no sample was taken"
            out[name] = {"failure": f"{src}: {why}", "unit": unit, "kernel": where}
    return out


def _argv(cmd: str, option: str):
    argv = shlex.split(cmd)
    if not any("{connection_file}" in a for a in argv):
        raise ValueError(f"{option} {cmd!r} has no {{connection_file}}; add e.g. '-f {{connection_file}}'")
    return argv


def run(env, res, cfg) -> None:
    from report import ERROR, SKIPPED
    if not cfg.kernel_cmd:
        res.fail_part(PART, "-", SKIPPED, "no --kernel-cmd given (the command that starts the "
                      "xcuda kernel, with {connection_file})")
        return _goals(res)
    try:
        import ipykernel  # noqa: F401 (only its presence matters: it is the peer kernel)
        import jupyter_client  # noqa: F401
        data = measure(cfg.kernel_cmd, cfg.startup_reps, cfg.cupy_kernel_cmd)
        where = sys.executable
    except ImportError as exc:
        if not cfg.jupyter_python:
            res.fail_part(PART, "-", SKIPPED,
                          f"{type(exc).__name__}: {exc} in {sys.executable}; pass --jupyter-python PY "
                          "(a Python with jupyter_client and ipykernel)")
            return _goals(res)
        cmd = [*shlex.split(cfg.jupyter_python), os.path.abspath(__file__), "--kernel-cmd", cfg.kernel_cmd,
               "--reps", str(cfg.startup_reps)]
        if cfg.cupy_kernel_cmd:
            cmd += ["--cupy-kernel-cmd", cfg.cupy_kernel_cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError(f"{cfg.jupyter_python} startup.py exited {p.returncode}: {p.stderr.strip()[-800:]}")
        data = json.loads(p.stdout.strip().splitlines()[-1])
        where = cfg.jupyter_python
    res.meta["startup kernels"] = {
        which: f"{' '.join(k.get('argv', []))} -> {describe_kernel(k)}" for which, k in data["kernels"].items()}
    res.meta["startup jupyter_client"] = where
    for name in NAMES:
        d = data[name]
        if "samples" in d:
            res.add(PART, name, d["unit"], d["samples"], note=f"kernel on {d['kernel']}; cold compile caches per start")
        else:
            res.fail(PART, name, d["unit"], ERROR if name.startswith("xcuda") else "unavailable", d["failure"])
    _goals(res)


def _goals(res) -> None:
    res.goal(PART, "start to kernel_info <= 0.7x ipykernel", KI_X, KI_I, "<=", 0.7)
    res.goal(PART, "idle RSS <= 1.2x ipykernel", RSS_X, RSS_I, "<=", 1.2)
    res.goal(PART, "first %%cuda result <= 0.5x nvcc4jupyter-style", FIRST_X, FIRST_NVCC, "<=", 0.5)
    res.goal(PART, "first %%cuda result <= 1.0x ipykernel + CuPy", FIRST_X, FIRST_CUPY, "<=", 1.0)


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="part 5 on its own; prints one JSON line")
    ap.add_argument("--kernel-cmd", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cupy-kernel-cmd", default="")
    a = ap.parse_args()
    print(json.dumps(measure(a.kernel_cmd, a.reps, a.cupy_kernel_cmd)))

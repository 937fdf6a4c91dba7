"""Part 5: a fresh kernel. Start to the first kernel_info reply, idle RSS, and start to the
first %%cuda result, for the xcuda kernel (started by --kernel-cmd) vs ipykernel, and vs
ipykernel running an nvcc4jupyter-style cell (nvcc to an executable, run it) or CuPy.
Needs jupyter_client and ipykernel: in this Python, or in --jupyter-python (then this file
runs there as a script and hands its samples back as JSON)."""
from __future__ import annotations

import json
import os
import shlex
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

# What nvcc4jupyter's %%cuda does: write the cell to a file, nvcc it to an executable, run it.
NVCC_CELLS = ['''
import os, subprocess, tempfile
d = tempfile.mkdtemp()
open(os.path.join(d, "cell.cu"), "w").write(%r)
subprocess.run([%r, "-arch=sm_90", "-o", os.path.join(d, "cell"), os.path.join(d, "cell.cu")], check=True)
print(subprocess.run([os.path.join(d, "cell")], capture_output=True, text=True, check=True).stdout)
''']

CUPY_CELLS = ['''
import cupy as cp, numpy as np
k = cp.RawKernel(%r, "saxpy")
x = cp.arange(1024, dtype=cp.float32); y = cp.ones_like(x); out = cp.empty_like(x)
k((4,), (256,), (x, y, out, np.int32(1024)))
o = out.get()
print("RESULT", o[1], o[1023])
''' % SAXPY]


def _nvcc() -> str:
    return os.environ.get("NVCC") or "/usr/local/cuda/bin/nvcc"


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def _one(argv, cells, want_rss: bool) -> dict:
    """Start a kernel from `argv`, time kernel_info, read idle RSS, run `cells`, check the result."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    root = tempfile.mkdtemp(prefix="xcuda-bench-spec-")
    os.makedirs(os.path.join(root, "bench"))
    with open(os.path.join(root, "bench", "kernel.json"), "w") as f:
        json.dump({"argv": argv, "display_name": "bench", "language": "python"}, f)
    km = KernelManager(kernel_name="bench", kernel_spec_manager=KernelSpecManager(kernel_dirs=[root]))
    out = {}
    t0 = time.perf_counter()
    km.start_kernel()
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
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return out


def measure(kernel_cmd: str, reps: int) -> dict:
    """name -> {"samples": [...], "unit": u} or {"failure": reason}."""
    xargv = shlex.split(kernel_cmd)
    if not any("{connection_file}" in a for a in xargv):
        raise ValueError(f"--kernel-cmd {kernel_cmd!r} has no {{connection_file}}; add e.g. '-f {{connection_file}}'")
    iargv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    configs = {
        "xcuda": (xargv, XCUDA_CELLS, True),
        "ipykernel+nvcc": (iargv, [NVCC_CELLS[0] % (NVCC_PROGRAM, _nvcc())], True),
        "ipykernel+cupy": (iargv, CUPY_CELLS, False),
    }
    samples = {k: [] for k in (KI_X, KI_I, RSS_X, RSS_I, FIRST_X, FIRST_NVCC, FIRST_CUPY)}
    failures = {}       # the kernel did not start or answer
    cell_failures = {}  # it answered, but the cells did not print the expected result
    first_name = {"xcuda": FIRST_X, "ipykernel+nvcc": FIRST_NVCC, "ipykernel+cupy": FIRST_CUPY}
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
            is_x = which == "xcuda"
            samples[KI_X if is_x else KI_I].append(r["kernel_info_ms"])
            if "rss_mib" in r:
                samples[RSS_X if is_x else RSS_I].append(r["rss_mib"])
            if "first_result_ms" in r:
                samples[first_name[which]].append(r["first_result_ms"])
            else:
                cell_failures[which] = r["cell_failure"]
    sources = {KI_X: ["xcuda"], RSS_X: ["xcuda"], FIRST_X: ["xcuda"],
               KI_I: ["ipykernel+nvcc", "ipykernel+cupy"], RSS_I: ["ipykernel+nvcc"],
               FIRST_NVCC: ["ipykernel+nvcc"], FIRST_CUPY: ["ipykernel+cupy"]}
    out = {}
    for name, values in samples.items():
        unit = "MiB" if "RSS" in name else "ms"
        if values:
            out[name] = {"samples": values, "unit": unit}
        else:
            why = "; ".join(f"{k}: {failures.get(k) or cell_failures[k]}" for k in sources[name]
                            if k in failures or k in cell_failures)
            out[name] = {"failure": why or "no sample was taken", "unit": unit}
    return out


def run(env, res, cfg) -> None:
    from report import ERROR, SKIPPED
    names = (KI_X, KI_I, RSS_X, RSS_I, FIRST_X, FIRST_NVCC, FIRST_CUPY)
    if not cfg.kernel_cmd:
        res.fail(PART, "(whole part)", "-", SKIPPED, "no --kernel-cmd given (the command that starts the "
                 "xcuda kernel, with {connection_file})")
        _goals(res)
        return
    try:
        import ipykernel  # noqa: F401 (only its presence matters: it is the peer kernel)
        import jupyter_client  # noqa: F401
        data = measure(cfg.kernel_cmd, cfg.startup_reps)
        where = sys.executable
    except ImportError as exc:
        if not cfg.jupyter_python:
            res.fail(PART, "(whole part)", "-", SKIPPED,
                     f"{type(exc).__name__}: {exc} in {sys.executable}; pass --jupyter-python PY "
                     "(a Python with jupyter_client and ipykernel)")
            _goals(res)
            return
        p = subprocess.run([cfg.jupyter_python, os.path.abspath(__file__), "--kernel-cmd", cfg.kernel_cmd,
                            "--reps", str(cfg.startup_reps)], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError(f"{cfg.jupyter_python} startup.py exited {p.returncode}: {p.stderr.strip()[-800:]}")
        data = json.loads(p.stdout.strip().splitlines()[-1])
        where = cfg.jupyter_python
    for name in names:
        d = data[name]
        if "samples" in d:
            res.add(PART, name, d["unit"], d["samples"], note=f"jupyter_client in {where}")
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
    a = ap.parse_args()
    print(json.dumps(measure(a.kernel_cmd, a.reps)))

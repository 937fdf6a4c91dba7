"""Part 7: hardware counters. xcuda's in-process CUPTI counters of a memory-bound
kernel (vadd) and a compute-bound one (horner: 64 FMAs per element), against Nsight Compute
(`ncu`) profiling a small program that loads the same CUBIN (CuPy's RawModule) and launches
it on the same sizes: DRAM bytes and FLOPs must agree within 2%, throughput percentages within
10%. Both see the same caches: CUPTI in-process leaves the L2 as the code leaves it, and ncu
flushes it before every pass unless told `--cache-control none`, so each measured kernel follows
a kernel that streams 512 MiB through the L2 (flush, in the same CUBIN and on both sides) and
ncu runs with `--cache-control none`. The times compare what a user runs: the cell of the two
kernels alone, and ncu with its default options on the program launching them alone; and the time from the start of `%%cuda_profile --metrics` (xcuda.cuda_profile, same code)
to its report, against the wall time of that ncu run. Each side runs its kernels once and the
xcuda results are checked against numpy first."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from report import ERROR, SKIPPED, UNAVAILABLE, WRONG, WrongResult
from timing import describe

PART = "counters"
N_ADD = 1 << 26      # 256 MiB a float32 array: far beyond the 60 MiB L2
N_HORNER = 1 << 24
SOURCE = r'''
extern "C" __global__ void flush(const float4* buf, int n, float* sink) {
    float4 s = make_float4(0, 0, 0, 0);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float4 v = buf[i]; s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
    if (s.x + s.y + s.z + s.w == 12345.0f) *sink = 1.0f;  // keeps the loads
}
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void horner(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], acc = 1.0f;
    #pragma unroll 16
    for (int k = 0; k < 64; ++k) acc = acc * v + 0.5f;
    y[i] = acc;
}
'''
N_FLUSH = 1 << 25  # float4s: 512 MiB, over 8 times the L2
TIMED_CELL = "vadd[N_ADD // 256, 256](a, b, c, N_ADD)\nhorner[N_HORNER // 256, 256](a, h, N_HORNER)\n"
CELL = ("flush[1056, 256](f, N_FLUSH, sink)\nvadd[N_ADD // 256, 256](a, b, c, N_ADD)\n"
        "flush[1056, 256](f, N_FLUSH, sink)\nhorner[N_HORNER // 256, 256](a, h, N_HORNER)\n")
PROGRAM = r'''
import sys, cupy as cp, numpy as np
m = cp.RawModule(path=sys.argv[1])
N_ADD, N_HORNER, N_FLUSH = {n_add}, {n_horner}, {n_flush}
f = cp.zeros(4 * N_FLUSH, cp.float32); sink = cp.zeros(1, cp.float32)
flush = m.get_function("flush")
a = cp.asarray(np.random.default_rng(0).random(N_ADD, dtype=np.float32)); b = cp.ones(N_ADD, cp.float32)
c = cp.empty(N_ADD, cp.float32); h = cp.empty(N_HORNER, cp.float32)
flushing = sys.argv[2:] == ["flush"]
if flushing: flush((1056,), (256,), (f, cp.int32(N_FLUSH), sink))
m.get_function("vadd")((N_ADD // 256,), (256,), (a, b, c, cp.int32(N_ADD)))
if flushing: flush((1056,), (256,), (f, cp.int32(N_FLUSH), sink))
m.get_function("horner")((N_HORNER // 256,), (256,), (a, h, cp.int32(N_HORNER)))
cp.cuda.Device().synchronize()
'''
# Compared with ncu; every other metric of the set is shown by xcuda but not compared here.
COUNTS = ("dram__bytes_read.sum", "dram__bytes_write.sum")
FLOPS = tuple(f"smsp__sass_thread_inst_executed_op_f{op}_pred_on.sum" for op in ("add", "mul", "fma"))
PERCENTS = ("sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed")
XCUDA = "xcuda %%cuda_profile --metrics: cell start to report"
NCU = "ncu --metrics (same set) on a program launching the same CUBIN"


def _ncu():
    fallback = "/usr/local/cuda/bin/ncu"
    return shutil.which("ncu") or (fallback if os.path.exists(fallback) else None)


def _fp32(v):
    return v[FLOPS[0]] + v[FLOPS[1]] + 2 * v[FLOPS[2]]


def _deviation_rows(res, kernel, ours, theirs):
    """Relative deviations from ncu, in percent, one row per compared figure."""
    rows = {f"{kernel} DRAM bytes": (ours[COUNTS[0]] + ours[COUNTS[1]], theirs[COUNTS[0]] + theirs[COUNTS[1]]),
            f"{kernel} FP32 FLOPs": (_fp32(ours), _fp32(theirs))}
    for name, (a, b) in rows.items():
        dev = 0.0 if a == b else abs(a - b) / max(abs(b), 1e-30) * 100
        res.add(PART, f"{name}: deviation from ncu", "%", [dev], note=f"xcuda {a:.6g}, ncu {b:.6g}")
    worst, detail = 0.0, []
    for m in PERCENTS:
        a, b = ours[m], theirs[m]
        dev = abs(a - b) / max(abs(b), 1e-30) * 100
        worst = max(worst, dev)
        detail.append(f"{m.split('.')[0]} {a:.1f}% vs {b:.1f}%")
    res.add(PART, f"{kernel} throughput %: worst deviation from ncu", "%", [worst], note="; ".join(detail))


def _parse_ncu_csv(text, names):
    """{kernel: {metric: value}} from `ncu --csv --print-units base` (one row per metric)."""
    import csv
    import io
    lines = [l for l in text.splitlines() if l.startswith('"')]
    out = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        kernel = row.get("Kernel Name", "")
        if kernel in names and row.get("Metric Name"):
            out.setdefault(kernel, {})[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
    return out


def run(env, res, cfg) -> None:
    names = (XCUDA, NCU)
    if not env.has_gpu:
        for name in names:
            res.fail(PART, name, "ms", SKIPPED, env.gpu_reason)
        _goals(res)
        return
    np = env.np
    ncu = _ncu()
    try:
        xc = env.xcuda_or_raise()
        module = xc.compile(SOURCE)
        x = np.random.default_rng(0).random(N_ADD, dtype=np.float32)
        ns = {"vadd": module.vadd, "horner": module.horner, "flush": module.flush, "N_ADD": N_ADD,
              "N_HORNER": N_HORNER, "N_FLUSH": N_FLUSH, "f": xc.zeros(4 * N_FLUSH, np.float32),
              "sink": xc.zeros(1, np.float32),
              "a": xc.to_device(x), "b": xc.to_device(np.ones(N_ADD, np.float32)),
              "c": xc.empty(N_ADD, np.float32), "h": xc.empty(N_HORNER, np.float32)}
        metrics = ",".join(COUNTS + FLOPS + PERCENTS) + ",basic"
        exec(CELL, ns)
        xc.synchronize()
        if not np.array_equal(ns["c"].get(), x + 1):
            raise WrongResult("vadd: c != a + b")
        ref = np.ones(N_HORNER, np.float64)
        for _ in range(64):
            ref = ref * x[:N_HORNER] + 0.5
        if not np.allclose(ns["h"].get(), ref, rtol=1e-3):
            raise WrongResult("horner differs from numpy's")
    except Exception as exc:
        for name in names:
            res.fail(PART, name, "ms", WRONG if isinstance(exc, WrongResult) else ERROR, describe(exc))
        _goals(res)
        return

    # xcuda: what a user waits for, cell start to the report (counters of both kernels).
    times, ours = [], None
    try:
        for _ in range(2 if cfg.quick else 3):
            t0 = time.perf_counter()
            report = xc.cuda_profile(TIMED_CELL, ns, metrics=metrics)
            times.append((time.perf_counter() - t0) * 1e3)
            if "No hardware counters" in report.plain:
                raise RuntimeError(report.plain.splitlines()[0])
        values = xc.counters(lambda: exec(CELL, ns), metrics=metrics)
        if len(values) != 4:
            raise RuntimeError(f"{len(values)} kernels measured, not 4 (flush, vadd, flush, horner)")
        ours = {"vadd": values[1], "horner": values[3]}
        res.add(PART, XCUDA, "ms", times, note=f"the 2 kernels of the cell, metrics: {metrics}")
    except Exception as exc:
        res.fail(PART, XCUDA, "ms", UNAVAILABLE if "No hardware counters" in str(exc) else ERROR, describe(exc))

    if ncu is None:
        res.fail(PART, NCU, "ms", UNAVAILABLE, "ncu (Nsight Compute) is not on PATH or in /usr/local/cuda/bin")
    else:
        try:
            with tempfile.TemporaryDirectory() as tmp:
                cubin = os.path.join(tmp, "cell.cubin")
                with open(cubin, "wb") as f:
                    f.write(module.cubin)
                prog = os.path.join(tmp, "launch_cubin.py")
                with open(prog, "w") as f:
                    f.write(PROGRAM.format(n_add=N_ADD, n_horner=N_HORNER, n_flush=N_FLUSH))
                # `from _core import *` leaves the private _metric_names out of xcuda itself.
                full = ",".join(xc._core._metric_names(metrics))
                base = [ncu, "--clock-control", "none", "--csv", "--print-units", "base",
                        "--kernel-name", "regex:^(vadd|horner)$", "--metrics", full]
                cmd = base + [sys.executable, prog, cubin]
                times = []
                for _ in range(2 if cfg.quick else 3):
                    t0 = time.perf_counter()
                    _run_ncu(cmd)
                    times.append((time.perf_counter() - t0) * 1e3)
                # The figures: same caches as in-process CUPTI (no flush by ncu, a flush kernel before each).
                theirs = _parse_ncu_csv(_run_ncu(base[:3] + ["--cache-control", "none"] + base[3:] +
                                                 [sys.executable, prog, cubin, "flush"]), ("vadd", "horner"))
                if set(theirs) != {"vadd", "horner"}:
                    raise RuntimeError(f"ncu's CSV had kernels {sorted(theirs)}")
            res.add(PART, NCU, "ms", times, note=" ".join(cmd[:9]) + " ...")
            if ours:
                for k in ("vadd", "horner"):
                    _deviation_rows(res, k, ours[k], theirs[k])
        except Exception as exc:
            res.fail(PART, NCU, "ms", ERROR, describe(exc))
    res.meta["counters set-up"] = (f"vadd on {N_ADD} floats, horner (64 FMA) on {N_HORNER} floats, block 256, each "
                                  f"after a kernel reading {4 * N_FLUSH * 4 >> 20} MiB; ncu: {ncu}")
    _goals(res)


def _run_ncu(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"ncu exited {done.returncode}: {done.stderr[-500:] or done.stdout[-500:]}")
    return done.stdout


def _goals(res) -> None:
    res.goal(PART, "cell start to the counters report <= 0.2x the ncu run of the same CUBIN", XCUDA, NCU, "<=", 0.2)
    for k in ("vadd", "horner"):
        res.goal(PART, f"{k}: DRAM bytes within 2% of ncu", f"{k} DRAM bytes: deviation from ncu", "%", "<=", 2.0,
                 absolute=True)
        res.goal(PART, f"{k}: FP32 FLOPs within 2% of ncu", f"{k} FP32 FLOPs: deviation from ncu", "%", "<=", 2.0,
                 absolute=True)
        res.goal(PART, f"{k}: SM, memory and DRAM throughput % within 10% of ncu",
                 f"{k} throughput %: worst deviation from ncu", "%", "<=", 10.0, absolute=True)

#!/usr/bin/env python3
"""Child of bench/cpu_device.py: the same saxpy and shared-memory tiled SGEMM kernels, written for
numba's CUDA simulator, timed in a Python that has numba (the xcuda package is built for Debian's
/usr/bin/python3, numba comes from PyPI into a venv, so the two cannot share a process).

    NUMBA_ENABLE_CUDASIM=1 build/bench-venv/bin/python bench/cpu_device_numba.py \\
        --saxpy-n 16384 --sgemm-n 64 --reps 7

Prints one JSON object on its last line of stdout: versions, and per row its samples (ms) or the
exact reason it has none. The simulator runs one OS thread per GPU thread of a block, under the
GIL, so the sizes are small; the parent runs xcuda on exactly the same sizes. Every result is
checked against numpy in float64 (output poisoned with NaN first) before it is timed. The same
process also times this venv's numpy (OpenBLAS, unlike Debian's reference BLAS in the parent) on
the parent's full sizes, as context rows without a goal.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from timing import describe, interleave  # noqa: E402  (stdlib only, so it imports in any Python)
from report import WrongResult  # noqa: E402  (stdlib and timing only)

TILE = 16
A = 2.0

# numba reads NUMBA_ENABLE_CUDASIM at import; main() refuses to time anything when it is off.
try:
    import numba
    import numpy as np
    from numba import cuda, float32
    IMPORT_ERROR = None
except Exception as exc:  # reported in the JSON, as a row's reason in the parent
    IMPORT_ERROR = describe(exc)

if IMPORT_ERROR is None:
    # Module-level on purpose: the simulator runs a kernel with its *global* `cuda` swapped for a
    # fake module holding threadIdx, shared, syncthreads...; a closure's `cuda` would be the real one.
    # These are the kernels of bench/cpu_device.py, line for line in numba's dialect.
    @cuda.jit
    def saxpy(a, x, y, o, n):
        i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        if i < n:
            o[i] = a * x[i] + y[i]

    @cuda.jit
    def sgemm(A_, B_, C_, n):
        As = cuda.shared.array((TILE, TILE), float32)
        Bs = cuda.shared.array((TILE, TILE), float32)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        acc = float32(0.0)
        for t in range(0, n, TILE):
            As[ty, tx] = A_[row, t + tx] if (row < n and t + tx < n) else float32(0.0)
            Bs[ty, tx] = B_[t + ty, col] if (t + ty < n and col < n) else float32(0.0)
            cuda.syncthreads()
            for k in range(TILE):
                acc += As[ty, k] * Bs[k, tx]
            cuda.syncthreads()
        if row < n and col < n:
            C_[row, col] = acc


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--saxpy-n", type=int, default=1 << 14)
    p.add_argument("--sgemm-n", type=int, default=64, help="a multiple of 16")
    p.add_argument("--numpy-saxpy-n", type=int, default=1 << 20, help="context row: this venv's numpy a*x+y")
    p.add_argument("--numpy-sgemm-n", type=int, default=512, help="context row: this venv's numpy a @ b")
    p.add_argument("--reps", type=int, default=7)
    a = p.parse_args(argv)
    out = {"versions": {"python": sys.version.split()[0] + f" ({sys.executable})"}, "rows": {}}
    rows = out["rows"]
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        # Without it numba would look for a GPU (or fail): the rows would not be the simulator's.
        out["error"] = "NUMBA_ENABLE_CUDASIM=1 is not set"
        print(json.dumps(out))
        return 1
    if IMPORT_ERROR:
        out["error"] = "import failed: " + IMPORT_ERROR
        print(json.dumps(out))
        return 1
    out["versions"].update(numba=numba.__version__, numpy=np.__version__)
    blas = _blas(np)
    if blas:
        out["versions"]["numpy blas"] = blas
    if not numba.config.ENABLE_CUDASIM:  # numba read the variable at import: make sure it took
        out["error"] = "numba.config.ENABLE_CUDASIM is off: these would not be the simulator's rows"
        print(json.dumps(out))
        return 1

    rng = np.random.default_rng(1)
    timed = {}

    n = a.saxpy_n
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    dx, dy = cuda.to_device(x), cuda.to_device(y)
    do = cuda.to_device(np.full(n, np.nan, np.float32))
    saxpy_name = f"saxpy n={n}"
    grid = (n + 255) // 256

    def run_saxpy():
        saxpy[grid, 256](np.float32(A), dx, dy, do, np.int32(n))
        cuda.synchronize()
    try:
        run_saxpy()
        _check(np, do.copy_to_host(), A * x.astype(np.float64) + y, 1e-5, saxpy_name)
        timed[saxpy_name] = _ms(run_saxpy)
    except Exception as exc:
        rows[saxpy_name] = {"error": describe(exc)}

    m = a.sgemm_n
    am = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    bm = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    da, db = cuda.to_device(am), cuda.to_device(bm)
    dc = cuda.to_device(np.full((m, m), np.nan, np.float32))
    sgemm_name = f"sgemm n={m}"

    def run_sgemm():
        sgemm[(m // TILE, m // TILE), (TILE, TILE)](da, db, dc, np.int32(m))
        cuda.synchronize()
    try:
        run_sgemm()
        ref = am.astype(np.float64) @ bm.astype(np.float64)
        _check(np, dc.copy_to_host(), ref, 1e-4 * m, sgemm_name)
        timed[sgemm_name] = _ms(run_sgemm)
    except Exception as exc:
        rows[sgemm_name] = {"error": describe(exc)}

    # Context: this venv's numpy (OpenBLAS) on the parent's full sizes.
    nx = rng.standard_normal(a.numpy_saxpy_n, dtype=np.float32)
    ny = rng.standard_normal(a.numpy_saxpy_n, dtype=np.float32)
    na = rng.uniform(-1, 1, (a.numpy_sgemm_n,) * 2).astype(np.float32)
    nb = rng.uniform(-1, 1, (a.numpy_sgemm_n,) * 2).astype(np.float32)
    _check(np, A * nx + ny, A * nx.astype(np.float64) + ny, 1e-5, "numpy a*x+y")
    _check(np, na @ nb, na.astype(np.float64) @ nb, 1e-4 * a.numpy_sgemm_n, "numpy a @ b")
    timed[f"numpy a*x+y n={a.numpy_saxpy_n}"] = _ms(lambda: A * nx + ny)
    timed[f"numpy a @ b n={a.numpy_sgemm_n}"] = _ms(lambda: na @ nb)

    # The checked call before each row is its warm-up (the simulator compiles nothing; numpy's
    # first call touches its buffers): another untimed round would cost ~10 s for nothing.
    for name, o in interleave(timed, a.reps).items():
        rows[name] = {"error": o.failure} if o.failure else {"samples": o.samples}
    # The last timed results must still be right (the simulator reuses the same output arrays).
    for name, (got, ref, tol) in {
            saxpy_name: (lambda: do.copy_to_host(), lambda: A * x.astype(np.float64) + y, 1e-5),
            sgemm_name: (lambda: dc.copy_to_host(), lambda: am.astype(np.float64) @ bm, 1e-4 * m)}.items():
        if name in timed and "samples" in rows.get(name, {}):
            try:
                _check(np, got(), ref(), tol, name + " (after timing)")
            except Exception as exc:
                rows[name] = {"error": describe(exc)}
    print(json.dumps(out))
    return 0


def _check(np, got, ref, tol, what):
    err = float(np.max(np.abs(got.astype(np.float64) - ref)))
    if not err <= tol:  # NaN (the poison) fails this too
        raise WrongResult(f"{what}: max |got - ref| = {err:g} > {tol:g}")


def _ms(fn):
    def sample():
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * 1e3
    return sample


def _blas(np) -> str:
    try:
        cfg = np.show_config(mode="dicts")
        b = cfg["Build Dependencies"]["blas"]
        return f"{b.get('name')} {b.get('version')}"
    except Exception:
        return ""


if __name__ == "__main__":
    sys.exit(main())

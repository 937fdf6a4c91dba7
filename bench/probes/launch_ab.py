"""Launch cost of whichever xcuda `import xcuda` finds, against CuPy's RawKernel on the same cubin
in the same process: the A/B of two trees (issue: "launches as cheap as before the new hooks").
Run it once per tree, alternating, each tree's package first on PYTHONPATH; compare the ratios
(xcuda / CuPy), which cancel most of the card's and the host's drift between runs.
Prints one JSON line: xcuda's file, ns per call (median, min, max) for each, and the ratio.
usage: python3 bench/probes/launch_ab.py [--reps 15] [--iters 20000]"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/: the same saxpy and timing helpers as part 1

from peers import SAXPY, xcuda_compile  # noqa: E402
from timing import host_ns_per_call, interleave  # noqa: E402

N, BLOCK = 1 << 12, 256
GRID = (N + BLOCK - 1) // BLOCK


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--iters", type=int, default=20000)
    args = ap.parse_args()
    import cupy as cp
    import numpy as np
    import xcuda

    module = xcuda_compile(xcuda, SAXPY)  # sm_90, as part 1 builds it
    kernel = module.kernels["saxpy"]
    cubin = os.path.join(tempfile.mkdtemp(prefix="xcuda-launch-ab-"), "saxpy.cubin")
    with open(cubin, "wb") as f:
        f.write(bytes(module.cubin))
    raw = cp.RawModule(path=cubin).get_function("saxpy")
    stream = cp.cuda.Stream(non_blocking=True)
    x, y = (cp.asarray(np.random.default_rng(s).standard_normal(N, dtype=np.float32)) for s in (1, 2))
    out_x, out_c = cp.empty_like(x), cp.empty_like(x)
    n32 = np.int32(N)
    launch_x = kernel[GRID, BLOCK, 0, stream.ptr]

    def xcuda_call():
        launch_x(x, y, out_x, N)

    def cupy_call():
        raw((GRID,), (BLOCK,), (x, y, out_c, n32))

    ref = 2.0 * cp.asnumpy(x).astype(np.float64) + cp.asnumpy(y)
    with stream:
        xcuda_call()
        cupy_call()
    stream.synchronize()
    for name, out in (("xcuda", out_x), ("cupy", out_c)):
        err = float(np.max(np.abs(cp.asnumpy(out) - ref)))
        if not err <= 1e-5:
            raise SystemExit(f"{name}'s saxpy is wrong: max |out - ref| = {err:g}")

    def timed(call):
        def block():
            with stream:
                for _ in range(1000):  # warm
                    call()
                ns = host_ns_per_call(call, args.iters)
            stream.synchronize()
            return ns
        return block

    outcomes = interleave({"xcuda": timed(xcuda_call), "cupy": timed(cupy_call)}, args.reps)
    row = {"module": xcuda.__file__}  # which tree's wheel ran (run-on-device.sh's launch-ab labels by it)
    for name, o in outcomes.items():
        if o.failure:
            raise SystemExit(f"{name}: {o.failure}")
        row[name] = {"median": statistics.median(o.samples), "min": min(o.samples), "max": max(o.samples)}
    row["ratio"] = row["xcuda"]["median"] / row["cupy"]["median"]
    print(json.dumps(row))


if __name__ == "__main__":
    main()

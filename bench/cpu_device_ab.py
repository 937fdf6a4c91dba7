"""Two builds of xcuda's CPU device on the same kernels, sample by sample: A/B for an engine change.

    python3 bench/cpu_device_ab.py --a /work/main/build/python --b build/python [--reps 15] [--json FILE]

Each build runs in a child process of its own (one Python process can import one xcuda), with
bench/cpu_device.py's saxpy (2^20) and 512x512 SGEMM and its inputs, results checked against
numpy first. The parent asks the two children for one sample at a time, alternately (which goes
first rotates), so that both builds meet the same load: on a machine other jobs share, a median
per build over a whole run is swayed by whatever else ran then, a ratio of paired samples much
less. Each sample is timed in wall time and in the child's CPU time (every thread of the process:
the workers' time, which other jobs inflate less than wall time). Rows: checks on and off; saxpy
and SGEMM as cpu_device.py launches them (each launch stores the values already in the output),
and again with each launch storing new values (the scale `a`, or B, alternates).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = [(kernel, checks, changing) for kernel in ("saxpy", "sgemm") for changing in (False, True)
        for checks in (True, False)]


def row_name(kernel, checks, changing):
    what = "saxpy 2^20, DeviceArrays" if kernel == "saxpy" else "sgemm 512x512, 16x16 tiles"
    stores = "new values each launch" if changing else "as bench/cpu_device.py"
    return f"{what} ({stores}) [checks {'on' if checks else 'off'}]"


def child(path):
    """Serves samples: reads `kernel checks changing` lines, answers `wall cpu` (seconds)."""
    sys.path.insert(0, path)
    sys.path.insert(0, HERE)
    import numpy as np
    import xcuda
    import cpu_device as cd
    xcuda.set_device("cpu")
    k = xcuda.compile(cd.SOURCE).kernels
    rng = np.random.default_rng(8)
    sx = cd._saxpy_inputs(xcuda, np, k, rng, cd.SAXPY_N)
    sg = cd._sgemm_inputs(xcuda, np, k, rng, cd.SGEMM_N)
    other_b = xcuda.to_device(rng.uniform(-1, 1, (cd.SGEMM_N, cd.SGEMM_N)).astype(np.float32))
    da, db = xcuda.to_device(sg.a), xcuda.to_device(sg.b)
    dx, dy = xcuda.to_device(sx.x), xcuda.to_device(sx.y)
    m, tile, grid, n = cd.SGEMM_N, cd.TILE, sx.grid, cd.SAXPY_N
    for checks in (True, False):  # the checked call is the warm-up, as in cpu_device.py
        xcuda.cpu_checks(checks)
        sx.launch()
        sg.launch()
        xcuda.synchronize()
        cd._check(np, sx.out.get(), sx.ref, 1e-5, "saxpy")
        cd._check(np, sg.out.get(), sg.ref, 1e-4 * m, "sgemm")
    flip = [0]

    def launch(kernel, changing):
        if not changing:
            (sx.launch if kernel == "saxpy" else sg.launch)()
            return
        flip[0] ^= 1
        if kernel == "saxpy":
            k["saxpy"][grid, cd.BLOCK](cd.A + flip[0], dx, dy, sx.out, n)
        else:
            k["sgemm"][(m // tile, m // tile), (tile, tile)](da, other_b if flip[0] else db, sg.out, m)

    print("ready", flush=True)
    for line in sys.stdin:
        kernel, checks, changing = line.split()
        xcuda.cpu_checks(checks == "1")
        w0, c0 = time.perf_counter(), time.process_time()
        launch(kernel, changing == "1")
        xcuda.synchronize()
        print(f"{time.perf_counter() - w0} {time.process_time() - c0}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", required=True, help="directory holding build A's xcuda module (the baseline)")
    p.add_argument("--b", required=True, help="directory holding build B's xcuda module")
    p.add_argument("--reps", type=int, default=15, help="paired samples per row (default 15)")
    p.add_argument("--json", help="write the rows here too")
    p.add_argument("--child", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child(a.child)
    procs = {}
    for side, path in (("A", a.a), ("B", a.b)):
        procs[side] = subprocess.Popen([sys.executable, __file__, "--a", a.a, "--b", a.b, "--child", path],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for side, proc in procs.items():
        for line in proc.stdout:  # what xcuda says first (the device it runs on), then ready
            if line.strip() == "ready":
                break
        else:
            raise SystemExit(f"build {side} did not start (see its error above)")
    samples = {r: {"A": [], "B": []} for r in ROWS}
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start; {a.reps} paired samples per row",
          flush=True)
    for rep in range(a.reps):
        for i, r in enumerate(ROWS):
            order = ("A", "B") if (rep + i) % 2 == 0 else ("B", "A")
            for side in order:
                proc = procs[side]
                proc.stdin.write(f"{r[0]} {int(r[1])} {int(r[2])}\n")
                proc.stdin.flush()
                wall, cpu = map(float, proc.stdout.readline().split())
                samples[r][side].append((wall, cpu))
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    out = []
    print(f"{'row':62s} {'A wall':>9s} {'B wall':>9s} {'B/A':>6s} {'paired':>6s} {'A cpu':>9s} {'B cpu':>9s} {'B/A':>6s}")
    for r in ROWS:
        sa, sb = samples[r]["A"], samples[r]["B"]
        med = lambda xs, j: statistics.median(x[j] for x in xs)  # noqa: E731
        paired = statistics.median(b[0] / x[0] for x, b in zip(sa, sb))
        row = {"row": row_name(*r), "a_wall_s": med(sa, 0), "b_wall_s": med(sb, 0), "a_cpu_s": med(sa, 1),
               "b_cpu_s": med(sb, 1), "paired_wall_ratio": paired, "n": len(sa)}
        out.append(row)
        print(f"{row['row']:62s} {row['a_wall_s']:9.4f} {row['b_wall_s']:9.4f} "
              f"{row['b_wall_s'] / row['a_wall_s']:6.3f} {paired:6.3f} {row['a_cpu_s']:9.4f} {row['b_cpu_s']:9.4f} "
              f"{row['b_cpu_s'] / row['a_cpu_s']:6.3f}")
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"a": a.a, "b": a.b, "rows": out}, f, indent=1)


if __name__ == "__main__":
    main()

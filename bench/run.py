#!/usr/bin/env python3
"""One command for every benchmark against the peers: runs the parts that apply on this machine,
prints a table last, and writes bench/results/<date>-<device>.md and .json.

    PYTHONPATH=build-gpu/magics python3 bench/run.py --out bench/results
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import signal
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import peers  # noqa: E402
import report  # noqa: E402
from timing import describe  # noqa: E402

PARTS = ("launch", "compile", "bandwidth", "transfer", "startup", "graphs", "counters", "cpu")
# `cpu` (the CPU device against numpy and numba's simulator, ~3 min of the host's cores) runs
# only when asked for: the default run is the GPU machine's, whose timings it would not share.
DEFAULT_PARTS = tuple(p for p in PARTS if p != "cpu")
MODULES = {"cpu": "cpu_device"}  # part name -> module, where they differ


class Config:
    def __init__(self, a: argparse.Namespace):
        self.quick = a.quick
        self.launch_iters = a.launch_iters or (5000 if a.quick else 20000)
        self.launch_reps = a.launch_reps or (3 if a.quick else 15)
        self.launch_warm = max(300, a.launch_warm)
        self.graph_iters = 200 if a.quick else 1000   # calls of 100 kernels per sample
        self.compile_trials = a.compile_trials or (3 if a.quick else 7)
        self.bw_reps = a.bw_reps or (11 if a.quick else 21)
        self.bw_bytes = a.bw_gib * (1 << 30)
        self.transfer_reps = 5 if a.quick else 15
        self.startup_reps = 2 if a.quick else 3
        self.kernel_cmd = a.kernel_cmd
        self.jupyter_python = a.jupyter_python
        self.cupy_kernel_cmd = a.cupy_kernel_cmd
        self.floor_cc = a.floor_cc
        self.cpu_reps = 7 if a.quick else 15
        self.sim_reps = 5 if a.quick else 7      # numba's simulator: ~15 s a repeat
        self.numba_python = a.numba_python


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer repeats (whole run under 2 minutes)")
    p.add_argument("--only", default=",".join(DEFAULT_PARTS),
                   help=f"comma-separated parts to run, from {','.join(PARTS)} (default: all but cpu)")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                   help="directory for <date>-<device>.md and .json (default: bench/results)")
    p.add_argument("--xcuda-path", help="directory holding the built xcuda module (else PYTHONPATH)")
    p.add_argument("--launch-iters", type=int, help="launches per timed block (default 20000; quick 5000)")
    p.add_argument("--launch-reps", type=int, help="timed blocks per peer (default 15; quick 3)")
    p.add_argument("--launch-warm", type=int, default=300, help="warm-up launches per peer (at least 300)")
    p.add_argument("--compile-trials", type=int, help="unique sources per compile peer (default 7; quick 3)")
    p.add_argument("--bw-reps", type=int, help="timed runs per bandwidth peer (default 21; quick 11)")
    p.add_argument("--bw-gib", type=int, default=1, help="GiB per bandwidth array (default 1)")
    p.add_argument("--floor-cc", help="compiler for launch_floor.cpp (default: nvcc, else g++)")
    p.add_argument("--numba-python",
                   help="for part cpu: a Python with numba for its CUDA simulator (default: build/bench-venv/bin/python)")
    p.add_argument("--kernel-cmd",
                   help="command that starts the xcuda Jupyter kernel; must contain {connection_file} "
                        "(part 5 runs only when given)")
    p.add_argument("--jupyter-python",
                   help="a Python with jupyter_client and ipykernel for part 5 when this one lacks them; "
                        "a command line that runs one works too (e.g. 'env PYTHONHOME=/usr /usr/bin/python3.11'). "
                        "The ipykernel peer runs on that Python")
    p.add_argument("--cupy-kernel-cmd",
                   help="command that starts ipykernel in a Python that has CuPy, with {connection_file}, "
                        "for part 5's CuPy peer (default: ipykernel of the --jupyter-python Python)")
    a = p.parse_args(argv)
    a.only = [s.strip() for s in a.only.split(",") if s.strip()]
    bad = [s for s in a.only if s not in PARTS]
    if bad:
        p.error(f"--only {','.join(bad)}: unknown part; choose from {','.join(PARTS)}")
    return a


class Terminated(BaseException):
    """SIGTERM (the caller's time limit, e.g. `timeout`): the running part stops, the rest are
    skipped, and the rows measured so far are still written."""


def _terminate(signum, frame):
    raise Terminated(f"stopped by signal {signum} (the caller's time limit?); later parts were not run")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    cfg = Config(a)
    started = time.time()
    signal.signal(signal.SIGTERM, _terminate)
    # Fresh compile caches for the whole run, set before anything compiles: cold numbers
    # start cold, and the user's own caches are neither read nor filled.
    os.environ["XDG_CACHE_HOME"] = peers.fresh_dir("xdg")
    os.environ["CUPY_CACHE_DIR"] = peers.fresh_dir("cupy")
    env = peers.Env(a.xcuda_path)
    res = report.Results()
    now = datetime.datetime.now(datetime.timezone.utc)
    dev = peers.device_info(env)
    command = " ".join(shlex.quote(x) for x in [sys.executable, sys.argv[0], *argv])
    if os.environ.get("PYTHONPATH"):
        command = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " + command
    res.meta.update({
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "device": dev.get("device", "?"),
        "driver": dev.get("driver", "?"),
        "command": command,
        "cwd": os.getcwd(),
        "host": os.uname().nodename,
        "mode": "quick" if cfg.quick else "full",
        "parts": ",".join(a.only),
        "compile caches": f"XDG_CACHE_HOME={os.environ['XDG_CACHE_HOME']} "
                          f"CUPY_CACHE_DIR={os.environ['CUPY_CACHE_DIR']}",
        "device details": dev,
        "versions": peers.versions(env),
        "changes to peers' libraries": "; ".join(env.shims) or "none",
    })
    print(f"# xcuda benchmarks on {res.meta['device']} (driver {res.meta['driver']}), {res.meta['date']}")
    if env.xcuda is None:
        print(f"ERROR: xcuda unavailable, its rows will say so: {env.why('xcuda')}")
    for part in a.only:
        t0 = time.time()
        print(f"\n== {part} ...", flush=True)
        try:
            module = __import__(MODULES.get(part, part))
            module.run(env, res, cfg)
        except Exception as exc:  # a part that crashes is a row, and the other parts still run
            res.fail_part(part, "-", report.ERROR, describe(exc))
            traceback.print_exc()
        except Terminated as exc:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # let the files be written
            res.fail_part(part, "-", report.ERROR, str(exc))
            print(f"== {part}: {exc}", flush=True)
            break
        print(f"== {part} done in {time.time() - t0:.1f} s", flush=True)
    res.meta["elapsed s"] = round(time.time() - started, 1)
    slug = re.sub(r"[^a-z0-9]+", "-", str(res.meta["device"]).lower()).strip("-") or "unknown"
    stem = f"{now.strftime('%Y-%m-%d-%H%M')}-{slug}"
    paths = report.write(res, a.out, stem)
    report.print_final(res)
    print(f"\nwritten: {', '.join(paths)}  (elapsed {res.meta['elapsed s']} s)")
    return 1 if res.errors() else 0


if __name__ == "__main__":
    sys.exit(main())

"""Part 2: compile. Cold xcuda.compile vs cuda.core Program.compile(cubin)+get_kernel vs
CuPy RawKernel cold vs nvcc -cubin vs an nvcc4jupyter-style program (nvcc to an
executable, then run it); memory-cache hit; disk hit after a restart vs CuPy's; a
header-heavy cell with and without NVRTC precompiled headers. Runs on a CPU-only
machine too: peers that need a GPU say so in their rows."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import peers
from peers import ARCH, CUDA_HOME, HEAVY, NVCC, SAXPY, fresh_dir, run_checked, salted
from report import ERROR, UNAVAILABLE
from timing import describe, interleave

PART = "compile"
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
INCLUDES = [os.path.join(CUDA_HOME, "include"), os.path.join(CUDA_HOME, "include", "cccl")]

COLD_X = "xcuda.compile cold + module load"
COLD_CORE = "cuda.core Program.compile(cubin) + get_kernel"
COLD_CUPY = "CuPy RawKernel cold (fresh CUPY_CACHE_DIR)"
NVCC_CUBIN = "nvcc -cubin subprocess"
NVCC_PROG = "nvcc4jupyter-style: nvcc to exe + run"
NVCC_BUILD = "nvcc4jupyter-style: nvcc to exe (build only)"
FIRST_X = "xcuda.compile first in process"
FIRST_CORE = "cuda.core compile first in process"
MEM_X = "xcuda memory hit (same source again)"
MEM_CUPY = "CuPy memory hit (new RawKernel, same source)"
DISK_X = "xcuda disk hit after restart"
DISK_CUPY = "CuPy disk hit after restart"
HX_NO = "xcuda header-heavy, no PCH"
HX_FIRST = "xcuda header-heavy, -pch first (creates PCH)"
HX_PCH = "xcuda header-heavy, -pch recompile"
HC_NO = "cuda.core header-heavy, no PCH"
HC_PCH = "cuda.core header-heavy, pch recompile"

PROGRAM_MAIN = r'''
#include <cstdio>
#include <cuda_runtime.h>
int main() {
    const int n = 1 << 20;
    float *x, *y, *out;
    if (cudaMallocManaged(&x, n * sizeof(float)) != cudaSuccess) { std::printf("no device\n"); return 2; }
    cudaMallocManaged(&y, n * sizeof(float));
    cudaMallocManaged(&out, n * sizeof(float));
    for (int i = 0; i < n; ++i) { x[i] = i * 0.5f; y[i] = 1.0f; }
    saxpy<<<(n + 255) / 256, 256>>>(x, y, out, n);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); return 1; }
    std::printf("%f %f\n", out[0], out[n - 1]);
    return 0;
}
'''


def _salt() -> str:
    return uuid.uuid4().hex


def _core_options(core, **kw):
    return core.ProgramOptions(arch=ARCH, include_path=INCLUDES, **kw)


def _core_compile(env, src: str, get_kernel: bool, **kw):
    core = env.cuda_core
    obj = core.Program(src, "c++", _core_options(core, **kw)).compile("cubin")
    if get_kernel:
        obj.get_kernel("saxpy" if "saxpy" in src else "norm_rows")
    return obj


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def _child(code: str, env_extra: dict, timeout: float = 300) -> dict:
    """Run `code` in a fresh Python (same interpreter, same sys.path); it prints one JSON line."""
    env = dict(os.environ)
    env.update(env_extra)
    env["PYTHONPATH"] = os.pathsep.join([BENCH_DIR] + [p for p in sys.path if p])
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"child exited {p.returncode}: {(p.stderr or p.stdout).strip()[-800:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(env, res, cfg) -> None:
    trials = cfg.compile_trials
    gpu = env.has_gpu
    xc = env.xcuda
    core = env.cuda_core
    cp = env.cp
    if gpu and core is not None:
        core.Device(0).set_current()

    # ---- warm every in-process compiler once so that cold trials exclude first-use costs
    peers_cold = {}
    if xc is not None:
        def xcuda_cold():
            # xcuda fixes its cache directory at its first compile (run.py points XDG_CACHE_HOME
            # at a fresh one before that); a unique source misses memory and disk alike.
            src = salted(SAXPY, _salt())
            t0 = time.perf_counter()
            module = peers.xcuda_compile(xc, src)
            peers.xcuda_loaded_kernel(module, "saxpy", gpu)
            ms = (time.perf_counter() - t0) * 1e3
            peers.expect_cache(module, "none")
            return ms
        peers_cold[COLD_X] = xcuda_cold
    else:
        res.fail(PART, COLD_X, "ms", ERROR, env.why("xcuda"))
    if core is not None:
        peers_cold[COLD_CORE] = lambda: _timed(lambda: _core_compile(env, salted(SAXPY, _salt()), gpu))
    else:
        res.fail(PART, COLD_CORE, "ms", UNAVAILABLE, env.why("cuda.core"))
    if gpu:
        def cupy_cold():
            os.environ["CUPY_CACHE_DIR"] = fresh_dir("cupy")
            src = salted(SAXPY, _salt())
            return _timed(lambda: cp.RawKernel(src, "saxpy").kernel)
        peers_cold[COLD_CUPY] = cupy_cold
    else:
        res.fail(PART, COLD_CUPY, "ms", UNAVAILABLE, env.gpu_reason)

    def nvcc_cubin():
        d = fresh_dir("nvcc")
        return _timed(lambda: peers.nvcc_cubin(salted(SAXPY, _salt()), d))
    peers_cold[NVCC_CUBIN] = nvcc_cubin

    build_samples = []

    def nvcc_program():
        d = fresh_dir("nvcc4j")
        cu, exe = os.path.join(d, "cell.cu"), os.path.join(d, "cell")
        with open(cu, "w") as f:
            f.write(salted(SAXPY + PROGRAM_MAIN, _salt()))
        t0 = time.perf_counter()
        run_checked([NVCC, f"-arch={ARCH}", "-o", exe, cu])
        build_samples.append((time.perf_counter() - t0) * 1e3)
        if not gpu:
            return build_samples[-1]  # recorded as the build-only row; the run row says why not
        p = run_checked([exe])
        # out[0] = 2 * 0 + 1 and out[n-1] = 2 * (n-1) * 0.5 + 1 = n
        if p.stdout.strip() != "1.000000 1048576.000000":
            raise RuntimeError(f"the program printed {p.stdout.strip()!r}, expected '1.000000 1048576.000000'")
        return (time.perf_counter() - t0) * 1e3
    peers_cold[NVCC_PROG] = nvcc_program

    if xc is not None:
        try:
            res.meta["xcuda NVRTC options"] = " ".join(peers.xcuda_compile(xc, SAXPY).options)
        except Exception as exc:
            res.meta["xcuda NVRTC options"] = "unavailable: " + describe(exc)
    for name, fn in list(peers_cold.items()):
        if name in (NVCC_CUBIN, NVCC_PROG):
            continue
        try:
            fn()  # first use in this process: not a cold-compile sample
        except Exception as exc:
            res.fail(PART, name, "ms", ERROR if name == COLD_X else UNAVAILABLE, describe(exc))
            del peers_cold[name]
    out = interleave(peers_cold, trials)
    for name, o in out.items():
        if name == NVCC_PROG and build_samples:
            res.add(PART, NVCC_BUILD, "ms", build_samples)
        if name == NVCC_PROG and not gpu:
            res.fail(PART, name, "ms", UNAVAILABLE, f"the run needs a GPU: {env.gpu_reason}")
        elif o.failure:
            res.fail(PART, name, "ms", ERROR if name == COLD_X else UNAVAILABLE, o.failure)
        else:
            res.add(PART, name, "ms", o.samples, note="unique source per trial")

    _first_in_process(env, res, cfg)
    _memory_hit(env, res, cfg)
    _disk_hit(env, res, cfg)
    _header_heavy(env, res, cfg)

    res.goal(PART, "cold <= 1.0x cuda.core", COLD_X, COLD_CORE, "<=", 1.0)
    res.goal(PART, "cold <= 0.08x nvcc -cubin", COLD_X, NVCC_CUBIN, "<=", 0.08)
    res.goal(PART, "memory hit <= 0.1 ms of compile work", MEM_X, "ms", "<=", 0.1, absolute=True)
    res.goal(PART, "disk hit <= 1.0x CuPy's", DISK_X, DISK_CUPY, "<=", 1.0)
    res.goal(PART, "header-heavy recompile with PCH <= 0.35x without", HX_PCH, HX_NO, "<=", 0.35)


FIRST_CODE = r'''
import json, os, sys, time, uuid
import peers
from peers import SAXPY, salted
which = os.environ["BENCH_WHICH"]
env = peers.Env(None, want=[which])
def one():
    src = salted(SAXPY, uuid.uuid4().hex)
    t0 = time.perf_counter()
    if which == "xcuda":
        peers.xcuda_loaded_kernel(peers.xcuda_compile(env.xcuda_or_raise(), src), "saxpy", env.has_gpu)
    else:
        core = env.cuda_core
        if env.has_gpu:
            core.Device(0).set_current()
        obj = core.Program(src, "c++", core.ProgramOptions(arch=peers.ARCH)).compile("cubin")
        if env.has_gpu:
            obj.get_kernel("saxpy")
    return (time.perf_counter() - t0) * 1e3
print(json.dumps({"first": one(), "second": one()}))
'''


def _first_in_process(env, res, cfg) -> None:
    runs = max(1, cfg.compile_trials // 2)
    for which, name, avail in (("xcuda", FIRST_X, env.xcuda is not None),
                               ("cuda.core", FIRST_CORE, env.cuda_core is not None)):
        if not avail:
            res.fail(PART, name, "ms", ERROR if which == "xcuda" else UNAVAILABLE, env.why(which))
            continue
        try:
            samples = []
            for _ in range(runs):
                r = _child(FIRST_CODE, {"BENCH_WHICH": which, "XDG_CACHE_HOME": fresh_dir("xdg")})
                samples.append(r["first"])
            res.add(PART, name, "ms", samples, note="fresh process, after import; includes context set-up on a GPU")
        except Exception as exc:
            res.fail(PART, name, "ms", ERROR if which == "xcuda" else UNAVAILABLE, describe(exc))


def _memory_hit(env, res, cfg) -> None:
    reps = 200 if not cfg.quick else 50
    if env.xcuda is None:
        res.fail(PART, MEM_X, "ms", ERROR, env.why("xcuda"))
    else:
        try:
            src = salted(SAXPY, _salt())
            peers.xcuda_kernel(peers.xcuda_compile(env.xcuda, src), "saxpy")
            samples = [_timed(lambda: peers.xcuda_kernel(peers.xcuda_compile(env.xcuda, src), "saxpy"))
                       for _ in range(reps)]
            peers.expect_cache(peers.xcuda_compile(env.xcuda, src), "memory")
            res.add(PART, MEM_X, "ms", samples, note="whole call incl. Python binding")
        except Exception as exc:
            res.fail(PART, MEM_X, "ms", ERROR, describe(exc))
    if not env.has_gpu:
        res.fail(PART, MEM_CUPY, "ms", UNAVAILABLE, env.gpu_reason)
        return
    try:
        cp = env.cp
        src = salted(SAXPY, _salt())
        cp.RawKernel(src, "saxpy").kernel
        samples = [_timed(lambda: cp.RawKernel(src, "saxpy").kernel) for _ in range(reps)]
        res.add(PART, MEM_CUPY, "ms", samples)
    except Exception as exc:
        res.fail(PART, MEM_CUPY, "ms", UNAVAILABLE, describe(exc))


DISK_CODE = r'''
import json, os, sys, time, uuid
import peers
from peers import SAXPY, salted
which, mode = os.environ["BENCH_WHICH"], os.environ["BENCH_MODE"]
env = peers.Env(None, want=[which])
salts = os.environ["BENCH_SALTS"].split(",")
if which == "xcuda":
    xc = env.xcuda_or_raise()
    def load(src):
        module = peers.xcuda_compile(xc, src)
        peers.xcuda_loaded_kernel(module, "saxpy", env.has_gpu)
        return module
else:
    cp = env.cp
    load = lambda src: cp.RawKernel(src, "saxpy").kernel
if mode == "hit":
    load(salted(SAXPY, uuid.uuid4().hex))   # a miss: first use of the compiler and the context
out = []
for s in salts:
    t0 = time.perf_counter()
    got = load(salted(SAXPY, s))
    out.append((time.perf_counter() - t0) * 1e3)
    if which == "xcuda":
        peers.expect_cache(got, "disk" if mode == "hit" else "none")
print(json.dumps(out))
'''


def disk_hit_plan(names, procs: int, entries: int, salt=_salt):
    """Which fresh process loads which entries, in order (performance.md: interleave, several
    processes, median): every peer gets `procs` hit processes of `entries` loads each, the peers
    alternate and the first one rotates per round, so no peer always runs first or straight
    after a fill. Returns ({name: every salt its fill process compiles}, [(name, salts), ...])."""
    names = list(names)
    groups = {n: [[salt() for _ in range(entries)] for _ in range(procs)] for n in names}
    runs = []
    for r in range(procs):
        k = r % len(names) if names else 0
        runs += [(n, groups[n][r]) for n in names[k:] + names[:k]]
    return {n: [s for g in groups[n] for s in g] for n in names}, runs


def _disk_hit(env, res, cfg) -> None:
    # Every step runs in a fresh process: xcuda fixes its cache directory at its first compile,
    # so this process (which has compiled already) cannot be pointed at another one. One fill
    # per peer, then the hit processes of both peers alternate; each times its loads after one
    # miss (the compiler's and the context's first use), and xcuda's must say cache='disk'.
    procs, entries = (2, 5) if cfg.quick else (3, 7)
    avail = {}
    for which, name, ok, why, var in (
            ("xcuda", DISK_X, env.xcuda is not None, env.why("xcuda"), "XDG_CACHE_HOME"),
            ("cupy", DISK_CUPY, env.has_gpu, env.gpu_reason, "CUPY_CACHE_DIR")):
        if ok:
            avail[which] = (name, var, fresh_dir(which + "-disk"))
        else:
            res.fail(PART, name, "ms", ERROR if which == "xcuda" else UNAVAILABLE, why)
    fills, runs = disk_hit_plan(avail, procs, entries)
    samples, failed = {w: [] for w in avail}, {}

    def child(which, salts, mode):
        _, var, d = avail[which]
        return _child(DISK_CODE, {"BENCH_WHICH": which, "BENCH_SALTS": ",".join(salts), "BENCH_MODE": mode, var: d})
    for which, salts in fills.items():
        try:
            child(which, salts, "fill")
            _, var, d = avail[which]
            if not any(files for _, _, files in os.walk(d)):
                raise RuntimeError(f"nothing was written under {var}={d}: no disk cache to hit")
        except Exception as exc:
            failed[which] = describe(exc)
    for which, salts in runs:
        if which in failed:
            continue
        try:
            samples[which] += child(which, salts, "hit")
        except Exception as exc:
            failed[which] = describe(exc)
    for which, (name, var, _) in avail.items():
        if which in failed:
            res.fail(PART, name, "ms", ERROR if which == "xcuda" else UNAVAILABLE, failed[which])
        else:
            res.add(PART, name, "ms", samples[which],
                    note=f"{procs} fresh processes x {entries} loads, each after one miss; same {var} "
                         "as the fill; peers alternate")


def _header_heavy(env, res, cfg) -> None:
    trials = cfg.compile_trials
    inc = [f"-I{p}" for p in INCLUDES]
    fns = {}
    if env.xcuda is not None:
        pch_dir = fresh_dir("xcuda-pch")
        pch = inc + ["-pch", f"--pch-dir={pch_dir}"]
        try:
            ms = _timed(lambda: peers.xcuda_compile(env.xcuda, salted(HEAVY, _salt()), pch))
            res.add(PART, HX_FIRST, "ms", [ms], note=f"PCH files: {sorted(os.listdir(pch_dir))}")
            fns[HX_NO] = lambda: _timed(lambda: peers.xcuda_compile(env.xcuda, salted(HEAVY, _salt()), inc))
            fns[HX_PCH] = lambda: _timed(lambda: peers.xcuda_compile(env.xcuda, salted(HEAVY, _salt()), pch))
        except Exception as exc:
            for n in (HX_FIRST, HX_NO, HX_PCH):
                res.fail(PART, n, "ms", ERROR, describe(exc))
    else:
        for n in (HX_FIRST, HX_NO, HX_PCH):
            res.fail(PART, n, "ms", ERROR, env.why("xcuda"))
    if env.cuda_core is not None:
        core_dir = fresh_dir("core-pch")
        try:
            _core_compile(env, salted(HEAVY, _salt()), False, pch=True, pch_dir=core_dir)
            fns[HC_NO] = lambda: _timed(lambda: _core_compile(env, salted(HEAVY, _salt()), False))
            fns[HC_PCH] = lambda: _timed(lambda: _core_compile(env, salted(HEAVY, _salt()), False,
                                                               pch=True, pch_dir=core_dir))
        except Exception as exc:
            for n in (HC_NO, HC_PCH):
                res.fail(PART, n, "ms", UNAVAILABLE, describe(exc))
    else:
        for n in (HC_NO, HC_PCH):
            res.fail(PART, n, "ms", UNAVAILABLE, env.why("cuda.core"))
    for name, o in interleave(fns, trials).items():
        if o.failure:
            res.fail(PART, name, "ms", ERROR if name.startswith("xcuda") else UNAVAILABLE, o.failure)
        else:
            res.add(PART, name, "ms", o.samples, note="unique source per trial, compile only")

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

import cuda_cell
import peers
from peers import ARCH, CUDA_HOME, HEAVY, MATMUL, MATMUL_THREADS, MATMUL_TILE, NVCC, SAXPY, fresh_dir, run_checked, salted
from report import ERROR, SKIPPED, UNAVAILABLE, WRONG
from timing import EventTimer, describe, interleave

PART = "compile"
BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
INCLUDES = [os.path.join(CUDA_HOME, "include"), os.path.join(CUDA_HOME, "include", "cccl")]

COLD_X = "xcuda.compile cold + module load"
COLD_CORE = "cuda.core Program.compile(cubin) + get_kernel"
COLD_CUPY = "CuPy RawKernel cold (fresh CUPY_CACHE_DIR)"
NVCC_CUBIN = "nvcc -cubin subprocess"
NVCC_PROG = "nvcc4jupyter-style: nvcc to exe + run"
NVCC_BUILD = "nvcc4jupyter-style: nvcc to exe (build only)"
COLD_CELL = "%%cuda cell cold (IPython run_cell)"
COLD_CELL_CPU = "%%cuda cell cold: process CPU time"
CELL_RERUN = "%%cuda cell unchanged re-run"
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
# --fast-compile: what each build takes to compile, and what its kernel then takes to run.
FAST_BUILDS = {"default": {}, "max": {"fast_compile": True}, "mid": {"fast_compile": "mid"}}  # xcuda.compile keywords
FC = {"default": "xcuda matmul cell, default compile", "max": "xcuda matmul cell, --fast-compile (max)",
      "mid": "xcuda matmul cell, --fast-compile=mid"}
FK = {"default": "matmul kernel, default build", "max": "matmul kernel, --fast-compile (max) build",
      "mid": "matmul kernel, --fast-compile=mid build"}
MATMUL_N = 2048
MEM_BLOCK = 200  # calls per memory-hit sample: one call (~2 us) is too short for the clock

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
    cell_cpu_samples, cell = [], None
    if xc is not None:
        try:
            cell = cuda_cell.CellRunner()
        except Exception as exc:
            res.fail(PART, COLD_CELL, "ms", ERROR, "IPython with the xcuda extension: " + describe(exc))

    if cell is not None:
        def cell_cold():
            wall, cpu = cell.run(salted(SAXPY, _salt()), cuda_cell.COMPILED)
            cell_cpu_samples.append(cpu)
            return wall
        peers_cold[COLD_CELL] = cell_cold
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
            res.fail(PART, name, "ms", ERROR if name in (COLD_X, COLD_CELL) else UNAVAILABLE, describe(exc))
            del peers_cold[name]
    out = interleave(peers_cold, trials)
    for name, o in out.items():
        if name == NVCC_PROG and build_samples:
            res.add(PART, NVCC_BUILD, "ms", build_samples)
        if name == NVCC_PROG and not gpu:
            res.fail(PART, name, "ms", UNAVAILABLE, f"the run needs a GPU: {env.gpu_reason}")
        elif o.failure:
            res.fail(PART, name, "ms", ERROR if name in (COLD_X, COLD_CELL) else UNAVAILABLE, o.failure)
        elif name == COLD_CELL:
            device = f"device {xc.get_device()}" if hasattr(xc, "get_device") else "the default device"
            res.add(PART, name, "ms", o.samples, note=f"unique source per trial, {device}, no kernel messages")
            res.add(PART, COLD_CELL_CPU, "ms", cell_cpu_samples[-len(o.samples):],
                    note="time.process_time() of the same cells (all threads): what a loaded machine does not inflate")
        else:
            res.add(PART, name, "ms", o.samples, note="unique source per trial")
    if cell is not None:
        _cell_rerun(cell, res, cfg)

    _first_in_process(env, res, cfg)
    _memory_hit(env, res, cfg)
    _disk_hit(env, res, cfg)
    _header_heavy(env, res, cfg)
    _fast_compile(env, res, cfg)

    res.goal(PART, "cold <= 1.0x cuda.core", COLD_X, COLD_CORE, "<=", 1.0)
    res.goal(PART, "cold <= 0.08x nvcc -cubin", COLD_X, NVCC_CUBIN, "<=", 0.08)
    res.goal(PART, "cold %%cuda cell <= 0.05x nvcc -cubin", COLD_CELL, NVCC_CUBIN, "<=", 0.05)
    res.goal(PART, "unchanged %%cuda cell re-run <= 1 ms", CELL_RERUN, "ms", "<=", 1, absolute=True)
    res.goal(PART, "memory hit <= 100 us of compile work", MEM_X, "us", "<=", 100, absolute=True)
    res.goal(PART, "memory hit <= 1.0x CuPy's", MEM_X, MEM_CUPY, "<=", 1.0)
    res.goal(PART, "disk hit <= 1.0x CuPy's", DISK_X, DISK_CUPY, "<=", 1.0)
    res.goal(PART, "header-heavy recompile with PCH <= 0.35x without", HX_PCH, HX_NO, "<=", 0.35)
    res.goal(PART, "matmul cell: --fast-compile <= 0.6x the default compile", FC["max"], FC["default"], "<=", 0.6)


FIRST_CODE = r'''
import json, os, sys, time, uuid
import cuda_cell
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


def _cell_rerun(cell, res, cfg) -> None:
    # The same cell again: the compile cache's memory hit, plus IPython's cell and the magic's
    # binding of the kernels into the namespace and its printed line.
    reps = 7 if cfg.quick else 21
    src = salted(SAXPY, _salt())
    try:
        cell.run(src, cuda_cell.COMPILED)
        samples = [cell.run(src, cuda_cell.FROM_MEMORY)[0] for _ in range(reps)]
    except Exception as exc:
        res.fail(PART, CELL_RERUN, "ms", ERROR, describe(exc))
        return
    res.add(PART, CELL_RERUN, "ms", samples, note="IPython run_cell of the same %%cuda cell, no kernel messages")


def _per_call_us(fn) -> float:
    t0 = time.perf_counter()
    for _ in range(MEM_BLOCK):
        fn()
    return (time.perf_counter() - t0) * 1e6 / MEM_BLOCK


def _memory_hit(env, res, cfg) -> None:
    # Both peers compile the same source once, then alternate: each sample is the mean of
    # MEM_BLOCK whole calls, the source and options as a re-run cell passes them again.
    reps = 7 if cfg.quick else 21
    fns = {}
    if env.xcuda is None:
        res.fail(PART, MEM_X, "us", ERROR, env.why("xcuda"))
    else:
        try:
            xc, src = env.xcuda, salted(SAXPY, _salt())
            peers.xcuda_kernel(peers.xcuda_compile(xc, src), "saxpy")
            peers.expect_cache(peers.xcuda_compile(xc, src), "memory")
            fns[MEM_X] = lambda: _per_call_us(lambda: peers.xcuda_kernel(peers.xcuda_compile(xc, src), "saxpy"))
        except Exception as exc:
            res.fail(PART, MEM_X, "us", ERROR, describe(exc))
    if not env.has_gpu:
        res.fail(PART, MEM_CUPY, "us", UNAVAILABLE, env.gpu_reason)
    else:
        try:
            cp, csrc = env.cp, salted(SAXPY, _salt())
            cp.RawKernel(csrc, "saxpy").kernel
            fns[MEM_CUPY] = lambda: _per_call_us(lambda: cp.RawKernel(csrc, "saxpy").kernel)
        except Exception as exc:
            res.fail(PART, MEM_CUPY, "us", UNAVAILABLE, describe(exc))
    for name, o in interleave(fns, reps).items():
        if o.failure:
            res.fail(PART, name, "us", ERROR if name == MEM_X else UNAVAILABLE, o.failure)
        else:
            res.add(PART, name, "us", o.samples,
                    note=f"whole call incl. the Python binding; each sample the mean of {MEM_BLOCK} calls")
    if MEM_X in fns:
        peers.expect_cache(peers.xcuda_compile(env.xcuda, src), "memory")


DISK_CODE = r'''
import json, os, sys, time, uuid
import cuda_cell
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


def _fast_compile(env, res, cfg) -> None:
    """The matmul cell compiled by default and with --fast-compile (max, mid), unique source per
    trial, builds interleaved; on a GPU, then the kernel of each build on the same n x n inputs
    (device time by events, builds interleaved), each result checked first."""
    if env.xcuda is None:
        for level in FAST_BUILDS:
            res.fail(PART, FC[level], "ms", ERROR, env.why("xcuda"))
            res.fail(PART, FK[level], "ms", ERROR, env.why("xcuda"))
        return
    xc = env.xcuda

    def build(level, salt):
        return xc.compile(salted(MATMUL, salt), arch=ARCH, **FAST_BUILDS[level])

    def timed(level):
        t0 = time.perf_counter()
        module = build(level, _salt())
        ms = (time.perf_counter() - t0) * 1e3
        peers.expect_cache(module, "none")
        return ms
    try:
        build("max", _salt())  # NVRTC's first use of the header and of the option
    except Exception as exc:
        for level in FAST_BUILDS:
            res.fail(PART, FC[level], "ms", ERROR, describe(exc))
            res.fail(PART, FK[level], "ms", ERROR, describe(exc))
        return
    for level, o in interleave({level: (lambda level=level: timed(level)) for level in FAST_BUILDS},
                               cfg.compile_trials).items():
        if o.failure:
            res.fail(PART, FC[level], "ms", ERROR, o.failure)
        else:
            res.add(PART, FC[level], "ms", o.samples, note="unique source per trial, compile only; xcuda.compile(" +
                    ", ".join(f"{k}={v!r}" for k, v in FAST_BUILDS[level].items()) + ")")
    try:
        modules = {level: build(level, "kernel") for level in FAST_BUILDS}
    except Exception as exc:
        for level in FAST_BUILDS:
            res.fail(PART, FK[level], "ms", ERROR, describe(exc))
        return
    _fast_compile_kernels(env, res, cfg, modules)


def _fast_compile_kernels(env, res, cfg, modules) -> None:
    if not env.has_gpu:
        for level in FAST_BUILDS:
            res.fail(PART, FK[level], "ms", SKIPPED, env.gpu_reason)
        return
    cp, np, n = env.cp, env.np, MATMUL_N
    stream = cp.cuda.Stream(non_blocking=True)
    timer = EventTimer(cp, stream)
    xs = peers.xcuda_stream(stream.ptr)
    with stream:
        a = cp.random.random((n, n), dtype=cp.float32)
        b = cp.random.random((n, n), dtype=cp.float32)
        c = cp.empty((n, n), dtype=cp.float32)
        ref = (a.astype(cp.float64) @ b.astype(cp.float64)).astype(cp.float32)
    stream.synchronize()
    grid = (n // MATMUL_TILE, n // MATMUL_TILE)
    fns = {}
    for level, module in modules.items():
        try:
            k = peers.xcuda_kernel(module, "matmul")
            fn = (lambda k=k: k[grid, MATMUL_THREADS, 0, xs](a, b, c, n))
            with stream:
                c.fill(np.nan)
                fn()
                ok = bool(cp.allclose(c, ref, rtol=1e-4, atol=1e-3).get())
            stream.synchronize()
            if not ok:
                res.fail(PART, FK[level], "ms", WRONG, "the product differs from float64 A @ B (NaN = unwritten)")
                continue
            fns[level] = (lambda fn=fn: timer.ms(fn))
        except Exception as exc:
            res.fail(PART, FK[level], "ms", ERROR, describe(exc))
    cost = []
    for level, o in interleave(fns, 7 if cfg.quick else 21).items():
        if o.failure:
            res.fail(PART, FK[level], "ms", ERROR, o.failure)
            continue
        row = res.add(PART, FK[level], "ms", o.samples,
                      note=f"{n} x {n} fp32, device time by events on one stream, builds interleaved")
        cost.append((level, row.median))
    if cost and cost[0][0] == "default":
        res.meta["fast-compile kernel time vs default build"] = ", ".join(
            f"{level} {ms / cost[0][1]:.2f}x" for level, ms in cost[1:])

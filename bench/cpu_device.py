"""Part `cpu`: the CPU device's speed (cuda-runtime/cpu-device, the emulator that runs NVRTC's PTX
where there is no GPU). Goals, with the device's checks on (every access bounds/alignment/
use-after-free checked, shared-memory race shadow), on the 2-core CPU machine:

- saxpy on 2^20 float32 <= 100x numpy's `a*x+y` (DeviceArrays, launch + sync; numpy arrays
  launched directly, copies in and out included, as a second row);
- a 512x512 SGEMM with 16x16 shared-memory tiles <= 2 s;
- >= 100x faster than numba's CUDA simulator on the same kernels written for it, at sizes the
  simulator can finish (it runs one OS thread per GPU thread): saxpy 2^14, SGEMM 64x64, xcuda
  run on exactly the same sizes in this process, the simulator in a child process of a venv with
  numba (bench/cpu_device_numba.py; xcuda is built for Debian's Python, numba comes from PyPI).

Every row is also measured with the checks off (context, no goal), and for the record: an
empty kernel's launch cost and a warp-shuffle reduction over 2^22 ints. xcuda is switched to
the CPU device for this part (also on a GPU machine, where it then times that host's cores)
and put back afterwards. Each result is checked against numpy in float64, its output poisoned
with NaN first, before it is timed; the checked call is the warm-up, one more untimed call
follows. Peers are interleaved round-robin (timing.interleave), medians with min and max.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from types import SimpleNamespace

from report import ERROR, OK, UNAVAILABLE, WRONG, WrongResult
from timing import describe, interleave

PART = "cpu"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_NUMBA_PYTHON = os.path.join(REPO, "build", "bench-venv", "bin", "python")

A = 2.0
SAXPY_N = 1 << 20
SGEMM_N = 512
TILE = 16
SIM_SAXPY_N = 1 << 14   # numba's simulator: ~0.1 ms per thread, one OS thread each
SIM_SGEMM_N = 64        # 16 blocks of 256 threads: ~6 s a run in the simulator
REDUCE_N = 1 << 22
EMPTY_LAUNCHES = 1000
BLOCK = 256

# One module for every kernel of the part. saxpy and sgemm are the kernels numba's simulator
# runs too (bench/cpu_device_numba.py has them line for line).
SOURCE = r'''
#define TILE 16
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}

// C = A B, n x n row-major; one thread per output, 16x16 tiles of A and B staged in shared memory.
extern "C" __global__ void sgemm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = (row < n && t + tx < n) ? A[row * n + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < n && col < n) ? B[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

// Sum of n ints: shuffle-down within each warp, the warps' sums through shared memory, shuffled
// again by warp 0, one atomicAdd per block.
extern "C" __global__ void reduce_sum(const int* x, int* out, int n) {
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if (lane == 0) atomicAdd(out, v);
    }
}

// One pointer argument and no work: a launch's fixed cost on the CPU device.
extern "C" __global__ void empty(float* p) {}
'''


def _tag(checks: bool) -> str:
    return "[checks on]" if checks else "[checks off]"


def _with_checks(label):
    """A row's name as a function of whether the CPU device's checks were on."""
    return lambda checks: f"{label} {_tag(checks)}"


saxpy_dev = _with_checks("saxpy 2^20: xcuda, DeviceArrays, launch + sync")
saxpy_host = _with_checks("saxpy 2^20: xcuda, numpy arrays (copies in and out included)")
SAXPY_NUMPY = "saxpy 2^20: numpy a*x+y"
sgemm_dev = _with_checks("sgemm 512x512, 16x16 shared tiles: xcuda, DeviceArrays")
SGEMM_NUMPY = "sgemm 512x512: numpy a @ b"
sim_saxpy_xc = _with_checks("saxpy 2^14: xcuda, DeviceArrays")
SIM_SAXPY_NUMBA = "saxpy 2^14: numba CUDA simulator, device arrays"
sim_sgemm_xc = _with_checks("sgemm 64x64, 16x16 shared tiles: xcuda, DeviceArrays")
SIM_SGEMM_NUMBA = "sgemm 64x64, 16x16 shared tiles: numba CUDA simulator, device arrays"
VENV_SAXPY_NUMPY = "saxpy 2^20: numpy a*x+y (bench venv's numpy, OpenBLAS; other process)"
VENV_SGEMM_NUMPY = "sgemm 512x512: numpy a @ b (bench venv's numpy, OpenBLAS; other process)"
empty_alone = _with_checks("empty kernel(DeviceArray) [1, 32]: launch + sync, each launch timed alone")
empty_b2b = _with_checks(f"empty kernel(DeviceArray) [1, 32]: {EMPTY_LAUNCHES} launches back to back + one sync, per launch")
reduce_xc = _with_checks("shuffle reduction, 2^22 int32: xcuda, DeviceArray")
REDUCE_NUMPY = "shuffle reduction, 2^22 int32: numpy x.sum()"


def _check(np, got, ref, tol, what):
    err = float(np.max(np.abs(np.asarray(got, dtype=np.float64) - ref)))
    if not err <= tol:  # NaN (the poison, i.e. never written) fails too
        raise WrongResult(f"{what}: max |got - ref| = {err:g} > {tol:g} (NaN = not written)")


def machine() -> dict:
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": model, "arch": platform.machine(),
            "load average (1, 5, 15 min) at start": " ".join(f"{v:.2f}" for v in os.getloadavg())}


def run(env, res, cfg) -> None:
    np = env.np
    reps, sim_reps = cfg.cpu_reps, cfg.sim_reps
    mach = machine()
    res.meta["cpu machine"] = mach
    print(f"   machine: {mach['cores']} cores ({mach['cpu']}), load {mach['load average (1, 5, 15 min) at start']}; "
          f"{reps} repeats (numba simulator {sim_reps}), medians")
    try:
        xc = env.xcuda_or_raise()
        prev_device, prev_checks = xc.get_device(), xc.cpu_checks()
        xc.set_device("cpu")
        module = xc.compile(SOURCE)
        k = {name: module.kernels[name] for name in ("saxpy", "sgemm", "reduce_sum", "empty")}
    except Exception as exc:
        res.fail_part(PART, "-", ERROR, describe(exc))
        return _goals(res)
    # The engine changes often (cuda-runtime/cpu-device): which build was timed.
    core = getattr(getattr(xc, "_core", None), "__file__", None)
    if core:
        res.meta["cpu xcuda build"] = f"{core}, modified {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(os.path.getmtime(core)))} UTC"
    res.meta["cpu set-up"] = (f"xcuda on its CPU device ({mach['cores']} worker threads, one per core), checks "
                              "toggled by xcuda.cpu_checks() around each sample; numpy "
                              f"{np.__version__} in this process ({_numpy_blas(np)})")
    try:
        _saxpy_and_sgemm(xc, np, k, res, reps)
        _same_sizes_as_sim(xc, np, k, res, reps)
        _numba_sim(res, cfg, sim_reps)
        _empty(xc, np, k, res, reps)
        _reduce(xc, np, k, res, reps)
    finally:
        xc.cpu_checks(prev_checks)
        xc.set_device(prev_device)
    res.meta["cpu machine"]["load average at end"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    _goals(res)
    _context(res)


def _timed_xcuda(xc, fn, checks, scale=1e3):
    """One sample: the checks set as the row says, then the call and a sync, in ms (or s)."""
    def sample():
        xc.cpu_checks(checks)
        t0 = time.perf_counter()
        fn()
        xc.synchronize()
        return (time.perf_counter() - t0) * scale
    return sample


def _timed_host(fn, scale=1e3):
    def sample():
        t0 = time.perf_counter()
        fn()
        return (time.perf_counter() - t0) * scale
    return sample


def _measure(res, timed, reps, unit, notes, checks=None):
    """Checks first (each `checks[name]()` raises on a wrong result, and is the warm-up), then one
    more untimed call, then the interleaved repeats. A failing peer is its own row."""
    ready = {}
    for name, sample in timed.items():
        try:
            if checks and name in checks:
                checks[name]()
            sample()
            ready[name] = sample
        except WrongResult as exc:
            res.fail(PART, name, unit, WRONG, str(exc))
        except Exception as exc:
            res.fail(PART, name, unit, ERROR, describe(exc))
    for name, o in interleave(ready, reps).items():
        if o.failure:  # a timed sample that checks itself (the reduction) can be WRONG too
            res.fail(PART, name, unit, WRONG if o.failure.startswith("WrongResult") else ERROR, o.failure)
        else:
            res.add(PART, name, unit, o.samples, note=notes.get(name, ""))


def _saxpy_inputs(xc, np, k, rng, n):
    """x and y ~ N(0, 1) float32 of n, the fp64 reference, a NaN-filled output on the device and
    the launch that writes it."""
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    dx, dy = xc.to_device(x), xc.to_device(y)
    dout = xc.to_device(np.full(n, np.nan, np.float32))
    grid = (n + BLOCK - 1) // BLOCK
    return SimpleNamespace(x=x, y=y, ref=A * x.astype(np.float64) + y, out=dout, grid=grid,
                           launch=lambda: k["saxpy"][grid, BLOCK](A, dx, dy, dout, n))


def _sgemm_inputs(xc, np, k, rng, m):
    """a and b ~ U[-1, 1) float32 m x m, the fp64 product, a NaN-filled output on the device and
    the launch that writes it."""
    am = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    bm = rng.uniform(-1, 1, (m, m)).astype(np.float32)
    da, db = xc.to_device(am), xc.to_device(bm)
    dc = xc.to_device(np.full((m, m), np.nan, np.float32))
    return SimpleNamespace(a=am, b=bm, ref=am.astype(np.float64) @ bm.astype(np.float64), out=dc,
                           launch=lambda: k["sgemm"][(m // TILE, m // TILE), (TILE, TILE)](da, db, dc, m))


def _saxpy_and_sgemm(xc, np, k, res, reps):
    rng = np.random.default_rng(8)
    n = SAXPY_N
    sx = _saxpy_inputs(xc, np, k, rng, n)
    x, y, ref, dout, grid, dev = sx.x, sx.y, sx.ref, sx.out, sx.grid, sx.launch
    hout = np.full(n, np.nan, np.float32)
    host = lambda: k["saxpy"][grid, BLOCK](A, x, y, hout, n)  # noqa: E731

    m = SGEMM_N
    sg = _sgemm_inputs(xc, np, k, rng, m)
    am, bm, mref, dc, gemm = sg.a, sg.b, sg.ref, sg.out, sg.launch
    # fp32 accumulation of 512 products of values in [-1, 1): errors ~1e-5; a wrong tile is ~1.
    gemm_tol = 1e-4 * m

    timed, checks, notes = {}, {}, {}
    for on in (True, False):
        timed[saxpy_dev(on)] = _timed_xcuda(xc, dev, on)
        checks[saxpy_dev(on)] = _check_dev(xc, np, dout, dev, on, ref, 1e-5, saxpy_dev(on))
        timed[saxpy_host(on)] = _timed_xcuda(xc, host, on)
        checks[saxpy_host(on)] = _check_host(xc, np, hout, host, on, ref, 1e-5, saxpy_host(on))
        notes[saxpy_dev(on)] = f"grid {grid} x {BLOCK}; wall ms from launch to synchronize() returning"
        notes[saxpy_host(on)] = "x, y copied in and out copied back by the launch itself"
    timed[SAXPY_NUMPY] = _timed_host(lambda: A * x + y)
    checks[SAXPY_NUMPY] = lambda: _check(np, A * x + y, ref, 1e-5, SAXPY_NUMPY)
    notes[SAXPY_NUMPY] = "a Python float times a float32 array plus one: two temporaries, as written"
    print(f"   saxpy 2^20 ({len(timed)} rows) and sgemm 512 (3 rows): {reps} repeats each, interleaved", flush=True)
    _measure(res, timed, reps, "ms", notes, checks)

    timed, checks, notes = {}, {}, {}
    for on in (True, False):
        timed[sgemm_dev(on)] = _timed_xcuda(xc, gemm, on, scale=1.0)
        checks[sgemm_dev(on)] = _check_dev(xc, np, dc, gemm, on, mref, gemm_tol, sgemm_dev(on))
        notes[sgemm_dev(on)] = f"grid {m // TILE}x{m // TILE} of 16x16 threads; launch + sync"
    timed[SGEMM_NUMPY] = _timed_host(lambda: am @ bm, scale=1.0)
    checks[SGEMM_NUMPY] = lambda: _check(np, am @ bm, mref, gemm_tol, SGEMM_NUMPY)
    notes[SGEMM_NUMPY] = "float32 matmul through this numpy's BLAS"
    _measure(res, timed, reps, "s", notes, checks)
    # The outputs of the last timed runs must still be right (a run that went wrong after the
    # check would show here); whichever mode ran last, both modes' rows answer for it.
    for kernel, got, r, tol, unit in (("saxpy", dout, ref, 1e-5, "ms"), ("sgemm", dc, mref, gemm_tol, "s")):
        try:
            _check(np, got.get(), r, tol, f"{kernel} output after the timed runs")
        except WrongResult as exc:
            for on in (True, False):
                name = saxpy_dev(on) if kernel == "saxpy" else sgemm_dev(on)
                res.fail(PART, name, unit, WRONG, str(exc))


def _check_dev(xc, np, out, run, checks, ref, tol, what):
    """Poison the DeviceArray `out` with NaN (copied in from the host), run, compare."""
    def check():
        xc.cpu_checks(checks)
        _poison(xc, np, out)
        run()
        xc.synchronize()
        _check(np, out.get(), ref, tol, what)
    return check


def _check_host(xc, np, out, run, checks, ref, tol, what):
    def check():
        xc.cpu_checks(checks)
        out.fill(np.nan)
        run()
        xc.synchronize()
        _check(np, out, ref, tol, what)
    return check


def _poison(xc, np, dev):
    """NaN into the DeviceArray the kernel writes (DeviceArray.set copies host data in; a NaN
    kernel would be one more thing to trust)."""
    dev.set(np.full(dev.shape, np.nan, np.float32))


def _same_sizes_as_sim(xc, np, k, res, reps):
    rng = np.random.default_rng(14)
    sx = _saxpy_inputs(xc, np, k, rng, SIM_SAXPY_N)
    ref, dout, sax = sx.ref, sx.out, sx.launch
    m = SIM_SGEMM_N
    sg = _sgemm_inputs(xc, np, k, rng, m)
    mref, dc, gemm = sg.ref, sg.out, sg.launch
    timed, checks, notes = {}, {}, {}
    for on in (True, False):
        timed[sim_saxpy_xc(on)] = _timed_xcuda(xc, sax, on)
        checks[sim_saxpy_xc(on)] = _check_dev(xc, np, dout, sax, on, ref, 1e-5, sim_saxpy_xc(on))
        timed[sim_sgemm_xc(on)] = _timed_xcuda(xc, gemm, on)
        checks[sim_sgemm_xc(on)] = _check_dev(xc, np, dc, gemm, on, mref, 1e-4 * m, sim_sgemm_xc(on))
        notes[sim_saxpy_xc(on)] = notes[sim_sgemm_xc(on)] = "the simulator's size, for the ratio; launch + sync"
    print(f"   xcuda at the simulator's sizes: {len(timed)} rows x {reps} repeats", flush=True)
    _measure(res, timed, reps, "ms", notes, checks)


def _numba_sim(res, cfg, reps):
    py = cfg.numba_python or DEFAULT_NUMBA_PYTHON
    names = {f"saxpy n={SIM_SAXPY_N}": SIM_SAXPY_NUMBA, f"sgemm n={SIM_SGEMM_N}": SIM_SGEMM_NUMBA,
             f"numpy a*x+y n={SAXPY_N}": VENV_SAXPY_NUMPY, f"numpy a @ b n={SGEMM_N}": VENV_SGEMM_NUMPY}
    units = {SIM_SAXPY_NUMBA: "ms", SIM_SGEMM_NUMBA: "ms", VENV_SAXPY_NUMPY: "ms", VENV_SGEMM_NUMPY: "s"}

    def fail_all(status, why):
        for row in names.values():
            res.fail(PART, row, units[row], status, why)
    if not os.path.exists(py):
        fail_all(UNAVAILABLE, f"no Python with numba at {py} (make it: python3 -m venv build/bench-venv && "
                              "build/bench-venv/bin/pip install numba numpy; or pass --numba-python)")
        return
    cmd = [py, os.path.join(HERE, "cpu_device_numba.py"), "--saxpy-n", str(SIM_SAXPY_N),
           "--sgemm-n", str(SIM_SGEMM_N), "--numpy-saxpy-n", str(SAXPY_N),
           "--numpy-sgemm-n", str(SGEMM_N), "--reps", str(reps)]
    # The simulator is selected at numba's import by this variable; PYTHONPATH is the parent's
    # (xcuda's build), of no use to the venv's Python, so it is dropped.
    child_env = {k_: v for k_, v in os.environ.items() if k_ != "PYTHONPATH"}
    child_env["NUMBA_ENABLE_CUDASIM"] = "1"
    print(f"   numba CUDA simulator (child process, ~15 s a repeat): {' '.join(cmd)}", flush=True)
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=child_env, timeout=1800)
        last = (p.stdout.strip().splitlines() or [""])[-1]
        got = json.loads(last)
    except Exception as exc:
        fail_all(ERROR, describe(exc))
        return
    res.meta["cpu numba child"] = {"command": "NUMBA_ENABLE_CUDASIM=1 " + " ".join(cmd),
                                   "versions": got.get("versions", {}),
                                   "elapsed s": round(time.time() - t0, 1), "exit status": p.returncode}
    if got.get("error"):
        fail_all(UNAVAILABLE, got["error"] + (f"; stderr: {p.stderr.strip()[-400:]}" if p.stderr.strip() else ""))
        return
    notes = {SIM_SAXPY_NUMBA: "child process, NUMBA_ENABLE_CUDASIM=1; launch + cuda.synchronize()",
             SIM_SGEMM_NUMBA: "child process, NUMBA_ENABLE_CUDASIM=1; launch + cuda.synchronize()",
             VENV_SAXPY_NUMPY: "context only: the goal's peer is this process's numpy",
             VENV_SGEMM_NUMPY: "context only: the goal's peer is this process's numpy"}
    for key, row in names.items():
        r = got.get("rows", {}).get(key)
        if r is None:
            res.fail(PART, row, units[row], ERROR, "the child reported no such row")
        elif r.get("error"):
            status = WRONG if r["error"].startswith("WrongResult") else ERROR
            res.fail(PART, row, units[row], status, r["error"])
        else:
            scale = 1e-3 if units[row] == "s" else 1.0
            res.add(PART, row, units[row], [v * scale for v in r["samples"]], note=notes[row])


def _empty(xc, np, k, res, reps):
    arg = xc.zeros(32, np.float32)
    launch = k["empty"][1, 32]

    def alone(checks, count):
        # `count` samples of one launch + sync each, every one kept: the row's median is over
        # all EMPTY_LAUNCHES of its mode.
        xc.cpu_checks(checks)
        out = []
        clock = time.perf_counter_ns
        for _ in range(count):
            t0 = clock()
            launch(arg)
            xc.synchronize()
            out.append((clock() - t0) / 1e3)
        return out

    def b2b(checks):
        def sample():
            xc.cpu_checks(checks)
            t0 = time.perf_counter_ns()
            for _ in range(EMPTY_LAUNCHES):
                launch(arg)
            xc.synchronize()
            return (time.perf_counter_ns() - t0) / 1e3 / EMPTY_LAUNCHES
        return sample
    # Checks on and off alternate in rounds of 100 launches (the machine's load drifts over the
    # second this takes), after one untimed round each.
    rounds, per = 10, EMPTY_LAUNCHES // 10
    samples = {True: [], False: []}
    try:
        for on in (True, False):
            alone(on, per)
        for r in range(rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                samples[on] += alone(on, per)
        for on in (True, False):
            res.add(PART, empty_alone(on), "us", samples[on],
                    note=f"{EMPTY_LAUNCHES} launches, each timed from the call to synchronize() returning; "
                         f"on/off alternating in rounds of {per}")
    except Exception as exc:
        for on in (True, False):
            res.fail(PART, empty_alone(on), "us", ERROR, describe(exc))
    timed = {empty_b2b(on): b2b(on) for on in (True, False)}
    notes = {name: f"host time of {EMPTY_LAUNCHES} launches and one sync, divided by {EMPTY_LAUNCHES}"
             for name in timed}
    _measure(res, timed, reps, "us", notes)


def _reduce(xc, np, k, res, reps):
    rng = np.random.default_rng(22)
    n = REDUCE_N
    # |sum| <= 100 * 2^22 < 2^31: the int32 atomicAdd cannot overflow.
    xi = rng.integers(-100, 101, n, dtype=np.int32)
    want = int(xi.astype(np.int64).sum())
    dx = xc.to_device(xi)
    grid = (n + BLOCK - 1) // BLOCK
    outs = {}

    def fresh():
        outs["o"] = xc.zeros(1, np.int32)  # made before the clock starts

    def sample_for(checks):
        def sample():
            xc.cpu_checks(checks)
            fresh()
            t0 = time.perf_counter()
            k["reduce_sum"][grid, BLOCK](dx, outs["o"], n)
            xc.synchronize()
            ms = (time.perf_counter() - t0) * 1e3
            got = int(outs["o"].get()[0])
            if got != want:  # every timed run is checked: a wrong sum is a failed row, not a number
                raise WrongResult(f"sum {got} != {want}")
            return ms
        return sample
    timed = {reduce_xc(on): sample_for(on) for on in (True, False)}
    timed[REDUCE_NUMPY] = _timed_host(lambda: xi.sum())
    checks = {REDUCE_NUMPY: lambda: _check(np, xi.sum(), float(want), 0, REDUCE_NUMPY)}
    notes = {reduce_xc(on): f"grid {grid} x {BLOCK}; __shfl_down_sync twice, one atomicAdd per block; "
                            "every timed sum checked" for on in (True, False)}
    notes[REDUCE_NUMPY] = "int32 sum (numpy accumulates in int64)"
    _measure(res, timed, reps, "ms", notes, checks)


def _numpy_blas(np) -> str:
    """Which BLAS numpy's a @ b runs on matters for the SGEMM ratio: Debian's numpy links the
    reference BLAS (libblas3, unoptimised) unless an optimised one is selected as libblas.so.3."""
    lib = "?"
    try:
        with open("/proc/self/maps") as f:
            libs = {ln.split()[-1] for ln in f if "blas" in ln.lower() and ln.split()[-1].startswith("/")}
        lib = ", ".join(sorted(os.path.realpath(p) for p in libs)) or "no BLAS mapped"
    except OSError:
        pass
    return f"BLAS: {lib}"


def _goals(res) -> None:
    res.goal(PART, "CPU device: saxpy 2^20 on DeviceArrays, checks on, <= 100x numpy's a*x+y (time)",
             saxpy_dev(True), SAXPY_NUMPY, "<=", 100)
    res.goal(PART, "CPU device: saxpy 2^20 on numpy arrays (copies included), checks on, <= 100x numpy's a*x+y",
             saxpy_host(True), SAXPY_NUMPY, "<=", 100)
    res.goal(PART, "CPU device: 512x512 shared-tiled SGEMM, checks on, <= 2 s", sgemm_dev(True), "s", "<=", 2.0,
             absolute=True)
    # The next speed round's goals, beside the first round's above: the same rows, tighter limits.
    res.goal(PART, "CPU device: saxpy 2^20 on DeviceArrays, checks on, <= 30x numpy's a*x+y (time)",
             saxpy_dev(True), SAXPY_NUMPY, "<=", 30)
    res.goal(PART, "CPU device: 512x512 shared-tiled SGEMM, checks on, <= 0.25 s", sgemm_dev(True), "s", "<=", 0.25,
             absolute=True)
    res.goal(PART, "CPU device >= 100x faster than numba's CUDA simulator: saxpy 2^14, checks on",
             sim_saxpy_xc(True), SIM_SAXPY_NUMBA, ">=", 100, invert=True)
    res.goal(PART, "CPU device >= 100x faster than numba's CUDA simulator: sgemm 64x64 tiled, checks on",
             sim_sgemm_xc(True), SIM_SGEMM_NUMBA, ">=", 100, invert=True)


def _context(res) -> None:
    """Ratios without a goal (checks off, numpy's SGEMM, per-thread times), into the results'
    meta and printed: the goals table holds the stated goals only."""
    def med(name):
        r = res._find(PART, name)
        return r.median if r is not None and r.status == OK else None

    def ratio(a, b):
        ma, mb = med(a), med(b)
        return round(ma / mb, 3) if ma and mb else None
    out = {
        "saxpy 2^20 DeviceArrays checks off / numpy": ratio(saxpy_dev(False), SAXPY_NUMPY),
        "saxpy 2^20 numpy arrays checks off / numpy": ratio(saxpy_host(False), SAXPY_NUMPY),
        "saxpy 2^20 DeviceArrays checks on / off": ratio(saxpy_dev(True), saxpy_dev(False)),
        "sgemm 512 checks on / numpy a @ b": ratio(sgemm_dev(True), SGEMM_NUMPY),
        "sgemm 512 checks off / numpy a @ b": ratio(sgemm_dev(False), SGEMM_NUMPY),
        "sgemm 512 checks on / off": ratio(sgemm_dev(True), sgemm_dev(False)),
        "sgemm 512 checks on / the venv's numpy (OpenBLAS) a @ b": ratio(sgemm_dev(True), VENV_SGEMM_NUMPY),
        "saxpy 2^20 DeviceArrays checks on / the venv's numpy a*x+y": ratio(saxpy_dev(True), VENV_SAXPY_NUMPY),
        "numba sim / xcuda, saxpy 2^14, checks off (speed-up)": ratio(SIM_SAXPY_NUMBA, sim_saxpy_xc(False)),
        "numba sim / xcuda, sgemm 64, checks off (speed-up)": ratio(SIM_SGEMM_NUMBA, sim_sgemm_xc(False)),
        "reduction 2^22 checks on / numpy x.sum()": ratio(reduce_xc(True), REDUCE_NUMPY),
        "reduction 2^22 checks on / off": ratio(reduce_xc(True), reduce_xc(False)),
    }
    # Per GPU thread: the simulator at its small sizes against xcuda at the full ones (checks on).
    per = {}
    for label, name, threads in (("numba sim saxpy, 2^14 threads", SIM_SAXPY_NUMBA, SIM_SAXPY_N),
                                 ("xcuda saxpy, 2^20 threads, checks on", saxpy_dev(True), SAXPY_N),
                                 ("numba sim sgemm 64, 4096 threads", SIM_SGEMM_NUMBA, SIM_SGEMM_N ** 2),
                                 ("xcuda sgemm 512, 262144 threads, checks on", sgemm_dev(True), SGEMM_N ** 2)):
        m = med(name)
        if m:
            unit = res._find(PART, name).unit
            per[label + " (ns per thread)"] = round(m * (1e9 if unit == "s" else 1e6) / threads, 1)
    out.update(per)
    res.meta["cpu context ratios (no goals)"] = out
    print("   context (no goals): " + "; ".join(f"{k_} = {v}" for k_, v in out.items()))

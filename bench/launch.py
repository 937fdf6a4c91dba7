"""Part 1: launch overhead, host time per call. saxpy(x, y, out, n): 3 device arrays + an
int, inputs as CuPy arrays and as torch tensors. xcuda Kernel call vs CuPy RawKernel vs
cuda.core launch() vs Numba @cuda.jit vs a C++ cuLaunchKernel floor (launch_floor.cpp).
Every in-process peer except Numba launches the same cubin (xcuda's, else nvcc's) on the
same non-blocking stream; each result is checked against numpy before it is timed."""
from __future__ import annotations

import json
import os
import shutil

import peers
from peers import EMPTY, SAXPY, fresh_dir, run_checked
from report import ERROR, SKIPPED, UNAVAILABLE, WRONG, WrongResult, failed
from timing import describe, host_ns_per_call, interleave

PART = "launch"
N = 1 << 12           # small: the GPU finishes each launch before the host queues the next
BLOCK = 256
GRID = (N + BLOCK - 1) // BLOCK
KINDS = ("CuPy arrays", "torch tensors")
HERE = os.path.dirname(os.path.abspath(__file__))


def name_of(peer: str, kind: str) -> str:
    return f"{peer} [{kind}]"


X, CUPY, CORE, NUMBA = "xcuda Kernel call", "CuPy RawKernel", "cuda.core launch()", "Numba @cuda.jit"
FLOOR = "C++ cuLaunchKernel floor"
SYNC = "launch+sync+readback"
FLOOR_SYNC = f"{FLOOR}, {SYNC}"
FLOOR_SYNC_PINNED = f"{FLOOR}, {SYNC} via pinned memory"
X_NATIVE = f"xcuda on xcuda.DeviceArray, default stream, {SYNC} via .get()"
# The goal's row: xcuda alone, its own arrays and readback, on a non-blocking stream of its own,
# against CuPy's RawKernel + out.get() on CuPy's non-blocking stream.
X_NATIVE_STREAM = f"xcuda on xcuda.DeviceArray, non-blocking xcuda.Stream, {SYNC}"
# Context rows, no goal: each library's fixed cost of a launch, before any argument is read.
EMPTY_KIND = "empty kernel, no arguments"
# A 32-byte struct by value (numpy structured scalar, as CuPy takes it) and one CuPy array.
STRUCT_KIND = "32-byte struct by value + CuPy array"
STRUCT = r'''
struct Params { float a, b, c, d; int n, m; double scale; };
extern "C" __global__ void with_struct(Params p, float* out) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = p.a + p.b * p.c + p.d + p.n - p.m + (float)p.scale;
}
'''
STRUCT_DTYPE = [("a", "f4"), ("b", "f4"), ("c", "f4"), ("d", "f4"), ("n", "i4"), ("m", "i4"), ("scale", "f8")]


def run(env, res, cfg) -> None:
    if not env.has_gpu:
        res.fail_part(PART, "ns", SKIPPED, env.gpu_reason)
        return _goals(res)
    np, cp = env.np, env.cp
    stream = cp.cuda.Stream(non_blocking=True)
    handle = stream.ptr
    workdir = fresh_dir("launch")

    # ---- one cubin for everybody: xcuda's own build when xcuda works, else nvcc's
    xkern, xstream = None, None
    module, xc_reason, cubin_path, cubin_note = peers.shared_cubin(env, SAXPY, "saxpy", workdir)
    if module is not None:
        try:
            xkern = peers.xcuda_kernel(module, "saxpy")
            xstream = peers.xcuda_stream(handle)
            cubin_note += "; xcuda gets the stream as its int handle"
        except Exception as exc:
            xkern, xc_reason = None, describe(exc)
    print(f"   {cubin_note}")

    rng = np.random.default_rng()
    x_h = rng.standard_normal(N, dtype=np.float32)
    y_h = rng.standard_normal(N, dtype=np.float32)
    ref = 2.0 * x_h.astype(np.float64) + y_h.astype(np.float64)
    host_out = np.empty(N, np.float32)

    inputs = {"CuPy arrays": tuple(cp.asarray(a) for a in (x_h, y_h, np.empty_like(x_h)))}
    if env.torch is not None:
        torch = env.torch
        # torch's current stream becomes the benchmark stream too, so torch tensors announce it
        # (array-interface consumers such as xcuda and Numba then have no other stream to wait on)
        torch.cuda.set_stream(torch.cuda.ExternalStream(handle))
        inputs["torch tensors"] = tuple(torch.from_numpy(a.copy()).cuda() for a in (x_h, y_h, x_h))
        torch.cuda.synchronize()
    else:
        for peer in (X, CUPY, CORE, NUMBA):
            res.fail(PART, name_of(peer, "torch tensors"), "ns", UNAVAILABLE, env.why("torch"))
    cp.cuda.Device().synchronize()

    launchers = {}   # name -> (call, out array)
    for kind, (x, y, out) in inputs.items():
        is_torch = kind == "torch tensors"
        ptr = (lambda a: a.data_ptr()) if is_torch else (lambda a: a.data.ptr)
        # xcuda
        n = name_of(X, kind)
        if xkern is not None:
            launchers[n] = (lambda k=xkern, s=xstream, a=(x, y, out):
                            k[GRID, BLOCK, 0, s](a[0], a[1], a[2], N), out)
        else:
            res.fail(PART, n, "ns", ERROR, xc_reason)
        # CuPy: same cubin through RawModule; torch tensors go through cupy.asarray (zero-copy),
        # which is what a CuPy user does since RawKernel takes CuPy arrays.
        n = name_of(CUPY, kind)
        try:
            ck = cp.RawModule(path=cubin_path).get_function("saxpy")
            n32 = np.int32(N)
            if is_torch:
                call = (lambda k=ck, a=(x, y, out): k((GRID,), (BLOCK,), (
                    cp.asarray(a[0]), cp.asarray(a[1]), cp.asarray(a[2]), n32)))
            else:
                call = (lambda k=ck, a=(x, y, out): k((GRID,), (BLOCK,), (a[0], a[1], a[2], n32)))
            launchers[n] = (call, out)
        except Exception as exc:
            res.fail(PART, n, "ns", UNAVAILABLE, describe(exc))
        # cuda.core
        n = name_of(CORE, kind)
        try:
            core, kk, cs, lc = _core_setup(env, cubin_path, "saxpy", handle, GRID, BLOCK)
            n32 = np.int32(N)
            launchers[n] = (lambda k=kk, s=cs, c=lc, a=(x, y, out), p=ptr:
                            core.launch(s, c, k, p(a[0]), p(a[1]), p(a[2]), n32), out)
        except Exception as exc:
            res.fail(PART, n, "ns", UNAVAILABLE, describe(exc))
        # Numba: its own kernel from Python (it cannot launch a foreign cubin), same stream
        n = name_of(NUMBA, kind)
        try:
            nk, nstream = _numba(env, handle)
            launchers[n] = (lambda k=nk, s=nstream, a=(x, y, out): k[GRID, BLOCK, s](a[0], a[1], a[2], N), out)
        except Exception as exc:
            res.fail(PART, n, "ns", UNAVAILABLE, describe(exc))

    launchers.update(_empty_launchers(env, res, cp, np, stream, handle, workdir))
    launchers.update(_struct_launchers(env, res, cp, np, stream, handle, workdir))

    def poison(out):
        if hasattr(out, "fill_"):
            out.fill_(float("nan"))
        else:
            out.fill(np.nan)

    def check(call, out):
        poison(out)
        cp.cuda.Device().synchronize()
        with stream:
            call()
        stream.synchronize()
        got = out.cpu().numpy() if hasattr(out, "cpu") else cp.asnumpy(out)
        err = float(np.max(np.abs(got.astype(np.float64) - ref)))
        if not err <= 1e-5:
            raise WrongResult(f"max |out - ref| = {err:g} (numpy float64 reference; NaN = unwritten)")

    timed = {}
    timed_sync = {}
    for name, (call, out) in launchers.items():
        try:
            if out is not None:  # an empty kernel has no result to check
                check(call, out)
            with stream:
                for _ in range(cfg.launch_warm):
                    call()
            stream.synchronize()
        except Exception as exc:
            status, reason = failed(exc, ours=name.startswith(X))
            res.fail(PART, name, "ns", status, reason)
            if name.endswith("[CuPy arrays]"):
                res.fail(PART, _sync_name(name), "ns", status, reason)
            continue

        def block(call=call):
            with stream:
                ns = host_ns_per_call(call, cfg.launch_iters)
            stream.synchronize()
            return ns
        timed[name] = block
        if name.endswith("[CuPy arrays]"):
            def roundtrip(call=call, out=out):
                call()
                out.get(stream=stream, out=host_out)

            def roundtrips(f=roundtrip):
                with stream:
                    return host_ns_per_call(f, _sync_iters(cfg))
            timed_sync[_sync_name(name)] = roundtrips

    native = _xcuda_native(env, res, cfg, xkern, x_h, y_h, ref, np)
    if native is not None:
        timed_sync[X_NATIVE] = native
    native_stream, readback = _xcuda_native_stream(env, res, cfg, xkern, x_h, y_h, ref, np)
    if native_stream is not None:
        timed_sync[X_NATIVE_STREAM] = native_stream

    print(f"   timing {len(timed)} launch peers x {cfg.launch_reps} x {cfg.launch_iters} launches, interleaved")
    for name, o in interleave(timed, cfg.launch_reps).items():
        if o.failure:
            res.fail(PART, name, "ns", ERROR if name.startswith(X) else UNAVAILABLE, o.failure)
        else:
            res.add(PART, name, "ns", o.samples, note=f"per call, {cfg.launch_iters} calls per sample")
    for name, o in interleave(timed_sync, cfg.launch_reps).items():
        if o.failure:
            res.fail(PART, name, "ns", ERROR if name.startswith("xcuda") else UNAVAILABLE, o.failure)
        else:
            how = readback if name == X_NATIVE_STREAM else ".get()" if name == X_NATIVE else \
                "CuPy out.get(stream=, out=) into one numpy buffer"
            res.add(PART, name, "ns", o.samples, note=f"{_sync_iters(cfg)} round trips per sample; readback: {how}")

    if env.torch is not None:
        env.torch.cuda.set_stream(env.torch.cuda.default_stream())
    _floor(res, cfg, cubin_path, workdir)
    res.meta["launch set-up"] = f"{cubin_note}; n={N}, grid={GRID}, block={BLOCK}"
    _goals(res)


def _core_setup(env, cubin_path, name, handle, grid, block):
    """cuda.core's kernel `name` from the shared cubin, the benchmark stream and a launch
    configuration: (module, kernel, stream, config). Each row builds its own lambda around
    core.launch, so the timed call is the one a cuda.core user writes."""
    core = env.cuda_core
    if core is None:
        raise RuntimeError(env.why("cuda.core"))
    core.Device(0).set_current()
    kernel = core.ObjectCode.from_cubin(cubin_path).get_kernel(name)
    return core, kernel, peers.core_stream(core, handle), core.LaunchConfig(grid=grid, block=block)


def _empty_launchers(env, res, cp, np, stream, handle, workdir) -> dict:
    """xcuda, CuPy and cuda.core launching `empty()` (1 block of 32 threads) on the same stream:
    the part of every launch row that no argument handling can remove."""
    out = {}
    module, xc_reason, cubin_path, _ = peers.shared_cubin(env, EMPTY, "empty", workdir)
    n = name_of(X, EMPTY_KIND)
    if module is not None:
        try:
            k = peers.xcuda_kernel(module, "empty")
            out[n] = (lambda k=k: k[1, 32, 0, handle](), None)
        except Exception as exc:
            res.fail(PART, n, "ns", ERROR, describe(exc))
    else:
        res.fail(PART, n, "ns", ERROR, xc_reason)
    n = name_of(CUPY, EMPTY_KIND)
    try:
        ck = cp.RawModule(path=cubin_path).get_function("empty")
        out[n] = (lambda k=ck: k((1,), (32,), ()), None)
    except Exception as exc:
        res.fail(PART, n, "ns", UNAVAILABLE, describe(exc))
    n = name_of(CORE, EMPTY_KIND)
    try:
        core, kk, cs, lc = _core_setup(env, cubin_path, "empty", handle, 1, 32)
        out[n] = (lambda k=kk, s=cs, c=lc: core.launch(s, c, k), None)
    except Exception as exc:
        res.fail(PART, n, "ns", UNAVAILABLE, describe(exc))
    return out


def _struct_launchers(env, res, cp, np, stream, handle, workdir) -> dict:
    """xcuda and CuPy launching `with_struct(Params, float*)` with the same numpy structured
    scalar (32 bytes) on the same stream; each checked once against the value numpy computes."""
    out = {}
    dtype = np.dtype(STRUCT_DTYPE, align=True)
    params = np.zeros(1, dtype)[0]
    for name, value in zip(dtype.names, (1.5, 2.0, 3.0, 0.25, 7, 2, 0.125)):
        params[name] = value
    expected = np.float32(1.5 + 2.0 * 3.0 + 0.25 + 7 - 2 + 0.125)
    result = cp.zeros(1, cp.float32)

    def checked(call):
        result.fill(np.nan)
        with stream:
            call()
        stream.synchronize()
        got = float(result.get()[0])
        if got != expected:
            raise WrongResult(f"out[0] = {got}, numpy says {expected}")
        return call

    module, xc_reason, cubin_path, _ = peers.shared_cubin(env, STRUCT, "with_struct", workdir)
    n = name_of(X, STRUCT_KIND)
    if module is None:
        res.fail(PART, n, "ns", ERROR, xc_reason)
    else:
        try:
            k = peers.xcuda_kernel(module, "with_struct")
            out[n] = (checked(lambda k=k: k[1, 32, 0, handle](params, result)), None)
        except Exception as exc:
            res.fail(PART, n, "ns", WRONG if isinstance(exc, WrongResult) else ERROR, describe(exc))
    n = name_of(CUPY, STRUCT_KIND)
    try:
        ck = cp.RawModule(path=cubin_path).get_function("with_struct")
        out[n] = (checked(lambda k=ck: k((1,), (32,), (params, result))), None)
    except Exception as exc:
        res.fail(PART, n, "ns", WRONG if isinstance(exc, WrongResult) else UNAVAILABLE, describe(exc))
    return out


def _sync_name(launch_row: str) -> str:
    """The round-trip row of a launch row on CuPy arrays; every one reads back through CuPy's
    out.get(stream=, out=). xcuda's says so, as xcuda's own round trip is another row."""
    peer = launch_row.split(" [")[0]
    if peer == X:
        return f"{X} on CuPy arrays, {SYNC} via CuPy .get()"
    return f"{peer}, {SYNC}"


def _sync_iters(cfg) -> int:
    return max(500, cfg.launch_iters // 10)


def _numba(env, handle):
    nc = env.numba_cuda
    if nc is None:
        raise RuntimeError(env.why("numba.cuda"))
    import numba

    @nc.jit
    def saxpy(x, y, out, n):
        i = nc.grid(1)
        if i < n:
            out[i] = numba.float32(2.0) * x[i] + y[i]
    return saxpy, nc.external_stream(handle)


def _xcuda_native(env, res, cfg, xkern, x_h, y_h, ref, np):
    """xcuda's own arrays and .get(), on the default stream: the round trip a user of xcuda
    alone writes."""
    if xkern is None:
        res.fail(PART, X_NATIVE, "ns", ERROR, "xcuda kernel unavailable (see the xcuda rows)")
        return None
    try:
        xc = env.xcuda
        xd, yd = xc.to_device(x_h), xc.to_device(y_h)
        od = xc.to_device(np.full_like(x_h, np.nan))
        xkern[GRID, BLOCK](xd, yd, od, N)
        got = np.asarray(od.get(), dtype=np.float64)
        err = float(np.max(np.abs(got - ref)))
        if not err <= 1e-5:
            res.fail(PART, X_NATIVE, "ns", WRONG, f"max |out - ref| = {err:g}")
            return None
        return lambda: host_ns_per_call(lambda: (xkern[GRID, BLOCK](xd, yd, od, N), od.get()), _sync_iters(cfg))
    except Exception as exc:
        res.fail(PART, X_NATIVE, "ns", ERROR, describe(exc))
        return None


def readback_form(xc, np, stream) -> str:
    """The readback xcuda's DeviceArray offers: .get(out=, stream=) (into a given numpy array,
    after the stream's work), .get(stream=), or .get() alone, which copies on the legacy default
    stream; a non-blocking stream does not order against that, so the stream is synchronised
    first. Found by trying the keywords on a one-element array (pybind11 answers TypeError)."""
    tiny = xc.to_device(np.zeros(1, np.float32))
    for form, kw in (("out+stream", {"out": np.empty(1, np.float32), "stream": stream}),
                     ("stream", {"stream": stream})):
        try:
            tiny.get(**kw)
            return form
        except TypeError:
            continue
    return "sync+get"


def _xcuda_native_stream(env, res, cfg, xkern, x_h, y_h, ref, np):
    """launch + sync + readback the way a user of xcuda alone writes it on a non-blocking stream.
    Returns (timed round trips or None, the readback used)."""
    if xkern is None:
        res.fail(PART, X_NATIVE_STREAM, "ns", ERROR, "xcuda kernel unavailable (see the xcuda rows)")
        return None, ""
    try:
        xc = env.xcuda
        s = xc.Stream(non_blocking=True)
        xd, yd = xc.to_device(x_h), xc.to_device(y_h)
        od = xc.to_device(np.full_like(x_h, np.nan))
        host = np.full_like(x_h, np.nan)
        k = xkern
        form = readback_form(xc, np, s)
        if form == "out+stream":
            how = "out.get(out=host, stream=s) into one numpy buffer"

            def roundtrip():
                k[GRID, BLOCK, 0, s](xd, yd, od, N)
                od.get(out=host, stream=s)
                return host
        elif form == "stream":
            how = "out.get(stream=s) (this DeviceArray.get takes no out=)"

            def roundtrip():
                k[GRID, BLOCK, 0, s](xd, yd, od, N)
                return od.get(stream=s)
        else:
            how = "s.synchronize() + out.get() (this DeviceArray.get takes no stream=)"

            def roundtrip():
                k[GRID, BLOCK, 0, s](xd, yd, od, N)
                s.synchronize()
                return od.get()
        got = np.asarray(roundtrip(), dtype=np.float64)
        err = float(np.max(np.abs(got - ref)))
        if not err <= 1e-5:
            res.fail(PART, X_NATIVE_STREAM, "ns", WRONG, f"max |out - ref| = {err:g} with {how} (NaN = unwritten)")
            return None, how
        for _ in range(cfg.launch_warm):
            roundtrip()
        return (lambda: host_ns_per_call(roundtrip, _sync_iters(cfg))), how
    except Exception as exc:
        res.fail(PART, X_NATIVE_STREAM, "ns", ERROR, describe(exc))
        return None, ""


def _floor(res, cfg, cubin_path, workdir) -> None:
    exe = os.path.join(workdir, "launch_floor")
    src = os.path.join(HERE, "launch_floor.cpp")
    try:
        cc = cfg.floor_cc or (peers.NVCC if os.path.exists(peers.NVCC) else shutil.which("g++"))
        if cc is None:
            raise RuntimeError("neither nvcc nor g++ found; pass --floor-cc")
        if os.path.basename(cc).startswith("nvcc"):
            run_checked([cc, "-O2", "-std=c++17", src, "-lcuda", "-o", exe])
        else:
            inc = os.path.join(peers.CUDA_HOME, "include")
            stubs = os.path.join(peers.CUDA_HOME, "lib64", "stubs")  # link only; libcuda.so.1 at run time
            run_checked([cc, "-O2", "-std=c++17", f"-I{inc}", src, f"-L{stubs}", "-lcuda", "-o", exe])
        p = run_checked([exe, cubin_path, "saxpy", str(N), str(cfg.launch_iters), str(cfg.launch_reps),
                         str(cfg.launch_warm), str(_sync_iters(cfg))], timeout=300)
        r = json.loads(p.stdout.strip().splitlines()[-1])
        if not r["max_abs_err"] <= 1e-5:
            res.fail(PART, FLOOR, "ns", WRONG, f"max |out - ref| = {r['max_abs_err']}")
            return
        note = f"separate process, same cubin; context init {r['ctx_init_ms']} ms"
        res.add(PART, FLOOR, "ns", r["launch_ns"], note=note)
        res.add(PART, FLOOR_SYNC, "ns", r["sync_readback_ns"], note=note)
        if "sync_readback_pinned_ns" in r:
            res.add(PART, FLOOR_SYNC_PINNED, "ns", r["sync_readback_pinned_ns"],
                    note=note + "; read back into page-locked memory, then memcpy")
    except Exception as exc:
        res.fail(PART, FLOOR, "ns", UNAVAILABLE, describe(exc))
        res.fail(PART, FLOOR_SYNC, "ns", UNAVAILABLE, describe(exc))


def _goals(res) -> None:
    for kind in KINDS:
        res.goal(PART, f"launch <= 0.7x CuPy [{kind}]", name_of(X, kind), name_of(CUPY, kind), "<=", 0.7)
        res.goal(PART, f"launch <= 1.0x cuda.core [{kind}]", name_of(X, kind), name_of(CORE, kind), "<=", 1.0)
    res.goal(PART, "launch <= 1.5x C++ floor", name_of(X, KINDS[0]), FLOOR, "<=", 1.5)
    res.goal(PART, "32-byte struct launch <= 0.7x CuPy", name_of(X, STRUCT_KIND), name_of(CUPY, STRUCT_KIND), "<=", 0.7)
    res.goal(PART, "launch+sync+readback <= 0.8x CuPy", X_NATIVE_STREAM, f"{CUPY}, {SYNC}", "<=", 0.8)

"""Part 3: kernel quality and bandwidth on 1 GiB fp32 arrays, device time by events on one
non-blocking stream. The same source (peers.ADD) built by xcuda.compile and by
nvcc -cubin -arch=sm_90 (loaded through cupy.RawModule); the vectorised add4 vs torch.add
on the same buffers and vs a device-to-device copy. Bandwidth counts bytes read + written."""
from __future__ import annotations

import peers
from peers import ADD, fresh_dir
from report import ERROR, SKIPPED, UNAVAILABLE, WrongResult, failed
from timing import EventTimer, describe, interleave

PART = "bandwidth"
BLOCK = 256
X4, X1 = "xcuda-built add4 (float4)", "xcuda-built add1 (scalar)"
N4, N1 = "nvcc-built add4 (float4)", "nvcc-built add1 (scalar)"
TORCH, COPY, CPADD = "torch.add(a, b, out=c)", "D2D copy (cudaMemcpyAsync via CuPy)", "cupy.add(a, b, out=c)"


def run(env, res, cfg) -> None:
    if not env.has_gpu:
        res.fail_part(PART, "TB/s", SKIPPED, env.gpu_reason)
        return _goals(res)
    cp, np = env.cp, env.np
    n = cfg.bw_bytes // 4
    nbytes = n * 4
    stream = cp.cuda.Stream(non_blocking=True)
    timer = EventTimer(cp, stream)
    workdir = fresh_dir("bandwidth")
    with stream:
        a = cp.random.random(n, dtype=cp.float32)
        b = cp.random.random(n, dtype=cp.float32)
        c = cp.empty(n, dtype=cp.float32)
        ref = a + b
    stream.synchronize()
    grid4 = max(1, ((n >> 2) + BLOCK - 1) // BLOCK)
    grid1 = (n + BLOCK - 1) // BLOCK
    n32 = np.int32(n)

    peers_fn = {}   # name -> (fn, expected result, bytes moved)
    add_bytes, copy_bytes = 3 * nbytes, 2 * nbytes
    try:
        xc = env.xcuda_or_raise()
        xmod = peers.xcuda_compile(xc, ADD)
        xs = peers.xcuda_stream(stream.ptr)
        xk4, xk1 = peers.xcuda_kernel(xmod, "add4"), peers.xcuda_kernel(xmod, "add1")
        peers_fn[X4] = (lambda: xk4[grid4, BLOCK, 0, xs](a, b, c, n), ref, add_bytes)
        peers_fn[X1] = (lambda: xk1[grid1, BLOCK, 0, xs](a, b, c, n), ref, add_bytes)
    except Exception as exc:
        for name in (X4, X1):
            res.fail(PART, name, "TB/s", ERROR, describe(exc))
    try:
        nmod = cp.RawModule(path=peers.nvcc_cubin(ADD, workdir, "add"))
        nk4, nk1 = nmod.get_function("add4"), nmod.get_function("add1")
        peers_fn[N4] = (lambda: nk4((grid4,), (BLOCK,), (a, b, c, n32)), ref, add_bytes)
        peers_fn[N1] = (lambda: nk1((grid1,), (BLOCK,), (a, b, c, n32)), ref, add_bytes)
    except Exception as exc:
        for name in (N4, N1):
            res.fail(PART, name, "TB/s", UNAVAILABLE, describe(exc))
    if env.torch is not None:
        torch = env.torch
        ta, tb, tc = (torch.as_tensor(v, device="cuda") for v in (a, b, c))
        tstream = torch.cuda.ExternalStream(stream.ptr)

        def torch_add():
            with torch.cuda.stream(tstream):
                torch.add(ta, tb, out=tc)
        peers_fn[TORCH] = (torch_add, ref, add_bytes)
    else:
        res.fail(PART, TORCH, "TB/s", UNAVAILABLE, env.why("torch"))
    d2d = cp.cuda.runtime.memcpyDeviceToDevice
    peers_fn[COPY] = (lambda: cp.cuda.runtime.memcpyAsync(c.data.ptr, a.data.ptr, nbytes, d2d, stream.ptr),
                      a, copy_bytes)
    peers_fn[CPADD] = (lambda: cp.add(a, b, out=c), ref, add_bytes)

    timed = {}
    for name, (fn, expect, nb) in peers_fn.items():
        try:
            with stream:
                c.fill(np.nan)
                fn()
                ok = bool(cp.all(c == expect).get())
            stream.synchronize()
            if not ok:
                bad = int(cp.count_nonzero(c != expect).get())
                raise WrongResult(f"{bad} of {n} elements differ from the reference (NaN = unwritten)")
            for _ in range(3):
                with stream:
                    fn()
            stream.synchronize()
        except Exception as exc:
            res.fail(PART, name, "TB/s", *failed(exc, ours=name.startswith("xcuda")))
            continue

        def one(fn=fn, nb=nb):
            with stream:
                ms = timer.ms(fn)
            return nb / (ms * 1e-3) / 1e12
        timed[name] = one
    for name, o in interleave(timed, cfg.bw_reps).items():
        if o.failure:
            res.fail(PART, name, "TB/s", ERROR if name.startswith("xcuda") else UNAVAILABLE, o.failure)
        else:
            nb = peers_fn[name][2]
            res.add(PART, name, "TB/s", o.samples,
                    note=f"{nb / 2**30:.0f} GiB read+written per run; min/max are bandwidths")
    res.meta["bandwidth set-up"] = f"{nbytes / 2**30:.2f} GiB per array, uniform random fp32, events on one stream"
    _goals(res)


def _goals(res) -> None:
    # Same source, two compilers: time(xcuda) / time(nvcc) = bw(nvcc) / bw(xcuda).
    res.goal(PART, "same source, xcuda vs nvcc: add4 time <= 1.02x", X4, N4, "<=", 1.02, invert=True)
    res.goal(PART, "same source, xcuda vs nvcc: add1 time <= 1.02x", X1, N1, "<=", 1.02, invert=True)
    res.goal(PART, "vectorised add >= 0.98x torch.add", X4, TORCH, ">=", 0.98)
    res.goal(PART, "vectorised add >= 1.0x D2D copy (bytes r+w)", X4, COPY, ">=", 1.0)

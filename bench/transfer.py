"""Part 4: numpy auto-transfer. An xcuda launch on numpy arrays (copied to the device, and
the non-const output copied back) vs what a CuPy user writes: cupy.asarray for each
argument + the same cubin through RawModule + .get() into the same numpy output.
Host wall time per round trip, default stream for both, result checked first."""
from __future__ import annotations

import time

import peers
from peers import SAXPY, fresh_dir
from report import ERROR, SKIPPED, UNAVAILABLE, WrongResult, failed
from timing import describe, interleave

PART = "transfer"
BLOCK = 256
SIZES = (1 << 10, 1 << 16, 1 << 20, 1 << 24)
QUICK_SIZES = (1 << 16, 1 << 20, 1 << 24)
# The speed-up over CuPy's round trip each size must reach (1.0 for sizes not listed).
GOALS = {1 << 20: 1.5, 1 << 24: 1.3}


def names(n: int):
    mib = 3 * n * 4 / 2**20
    tag = f"[n={n:,}, {mib:.3g} MiB in + {n * 4 / 2**20:.3g} MiB out]"
    return f"xcuda launch on numpy {tag}", f"cupy.asarray + RawKernel + .get() {tag}"


def floor_name(n: int):
    return f"host memcpy of the same bytes, one thread (np.copyto) [n={n:,}]"


def run(env, res, cfg) -> None:
    sizes = QUICK_SIZES if cfg.quick else SIZES
    if not env.has_gpu:
        res.fail_part(PART, "ms", SKIPPED, env.gpu_reason)
        return _goals(res, sizes)
    cp, np = env.cp, env.np
    workdir = fresh_dir("transfer")
    module, xc_reason, cubin_path, note = peers.shared_cubin(env, SAXPY, "saxpy", workdir)
    xk = None
    if module is not None:
        try:
            xk = peers.xcuda_kernel(module, "saxpy")
        except Exception as exc:
            xc_reason = describe(exc)
    ck = cp.RawModule(path=cubin_path).get_function("saxpy")
    rng = np.random.default_rng()
    for n in sizes:
        xname, cname = names(n)
        grid = (n + BLOCK - 1) // BLOCK
        x = rng.standard_normal(n, dtype=np.float32)
        y = rng.standard_normal(n, dtype=np.float32)
        out = np.empty(n, np.float32)
        ref = 2.0 * x.astype(np.float64) + y.astype(np.float64)
        n32 = np.int32(n)

        def cupy_way():
            xd, yd, od = cp.asarray(x), cp.asarray(y), cp.asarray(out)
            ck((grid,), (BLOCK,), (xd, yd, od, n32))
            od.get(out=out)

        fns = {cname: cupy_way}
        if xk is not None:
            fns[xname] = lambda grid=grid, n=n: xk[grid, BLOCK](x, y, out, n)
        else:
            res.fail(PART, xname, "ms", ERROR, xc_reason)
        timed = {}
        for name, fn in fns.items():
            try:
                out.fill(np.nan)
                fn()
                err = float(np.max(np.abs(out.astype(np.float64) - ref)))
                if not err <= 1e-5:
                    raise WrongResult(f"max |out - ref| = {err:g} (NaN = not copied back)")
                fn()
            except Exception as exc:
                res.fail(PART, name, "ms", *failed(exc, ours=name.startswith("xcuda")))
                continue

            def one(fn=fn):
                t0 = time.perf_counter()
                fn()
                return (time.perf_counter() - t0) * 1e3
            timed[name] = one
        # Context, no goal: staging through pinned memory copies every byte once on the host, so
        # this bounds what one thread's staging can reach (xcuda's pipeline hides the DMA behind it).
        scratch = np.empty(3 * n, np.float32)

        def host_copies():
            t0 = time.perf_counter()
            for i, a in enumerate((x, y, out)):
                np.copyto(scratch[i * n:(i + 1) * n], a)
            np.copyto(out, scratch[2 * n:])
            return (time.perf_counter() - t0) * 1e3
        timed[floor_name(n)] = host_copies
        for name, o in interleave(timed, cfg.transfer_reps).items():
            if o.failure:
                res.fail(PART, name, "ms", ERROR if name.startswith("xcuda") else UNAVAILABLE, o.failure)
            else:
                res.add(PART, name, "ms", o.samples, note="wall time, result on the host")
    res.meta["transfer set-up"] = note + "; pageable numpy arrays; default stream"
    _goals(res, sizes)


def _goals(res, sizes) -> None:
    for n in sizes:
        xname, cname = names(n)
        limit = GOALS.get(n, 1.0)
        res.goal(PART, f"numpy auto-transfer >= {limit:g}x CuPy round trip [n={n:,}]", xname, cname, ">=", limit,
                 invert=True)

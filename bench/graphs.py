"""Part 6: CUDA graphs. 100 small kernels (each adds 1 to a 256-element array, in a chain on one
stream) launched one by one from Python, against the same 100 launches captured once with
`with xcuda.graph()` and replayed with g.launch(), and against torch.cuda.CUDAGraph capturing the
same xcuda launches (on torch's capture stream) and replaying them. Host time per kernel; every
variant is checked (the array counts its launches) before it is timed."""
from __future__ import annotations

from report import ERROR, SKIPPED, UNAVAILABLE, WRONG, WrongResult
from timing import describe, host_ns_per_call, interleave

PART = "graphs"
KERNELS = 100
N = 256
SOURCE = r'''
extern "C" __global__ void add_one(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}
'''
EAGER = f"xcuda, {KERNELS} launches one by one"
GRAPH = f"xcuda.graph replay of the {KERNELS} launches"
TORCH = f"torch.cuda.CUDAGraph replay of the {KERNELS} xcuda launches"


def run(env, res, cfg) -> None:
    if not env.has_gpu:
        for name in (EAGER, GRAPH, TORCH):
            res.fail(PART, name, "ns", SKIPPED, env.gpu_reason)
        _goals(res)
        return
    np = env.np
    try:
        xc = env.xcuda_or_raise()
        add_one = xc.compile(SOURCE).add_one
        stream = xc.Stream()
        y = xc.zeros(N, np.float32)
    except Exception as exc:
        for name in (EAGER, GRAPH, TORCH):
            res.fail(PART, name, "ns", ERROR, describe(exc))
        _goals(res)
        return
    grid, block = (N + 127) // 128, 128

    def eager():
        launch = add_one[grid, block, 0, stream]
        for _ in range(KERNELS):
            launch(y, N)

    with xc.graph(stream) as g:
        eager()
    calls = {EAGER: eager, GRAPH: g.launch}

    if env.torch is not None:
        torch = env.torch
        try:
            tg = torch.cuda.CUDAGraph()
            ts = torch.cuda.Stream()
            with torch.cuda.graph(tg, stream=ts):
                launch = add_one[grid, block, 0, ts.cuda_stream]
                for _ in range(KERNELS):
                    launch(y, N)
            calls[TORCH] = tg.replay
        except Exception as exc:
            res.fail(PART, TORCH, "ns", UNAVAILABLE, describe(exc))
    else:
        res.fail(PART, TORCH, "ns", UNAVAILABLE, env.why("torch"))

    timed = {}
    for name, call in calls.items():
        try:
            _check(xc, np, y, stream, call, env)
        except Exception as exc:
            res.fail(PART, name, "ns", WRONG if isinstance(exc, WrongResult) else ERROR, describe(exc))
            continue

        def sample(call=call, per=KERNELS):
            ns = host_ns_per_call(call, cfg.graph_iters) / per
            xc.synchronize()
            return ns
        timed[name] = sample

    print(f"   timing {len(timed)} variants x {cfg.launch_reps} x {cfg.graph_iters} calls, interleaved")
    for name, o in interleave(timed, cfg.launch_reps).items():
        if o.failure:
            res.fail(PART, name, "ns", ERROR, o.failure)
        else:
            res.add(PART, name, "ns", o.samples,
                    note=f"host ns per kernel: {cfg.graph_iters} calls of {KERNELS} kernels per sample")
    res.meta["graphs set-up"] = f"{KERNELS} x add_one on {N} floats, grid={grid}, block={block}, one xcuda.Stream"
    _goals(res)


def _check(xc, np, y, stream, call, env):
    """One call must add exactly KERNELS to every element."""
    xc.synchronize()
    before = y.get()
    call()
    if env.torch is not None:
        env.torch.cuda.synchronize()
    xc.synchronize()
    got = y.get() - before
    if not np.all(got == KERNELS):
        raise WrongResult(f"one call added {np.unique(got)} to the array, not {KERNELS}")


def _goals(res) -> None:
    res.goal(PART, f"graph replay <= 0.33x launching the {KERNELS} kernels one by one (host time per kernel)",
             GRAPH, EAGER, "<=", 0.33)
    res.goal(PART, "graph replay <= 1.0x torch.cuda.CUDAGraph replay of the same launches", GRAPH, TORCH, "<=", 1.0)

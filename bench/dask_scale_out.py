"""Scale-out on one GPU: saxpy on a 2^26-element float32 array, in this process and split in
halves over two Dask worker processes (LocalCluster, processes=True) sharing the GPU. The
kernel is compiled here and pickled to the workers, as a notebook's would be.

    python3 bench/dask_scale_out.py [--log2n 26] [--repeats 5] [--json FILE]

Reports the median wall time of: one process launching on the whole array (numpy in and out,
so the host<->device copies are included), and two workers each launching on their half (the
halves already on the workers; timed from submit to both done, results left on the workers),
plus the time each task measured inside itself. Every result is checked against numpy.
Without a GPU or without Dask it prints SKIPPED and why, and exits 0."""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''
A = 2.0


def saxpy_task(kernel, x, y):
    """One chunk on the worker's GPU: numpy in, numpy out. Returns (result, seconds inside)."""
    start = time.perf_counter()
    y = y.copy()
    kernel[(x.size + 255) // 256, 256](A, x, y, x.size)
    return y, time.perf_counter() - start


def median_of(repeats, run):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def one_process(kernel, x, y, expected, repeats):
    kernel[(x.size + 255) // 256, 256](A, x, y.copy(), x.size)  # loads the module, sizes the staging pool
    seconds, times = median_of(repeats, lambda: saxpy_task(kernel, x, y))
    assert np.allclose(saxpy_task(kernel, x, y)[0], expected), "one process: result differs from numpy"
    return {"median_s": seconds, "runs_s": times}


def two_workers(kernel, x, y, expected, repeats):
    from distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        workers = list(client.scheduler_info()["workers"])
        halves = []
        for worker, xs, ys in zip(workers, np.array_split(x, 2), np.array_split(y, 2)):
            halves.append((worker, *client.scatter([xs, ys], workers=[worker])))

        def submit_both():
            return [client.submit(saxpy_task, kernel, xs, ys, workers=[w], pure=False) for w, xs, ys in halves]

        wait(submit_both())  # each worker unpickles the kernel, loads the module, sizes its pool
        inside = []

        def run():
            futures = submit_both()
            wait(futures)
            inside.append(futures)

        seconds, times = median_of(repeats, run)
        results = client.gather(inside[-1])
        assert np.allclose(np.concatenate([r for r, _ in results]), expected), "two workers: result differs"
        task_times = [client.gather([client.submit(lambda r: r[1], f) for f in futures]) for futures in inside]
        return {"median_s": seconds, "runs_s": times, "worker_pids": sorted(client.run(os.getpid).values()),
                "task_inside_s": task_times}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=26)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", help="also write the measurements here")
    args = parser.parse_args(argv)
    import xcuda

    if not xcuda.driver_available():
        print(f"SKIPPED: no CUDA GPU here: {xcuda.driver_unavailable_reason()}")
        return 0
    try:
        import distributed
    except ImportError:
        print("SKIPPED: Dask (distributed) is not importable in this Python: pip install distributed")
        return 0
    n = 1 << args.log2n
    rng = np.random.default_rng(0)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    expected = A * x + y
    kernel = xcuda.compile(SAXPY).saxpy
    out = {"n": n, "device": xcuda.Device(0).name, "xcuda": xcuda.__version__, "distributed": distributed.__version__,
           "one_process": one_process(kernel, x, y, expected, args.repeats),
           "two_workers": two_workers(kernel, x, y, expected, args.repeats)}
    one, two = out["one_process"]["median_s"], out["two_workers"]["median_s"]
    print(f"saxpy on 2^{args.log2n} float32 ({out['device']}), numpy in and out, median of {args.repeats}:")
    print(f"  one process, whole array:        {one * 1e3:8.1f} ms")
    print(f"  two worker processes, one half each: {two * 1e3:8.1f} ms  ({two / one:.2f}x the one process's time)")
    print("  results checked against numpy")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

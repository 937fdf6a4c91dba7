"""Kernel.benchmark, %cuda_timeit and %%cuda_profile on a real GPU: skipped, with the reason,
where no CUDA device is usable; the magics' tests also skip where IPython is not installed
(the GPU machine's Python 3.12), and the same logic runs there through xcuda.cuda_timeit and
xcuda.cuda_profile."""
import importlib.util

import numpy as np
import pytest

import xcuda

from conftest import SAXPY, requires_gpu

pytestmark = requires_gpu
needs_ipython = pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython is not installed")

N = 1 << 20
SCALE = r'''
extern "C" __global__ void scale_p(float* y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] *= s;
}
'''


@pytest.fixture(scope="module")
def kernels():
    return xcuda.compile(SAXPY).saxpy, xcuda.compile(SCALE).scale_p


@pytest.fixture
def ns(kernels):
    saxpy, scale = kernels
    return {"saxpy": saxpy, "scale_p": scale, "N": N, "np": np,
            "x": xcuda.to_device(np.ones(N, np.float32)), "y": xcuda.to_device(np.ones(N, np.float32))}


def test_benchmark_of_saxpy_gives_plausible_gpu_times(kernels, ns):
    saxpy, _ = kernels
    r = saxpy.benchmark(2.0, ns["x"], ns["y"], N, grid=(N + 255) // 256, block=256, repeat=5)
    assert r.repeat == 5 and len(r.timings) == 5 and 1 <= r.number <= 100000
    assert 0 < r.min <= r.median <= r.max < 0.01, r.timings  # 8 MiB through an H200: microseconds
    assert 0.05 < sum(r.all_runs) / len(r.all_runs) < 2.0  # automatic number aims at 0.2 s a run
    assert "per launch" in repr(r) and "CUDA events" in repr(r)


def test_benchmark_copies_numpy_arguments_in_once_and_back_after_the_last_launch(kernels):
    saxpy, _ = kernels
    x = np.ones(1024, np.float32)
    y = np.ones(1024, np.float32)
    r = saxpy.benchmark(2.0, x, y, 1024, grid=4, block=256, number=3, repeat=2, warmup=1)
    launches = 1 + r.number * r.repeat
    assert np.all(y == 1 + 2.0 * launches), y[:4]


def test_cuda_timeit_function_times_the_statements_launches(ns):
    r = xcuda.cuda_timeit("saxpy[(N + 255) // 256, 256](2.0, x, y, N)", ns, number=50, repeat=3)
    assert r.per == "launch" and 0 < r.min <= r.median <= r.max < 0.01
    both = xcuda.cuda_timeit("saxpy[(N + 255) // 256, 256](2.0, x, y, N); scale_p[(N + 255) // 256, 256](y, 0.5, N)",
                             ns, number=50, repeat=3)
    assert both.per == "loop" and both.median > r.median * 1.2


def test_cuda_profile_function_lists_both_kernels_with_their_shapes(ns):
    report = xcuda.cuda_profile("saxpy[(N + 255) // 256, 256](2.0, x, y, N)\n"
                                "scale_p[(64, 2), (128, 2)](y, 0.5, N)\n", ns)
    rows = [line.split() for line in report.plain.splitlines() if line[:1].isdigit()]
    assert [r[1] for r in rows] == ["saxpy", "scale_p"]
    assert rows[0][3:5] == [str((N + 255) // 256), "256"]
    assert rows[1][3:9] == ["(64,", "2,", "1)", "(128,", "2,", "1)"]
    occupancy = [float(w[:-1]) / 100 for r in rows for w in r if w.endswith("%")]
    assert len(occupancy) == 2 and all(0 < o <= 1 for o in occupancy)
    assert "GB/s" in report.plain and "<svg" in report.svg


@needs_ipython
def test_cuda_timeit_magic_prints_the_timeit_line(ip, ns, capsys):
    ip.user_ns.update(ns)
    ip.run_line_magic("cuda_timeit", "-n 20 -r 3 saxpy[(N + 255) // 256, 256](2.0, x, y, N)")
    assert "per launch (median of 3 runs, 20 launches each; CUDA events)" in capsys.readouterr().out


@needs_ipython
def test_cuda_profile_magic_lists_two_kernels(ip, ns, capsys):
    ip.user_ns.update(ns)
    r = ip.run_cell("%%cuda_profile\nsaxpy[(N + 255) // 256, 256](2.0, x, y, N)\nscale_p[64, 128](y, 0.5, N)\n")
    assert r.success, r.error_in_exec
    out = capsys.readouterr().out
    assert "2 launches" in out and "saxpy" in out and "scale_p" in out

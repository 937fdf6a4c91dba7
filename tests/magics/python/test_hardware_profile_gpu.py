"""Hardware counters and PC sampling on a real GPU (skipped, with the reason, elsewhere): the
figures a user reads are checked against what the kernels provably do."""
import importlib.util

import numpy as np
import pytest

import xcuda

from conftest import SAXPY, requires_gpu

pytestmark = requires_gpu
needs_ipython = pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython is not installed")

N = 1 << 26  # 256 MiB per float32 array: far beyond the L2, so every byte goes through DRAM
LOOP = r'''
extern "C" __global__ void chain(float* out, int steps) {
    float v = threadIdx.x;
    for (int s = 0; s < steps; ++s) v = v * 1.0001f + 0.5f;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
'''


@pytest.fixture(scope="module")
def arrays():
    return xcuda.to_device(np.ones(N, np.float32)), xcuda.to_device(np.ones(N, np.float32))


@pytest.fixture(scope="module")
def saxpy_kernel():
    return xcuda.compile(SAXPY).saxpy


def test_counters_of_saxpy_are_two_arrays_read_one_written_and_one_fma_per_element(saxpy_kernel, arrays):
    x, y = arrays
    values = xcuda.counters(lambda: saxpy_kernel[N // 256, 256](2.0, x, y, N))
    assert len(values) == 1
    v = values[0]
    assert v["dram__bytes_read.sum"] == pytest.approx(2 * 4 * N, rel=0.05)
    assert 0.85 * 4 * N < v["dram__bytes_write.sum"] < 1.05 * 4 * N  # a few MiB may stay in the L2
    assert v["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == N
    assert v["smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"] == 0
    assert 0 < v["dram__throughput.avg.pct_of_peak_sustained_elapsed"] <= 100
    assert v["gpu__time_duration.sum"] > 0


def test_profile_report_of_saxpy_is_memory_bound_with_a_roofline(saxpy_kernel, arrays):
    x, y = arrays
    report = saxpy_kernel.profile(2.0, x, y, N, grid=N // 256, block=256)
    assert "saxpy" in report.plain and "memory-bound" in report.plain, report.plain
    assert report.svg.startswith("<svg") and "saxpy" in report.svg
    assert "No hardware counters" not in report.plain


def test_raw_metric_names_are_collected_as_asked(saxpy_kernel, arrays):
    x, y = arrays
    v = xcuda.counters(lambda: saxpy_kernel[N // 256, 256](2.0, x, y, N),
                       metrics="lts__t_sector_hit_rate.pct, dram__bytes_read.sum")[0]
    assert set(v) == {"lts__t_sector_hit_rate.pct", "dram__bytes_read.sum"}
    assert 0 <= v["lts__t_sector_hit_rate.pct"] <= 100


def test_a_misspelt_metric_is_a_value_error_before_the_code_runs():
    ran = []
    with pytest.raises(ValueError, match="'dram__bytez_read.sum' is not a metric of GH100"):
        xcuda.counters(lambda: ran.append(1), metrics="dram__bytez_read.sum")
    assert ran == []


def test_an_error_in_the_code_propagates_and_the_next_profile_works(saxpy_kernel, arrays):
    x, y = arrays

    def fails():
        saxpy_kernel[N // 256, 256](2.0, x, y, N)
        raise KeyError("the cell's own error")

    with pytest.raises(KeyError, match="the cell's own error"):
        xcuda.counters(fails)
    assert len(xcuda.counters(lambda: saxpy_kernel[N // 256, 256](2.0, x, y, N))) == 1


def test_kernels_of_other_libraries_are_measured_and_numbered(saxpy_kernel, arrays):
    cp = pytest.importorskip("cupy")
    x, y = arrays
    a = cp.ones(1 << 20, cp.float32)
    ns = {"saxpy": saxpy_kernel, "x": x, "y": y, "N": N, "a": a}
    report = xcuda.cuda_profile("saxpy[N // 256, 256](2.0, x, y, N)\nb = a * 2\n", ns, metrics="basic")
    assert "2 kernels were measured and the code made 1 xcuda launches" in report.plain, report.plain
    assert "kernel #2" in report.plain


def test_lines_puts_the_samples_of_a_long_loop_on_its_line_of_the_cell():
    chain = xcuda.compile(LOOP).chain  # no --lineinfo: the lines come from a -lineinfo build of the same code
    out = xcuda.empty(1024 * 256, np.float32)
    report = chain.profile(out, 200000, grid=1024, block=256, lines=True, metrics=None)
    assert "chain" in report.plain
    hottest = report.plain.split("hottest line ")[1]
    assert hottest.startswith("4 "), report.plain  # the loop, line 4 of LOOP


@needs_ipython
def test_cuda_profile_magic_with_metrics_and_lines(ip, saxpy_kernel, arrays, capsys):
    x, y = arrays
    chain = xcuda.compile(LOOP, lineinfo=True).chain
    ip.user_ns.update(saxpy=saxpy_kernel, x=x, y=y, N=N, chain=chain, out=xcuda.empty(1024 * 256, np.float32))
    r = ip.run_cell("%%cuda_profile --metrics=memory\nsaxpy[N // 256, 256](2.0, x, y, N)\n")
    assert r.success, r.error_in_exec
    r = ip.run_cell("%%cuda_profile --lines\nchain[1024, 256](out, 100000)\n")
    assert r.success, r.error_in_exec

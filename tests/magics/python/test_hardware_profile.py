"""%%cuda_profile --metrics/--lines, Kernel.profile and xcuda.counters: option checks, CUPTI's
host API (chips and metric names need no GPU) and the no-GPU behaviour. The collections
themselves run in test_hardware_profile_gpu.py on a GPU; the fallback to event timing on the
simulated driver in test_profiling.py."""
import pytest

import xcuda

from conftest import LOADED, CPU_DEVICE, requires_gpu, requires_no_device  # noqa: F401  (the GPU file shares the gating)


def test_help_lists_metrics_sets_and_lines(ip, capsys):
    ip.run_line_magic("cuda_profile", "-h")
    out = capsys.readouterr().out
    assert "--metrics[=SET|NAMES]" in out and "--lines" in out
    for word in ("basic:", "memory:", "compute:", "all:", "roofline", "stall reasons"):
        assert word in out, (word, out)


def test_an_unknown_metric_set_is_a_usage_error_naming_it_and_the_cell_does_not_run(ip):
    ip.user_ns["ran"] = []
    r = ip.run_cell("%%cuda_profile --metrics=fastest\nran.append(1)\n")
    assert not r.success
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "--metrics fastest: not a metric set (basic, memory, compute, all)" in str(r.error_in_exec)
    assert ip.user_ns["ran"] == []


def test_metrics_and_lines_together_are_refused_before_the_cell_runs(ip):
    ip.user_ns["ran"] = []
    r = ip.run_cell("%%cuda_profile --metrics --lines\nran.append(1)\n")
    assert not r.success and "give one of them" in str(r.error_in_exec)
    assert ip.user_ns["ran"] == []


def test_the_profiler_host_api_names_chips_and_metrics_without_a_gpu():
    chips = xcuda.profiler_chips()
    assert "GH100" in chips and "GA100" in chips
    metrics = xcuda.profiler_metrics("GH100")
    for name in ("dram__bytes_read", "sm__throughput", "smsp__sass_thread_inst_executed_op_ffma_pred_on"):
        assert name in metrics


def test_an_unknown_chip_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="'GX999' is not one CUPTI"):
        xcuda.profiler_metrics("GX999")


@requires_no_device
def test_without_a_gpu_the_code_runs_once_and_the_report_says_counters_need_one():
    ns = {"ran": []}
    report = xcuda.cuda_profile("ran.append(1)", ns, metrics="basic")
    assert ns["ran"] == [1]
    assert report.plain.startswith("No hardware counters: they need a GPU: no CUDA "), report.plain
    assert "launched no" in report.plain  # the event-timing report that still follows


@requires_no_device
def test_without_a_gpu_xcuda_counters_raises_no_device_error():
    with pytest.raises(xcuda.NoDeviceError):
        xcuda.counters(lambda: None)


on_cpu_device = pytest.mark.skipif(LOADED is not CPU_DEVICE, reason="checks the CPU device; this run uses another")


@on_cpu_device
def test_on_the_cpu_device_the_code_runs_once_and_the_report_says_counters_need_a_gpu(saxpy):
    import numpy as np
    y = np.ones(64, np.float32)
    ns = {"k": saxpy, "x": np.arange(64, dtype=np.float32), "y": y}
    report = xcuda.cuda_profile("k[1, 64](2.0, x, y, 64)", ns, metrics="basic")
    assert report.plain.startswith("No hardware counters: they need a GPU"), report.plain
    assert "CPU device" in report.plain, report.plain
    assert np.array_equal(y, 2.0 * np.arange(64, dtype=np.float32) + 1), "the launch ran once, as written"


@on_cpu_device
def test_on_the_cpu_device_xcuda_counters_says_they_need_a_gpu():
    with pytest.raises(xcuda.ProfilerUnavailableError, match="need a GPU"):
        xcuda.counters(lambda: None)


def test_profiler_unavailable_error_is_a_cuda_error():
    assert issubclass(xcuda.ProfilerUnavailableError, xcuda.CudaError)


def test_kernel_profile_with_metrics_and_lines_is_refused_before_it_launches(saxpy):
    # PC sampling right after a counter collection in one call sampled nothing on the H200: one
    # profiler a call, like the magic.
    with pytest.raises(Exception, match="give one of them") as e:
        saxpy.profile(2.0, None, None, 0, grid=1, block=1, metrics="basic", lines=True)
    assert type(e.value).__name__ in ("UsageError", "ValueError")


@on_cpu_device
def test_on_the_cpu_device_cuda_profile_shows_each_lines_exact_counts():
    import numpy as np
    m = xcuda.compile(r"""
extern "C" __global__ void gather(const float* in, float* out, int stride) {
    float v = in[threadIdx.x * stride];
    out[threadIdx.x] = v;
}""")
    ns = {"k": m.gather, "x": np.ones(32 * 32, np.float32), "y": np.zeros(32, np.float32)}
    report = xcuda.cuda_profile("k[1, 32](x, y, 32)", ns)
    text = report.plain
    assert "gather on the CPU device:" in text, text
    row = next(line for line in text.splitlines() if "float v = in[threadIdx.x * stride];" in line)
    assert "32.0" in row, row  # every lane 128 bytes from the next: a sector each
    assert "in[threadIdx.x * stride]" in report.html

"""Kernel.benchmark, %cuda_timeit and %%cuda_profile against the runtime's simulated driver
(ctest's magics.python.sim-driver sets XCUDA_CUDA_DRIVER). The simulator reports 1.5 ms
between any two timing events and 10 registers for every kernel, so the figures are exact."""
import importlib.util

import numpy as np
import pytest

import xcuda

from test_sim_driver import last_launch, simulator_loaded

pytestmark = pytest.mark.skipif(not simulator_loaded(),
                                reason="XCUDA_CUDA_DRIVER does not name the simulated driver (ctest sets it)")
needs_ipython = pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython is not installed")

SIM_MS = 1.5
SOURCE = r'''
extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}
extern "C" __global__ void bounded(float* y) {}
'''


@pytest.fixture(scope="module")
def sim():
    return xcuda.compile(SOURCE, arch="compute_90")


@pytest.fixture
def shell(ip, sim):
    d = xcuda.zeros(4, np.float32)
    ip.user_ns.update(sim=sim, d=d, np=np)
    return ip


def test_benchmark_divides_each_runs_event_time_by_its_launches(sim):
    d = xcuda.zeros(4, np.float32)
    r = sim.plain.benchmark(1.0, d, d, 4, grid=1, block=32, number=10, repeat=3)
    assert isinstance(r, xcuda.BenchmarkResult)
    assert (r.number, r.repeat, r.per, r.label) == (10, 3, "launch", "plain")
    assert r.timings == pytest.approx([SIM_MS / 1000 / 10] * 3)
    assert r.all_runs == pytest.approx([SIM_MS / 1000] * 3)
    assert r.min <= r.median <= r.max and r.median == pytest.approx(150e-6)
    assert r.stdev == 0 and r.mean == pytest.approx(r.median)
    assert repr(r) == str(r) == "150 µs ± 0 µs per launch (median of 3 runs, 10 launches each; CUDA events)"
    bundle = r._repr_mimebundle_()
    assert bundle["text/plain"].startswith("150 µs") and "<table" in bundle["text/html"]
    assert "<table" in r._repr_html_()


def test_benchmark_picks_number_for_a_run_of_about_a_fifth_of_a_second(sim):
    d = xcuda.zeros(4, np.float32)
    r = sim.plain.benchmark(1.0, d, d, 4, grid=1, block=32, repeat=2, warmup=0)
    # A batch of 14 launches took 1.5 ms, so 0.2 s needs ceil(0.2 * 14 / 0.0015) launches.
    assert r.number == 1867 and r.repeat == 2
    assert r.all_runs == pytest.approx([SIM_MS / 1000] * 2)


def test_benchmark_on_a_stream_and_with_numpy_arguments(sim):
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, np.float32)
    r = sim.plain.benchmark(1.0, x, y, 4, grid=(1, 1), block=(32, 1, 1), stream=xcuda.Stream(), number=4, repeat=1)
    assert r.timings == pytest.approx([SIM_MS / 1000 / 4])


def test_benchmark_launch_errors_are_the_launch_errors(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(xcuda.LaunchError, match="256"):
        sim.bounded.benchmark(d, grid=1, block=512, number=1, repeat=1)


def test_benchmark_launches_with_the_launch_options(sim):
    d = xcuda.zeros(4, np.float32)
    r = sim.plain.benchmark(1.0, d, d, 4, grid=8, block=32, cooperative=True, cluster=2, number=3, repeat=1)
    assert r.number == 3
    assert last_launch() == "cuLaunchKernelEx plain grid=(8,1,1) block=(32,1,1) shared=0 cooperative=1 cluster=(2,1,1)"
    with pytest.raises(xcuda.LaunchError, match="at most 1056"):
        sim.plain.benchmark(1.0, d, d, 4, grid=2000, block=256, cooperative=True, number=1, repeat=1)


def test_timed_and_profiled_launches_keep_their_launch_options(sim):
    ns = {"sim": sim, "d": xcuda.zeros(4, np.float32)}
    stmt = "sim.plain[4, 32].with_options(cooperative=True)(1.0, d, d, 4)"
    r = xcuda.cuda_timeit(stmt, ns, number=2, repeat=1)
    assert r.median == pytest.approx(SIM_MS / 1000)
    assert last_launch() == "cuLaunchKernelEx plain grid=(4,1,1) block=(32,1,1) shared=0 cooperative=1"
    report = xcuda.cuda_profile("sim.plain(1.0, d, d, 4, grid=4, block=32, cluster=2)\n", ns)
    assert "1 launch" in report.plain
    assert last_launch() == "cuLaunchKernelEx plain grid=(4,1,1) block=(32,1,1) shared=0 cluster=(2,1,1)"


@needs_ipython
def test_cuda_timeit_times_each_launch_and_returns_the_result_with_o(shell, capsys):
    r = shell.run_line_magic("cuda_timeit", "-n 5 -r 3 -o sim.plain[1, 32](1.0, d, d, 4)")
    assert isinstance(r, xcuda.BenchmarkResult)
    assert (r.number, r.repeat, r.per) == (5, 3, "launch")
    assert r.median == pytest.approx(SIM_MS / 1000)
    assert r.label == "sim.plain[1, 32](1.0, d, d, 4)"
    assert "1.50 ms ± " in capsys.readouterr().out


@needs_ipython
def test_cuda_timeit_sums_the_launches_of_a_statement_per_loop(shell, capsys):
    assert shell.run_line_magic("cuda_timeit", "-n 2 -r 2 sim.plain[1, 32](1.0, d, d, 4); sim.bounded[1, 256](d)") is None
    out = capsys.readouterr().out
    assert "3.00 ms ± " in out and "per loop (median of 2 runs, 2 loops each; CUDA events)" in out


@needs_ipython
def test_cuda_timeit_without_n_picks_the_number(shell):
    r = shell.run_line_magic("cuda_timeit", "-r 1 -o sim.plain[1, 32](1.0, d, d, 4)")
    # At least 1.5 ms of GPU time per execution: 0.2 s needs at most ceil(0.2 / 0.0015).
    assert 1 <= r.number <= 134 and r.repeat == 1


@needs_ipython
def test_cuda_timeit_runs_the_statement_in_the_user_namespace(shell):
    shell.user_ns["timeit_runs_p"] = 0
    shell.run_line_magic("cuda_timeit", "-n 3 -r 2 sim.bounded[1, 256](d); timeit_runs_p += 1")
    assert shell.user_ns["timeit_runs_p"] == 1 + 3 * 2  # warm-up, then number * repeat


@needs_ipython
def test_cuda_profile_reports_every_launch_with_occupancy_and_bandwidth(shell, capsys):
    r = shell.run_cell("%%cuda_profile\n"
                       "sim.plain[(2, 2), 32](1.0, d, np.ones(4, np.float32), 4)\n"
                       "sim.bounded[3, 256](d)\n"
                       "profiled_p = True\n")
    assert r.success, r.error_in_exec
    assert shell.user_ns["profiled_p"] is True
    out = capsys.readouterr().out
    assert "2 launches, 3.00 ms in all" in out
    lines = [line.split() for line in out.splitlines() if line[:1].isdigit()]
    # #, kernel, device, grid (3 words), block, regs, shared (2), occupancy, time (2), bandwidth (2)
    assert lines[0][:9] == ["1", "plain", "0", "(2,", "2,", "1)", "32", "10", "0"]
    assert lines[0][10] == "50%"   # 1 warp per block, at most 32 blocks per SM of 64 warps
    assert lines[1][:5] == ["2", "bounded", "0", "3", "256"]
    assert lines[1][8] == "100%"   # 8 warps per block, 8 blocks per SM
    assert "1.50 ms" in " ".join(lines[0]) and "GB/s" in " ".join(lines[0])


@needs_ipython
def test_cuda_profile_bandwidth_is_unknown_for_an_array_without_nbytes(shell, capsys):
    class CaiOnly:
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    shell.user_ns["cai_p"] = CaiOnly(shell.user_ns["d"])
    r = shell.run_cell("%%cuda_profile\nsim.bounded[1, 32](cai_p)\n")
    assert r.success, r.error_in_exec
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith("1 ")][0]
    assert "GB/s" not in row


@needs_ipython
def test_cuda_profile_reports_the_launches_before_an_error_then_raises_it(shell, capsys):
    r = shell.run_cell("%%cuda_profile\nsim.plain[1, 32](1.0, d, d, 4)\nsim.bounded[1, 512](d)\n")
    assert isinstance(r.error_in_exec, xcuda.LaunchError)
    report = capsys.readouterr().out.split("Traceback")[0]
    assert "1 launch, 1.50 ms in all" in report and "bounded" not in report


@needs_ipython
def test_launches_after_profiling_are_not_recorded(shell, capsys):
    assert shell.run_cell("%%cuda_profile\nsim.plain[1, 32](1.0, d, d, 4)\n").success
    capsys.readouterr()
    assert shell.run_cell("sim.plain[1, 32](1.0, d, d, 4)").success
    assert capsys.readouterr().out == ""


def test_cuda_timeit_function_works_without_ipython(sim):
    ns = {"sim": sim, "d": xcuda.zeros(4, np.float32)}
    r = xcuda.cuda_timeit("sim.plain[1, 32](1.0, d, d, 4)", ns, number=4, repeat=2)
    assert (r.number, r.repeat) == (4, 2) and r.median == pytest.approx(SIM_MS / 1000)
    with pytest.raises(ValueError, match="repeat=0"):
        xcuda.cuda_timeit("sim.plain[1, 32](1.0, d, d, 4)", ns, repeat=0)


def test_cuda_profile_function_returns_the_report(sim):
    ns = {"sim": sim, "d": xcuda.zeros(4, np.float32)}
    report = xcuda.cuda_profile("sim.bounded[4, 128](d)\nsim.bounded[4, 128](d)\n", ns)
    assert isinstance(report, xcuda.Report)
    assert "2 launches, 3.00 ms in all" in report.plain
    assert "<table" in report.html and "<svg" in report.svg


def test_metrics_on_another_driver_fall_back_to_event_timing_with_the_reason(sim):
    # CUPTI reads NVIDIA's driver only; the simulated one stands for a machine where counters
    # cannot be read: the code still runs once, timed by events, and one line says why.
    d = xcuda.zeros(4, np.float32)
    ns = {"sim": sim, "d": d, "runs": []}
    report = xcuda.cuda_profile("runs.append(1)\nsim.plain[2, 32](1.0, d, d, 4)", ns, metrics="basic")
    assert ns["runs"] == [1]
    first, rest = report.plain.split("\n", 1)
    assert first.startswith("No hardware counters: CUPTI reads the counters of NVIDIA's driver"), first
    assert "unset it to profile with hardware counters" in first
    assert "plain" in rest and "1 launch, 1.50 ms in all" in rest, rest
    with pytest.raises(xcuda.ProfilerUnavailableError, match="XCUDA_CUDA_DRIVER=") as e:
        xcuda.counters(lambda: None)
    assert e.value.reason == "unsupported"


def test_kernel_profile_on_another_driver_launches_once_and_reports_the_reason(sim):
    d = xcuda.zeros(4, np.float32)
    report = sim.plain.profile(1.0, d, d, 4, grid=2, block=32, lines=True)
    assert last_launch() == "cuLaunchKernel plain grid=(2,1,1) block=(32,1,1) shared=0"
    assert report.plain.startswith("No hardware counters:") and "plain" in report.plain

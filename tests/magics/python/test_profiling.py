"""%cuda_timeit, %%cuda_profile and Kernel.benchmark: help, argument checks and the no-GPU
behaviour (no device needed). test_profiling_sim.py runs the timing logic on the simulated
driver; test_profiling_gpu.py on a real GPU."""
import pytest

import xcuda

from conftest import SAXPY


def run(ip, cell):
    return ip.run_cell(cell)


def test_cuda_timeit_help_lists_its_options(ip, capsys):
    ip.run_line_magic("cuda_timeit", "-h")
    out = capsys.readouterr().out
    assert "%cuda_timeit [-n N] [-r R] [-o] STMT" in out
    assert "CUDA events" in out and "-o" in out


def test_cuda_profile_help_in_cell_and_line_form(ip, capsys):
    r = run(ip, "%%cuda_profile -h\nraise AssertionError('the cell must not run with -h')\n")
    assert r.success, r.error_in_exec
    out = capsys.readouterr().out
    assert "%%cuda_profile" in out and "upper-bound" in out
    ip.run_line_magic("cuda_profile", "-h")
    assert "theoretical occupancy" in capsys.readouterr().out


def test_cuda_profile_line_form_without_help_points_to_the_cell_form(ip):
    r = run(ip, "%cuda_profile\n")
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "on its own line" in str(r.error_in_exec)


def test_cuda_timeit_without_a_statement_is_a_usage_error(ip):
    r = run(ip, "%cuda_timeit -n 3\n")
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "needs a statement" in str(r.error_in_exec)


def test_cuda_timeit_rejects_a_zero_count(ip):
    r = run(ip, "%cuda_timeit -n 0 x = 1\n")
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "-n needs a positive whole number, got '0'" in str(r.error_in_exec)


def test_cuda_timeit_of_a_statement_without_launches_says_so(ip):
    r = run(ip, "%cuda_timeit -n 2 -r 2 timeit_counter_p = globals().get('timeit_counter_p', 0) + 1\n")
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "launched no xcuda kernel" in str(r.error_in_exec)
    # The statement ran once (the warm-up) in the user namespace, then timing stopped.
    assert ip.user_ns["timeit_counter_p"] == 1


def test_cuda_profile_cell_without_launches_runs_and_says_so(ip, capsys):
    r = run(ip, "%%cuda_profile\nprofiled_value_p = 6 * 7\n")
    assert r.success, r.error_in_exec
    assert ip.user_ns["profiled_value_p"] == 42
    assert "launched no CUDA kernels" in capsys.readouterr().out


def test_cuda_profile_error_in_the_cell_propagates_after_the_report(ip, capsys):
    r = run(ip, "%%cuda_profile\nraise KeyError('from the cell')\n")
    assert isinstance(r.error_in_exec, KeyError)
    assert "launched no CUDA kernels" in capsys.readouterr().out


def test_profiling_magics_do_not_nest(ip):
    r = run(ip, "%%cuda_profile\nget_ipython().run_line_magic('cuda_timeit', '-n 1 -r 1 x = 1')\n")
    assert type(r.error_in_exec).__name__ == "UsageError"
    assert "cannot run while %%cuda_profile is recording" in str(r.error_in_exec)
    # The outer recorder was removed: a later %cuda_timeit gets past the nesting check.
    r = run(ip, "%cuda_timeit -n 1 -r 1 x = 1\n")
    assert "launched no xcuda kernel" in str(r.error_in_exec)


def test_benchmark_needs_grid_and_block(saxpy):
    with pytest.raises(TypeError, match=r"saxpy.benchmark\(...\) needs grid= and block="):
        saxpy.benchmark(2.0, None, None, 4, grid=1)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(repeat=0), ValueError, r"repeat=0 is out of range; pass 1 to"),
    (dict(number=-3), ValueError, r"number=-3 is out of range"),
    (dict(warmup=1.5), TypeError, r"warmup must be an int, got 1.5"),
    (dict(repat=3), TypeError, r"unexpected keyword argument 'repat'"),
])
def test_benchmark_checks_its_options_before_any_device_work(saxpy, kwargs, error, message):
    with pytest.raises(error, match=message):
        saxpy.benchmark(2.0, None, None, 4, grid=1, block=32, **kwargs)


def test_benchmark_checks_the_kernel_arguments_before_any_device_work(saxpy):
    with pytest.raises(TypeError, match=r"argument `x`"):
        saxpy.benchmark(2.0, "not an array", None, 4, grid=1, block=32)


def test_benchmark_result_type_is_exported():
    assert "median" in dir(xcuda.BenchmarkResult) and "timings" in dir(xcuda.BenchmarkResult)
    assert "packed once" in xcuda.Kernel.benchmark.__doc__


@pytest.mark.skipif(xcuda.driver_available(), reason="a CUDA device is present")
def test_without_gpu_timeit_and_profile_raise_no_device_error(ip, capsys):
    assert run(ip, "%%cuda\n" + SAXPY).success
    setup = "import numpy as np\nxp = np.ones(4, np.float32)\nyp = np.ones(4, np.float32)\n"
    assert run(ip, setup).success
    r = run(ip, "%cuda_timeit -n 1 -r 1 saxpy[1, 4](2.0, xp, yp, 4)\n")
    assert type(r.error_in_exec).__name__ == "NoDeviceError"
    capsys.readouterr()
    r = run(ip, "%%cuda_profile\nbefore_p = 1\nsaxpy[1, 4](2.0, xp, yp, 4)\nafter_p = 1\n")
    assert type(r.error_in_exec).__name__ == "NoDeviceError"
    assert "launched no CUDA kernels" in capsys.readouterr().out
    assert ip.user_ns["before_p"] == 1 and "after_p" not in ip.user_ns

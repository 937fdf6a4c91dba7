"""%%cuda_check and Kernel.check: launches run on the CPU device with every check on,
findings reported in the cell's terms, the selected device and the checks' setting unchanged
after. They need the CPU device (not with XCUDA_DEVICE=none on a machine without a GPU)."""
import numpy as np
import pytest
from IPython.core.error import UsageError

import xcuda

needs_cpu_device = pytest.mark.skipif(
    not xcuda.device_available() and not xcuda.gpu_available(),
    reason="no CPU device in this run (XCUDA_DEVICE=none); ctest's magics.python runs these")

CELL = r'''%%cuda
extern "C" __global__ void scale(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) v[i] *= 2.0f;
}
extern "C" __global__ void shift(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
'''


@pytest.fixture
def kernels(ip):
    assert ip.run_cell(CELL).success
    ip.user_ns.pop("after", None)  # the shell is the session's: an earlier test's clean check set it
    return ip


@needs_cpu_device
def test_cuda_check_reports_an_out_of_bounds_write_at_its_line_and_parameter(kernels):
    ip = kernels
    ip.user_ns["v"] = np.ones(100, np.float32)
    result = ip.run_cell("%%cuda_check\nscale[1, 128](v, 100)\nafter = True\n")
    assert result.success  # the findings are the report, not an error of the cell
    report = result.result
    assert isinstance(report, xcuda.CheckReport) and not report.ok and report.launches == 1
    finding = report.findings[0]
    assert finding.kind == "out_of_bounds" and finding.line == 4 and finding.parameter == "v"
    assert "v[100]" in str(report) and "<pre" in report._repr_html_()
    assert "after" not in ip.user_ns  # the finding stopped the cell


@needs_cpu_device
def test_cuda_check_reports_a_shared_memory_race_with_both_lines(kernels):
    ip = kernels
    ip.user_ns["out"] = np.zeros(64, np.int32)
    report = ip.run_cell("%%cuda_check --tool racecheck\nshift[1, 64](out)\n").result
    finding = report.findings[0]
    assert finding.kind == "shared_race" and {finding.line, finding.other_line} == {8, 9}, str(report)


@needs_cpu_device
def test_a_clean_launch_is_reported_with_its_count_and_the_device_and_checks_come_back(kernels):
    ip = kernels
    device, checks = xcuda.get_device(), xcuda.cpu_checks()
    xcuda.cpu_checks(False)
    try:
        v = np.ones(100, np.float32)
        report = ip.user_ns["scale"].check(v, 99, grid=1, block=128)
        assert report.ok and report.launches == 1, str(report)
        assert v.tolist() == [2.0] * 100  # the checked launch ran (i <= 99: every element)
        assert "no findings in 1 launch " in str(report)
        assert xcuda.get_device() == device and xcuda.cpu_checks() is False
    finally:
        xcuda.cpu_checks(checks)


def test_cuda_check_options_are_checked_before_anything_runs(ip):
    with pytest.raises(UsageError, match="not a compute-sanitizer tool"):
        ip.run_cell_magic("cuda_check", "--tool leakcheck", "raise AssertionError('ran')")
    with pytest.raises(UsageError, match="cell below it"):
        ip.run_line_magic("cuda_check", "")

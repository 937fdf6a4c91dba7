"""%%cuda_check on a GPU: each launch runs again in a child process under
compute-sanitizer; findings are reported at the cell's lines with the parameter and element named;
the notebook's own context is never touched (a correct launch works right after each finding);
with no findings the results come back into the cell's arrays (numpy, DeviceArray, CuPy).
GPU machine only: they skip where the process has no GPU or no compute-sanitizer."""
import numpy as np
import pytest

import xcuda
from xcuda import _sanitizer

from test_cuda_check import CELL as CPU_DEVICE_CELL

pytestmark = pytest.mark.skipif(
    not xcuda.gpu_available() or _sanitizer.find_tool() is None,
    reason="needs a CUDA GPU and compute-sanitizer (tests/gpu/run-on-device.sh runs them on the GPU machine)")

# test_cuda_check.py's kernels (same lines), and two more for synccheck and initcheck.
CELL = CPU_DEVICE_CELL + r'''extern "C" __global__ void half_barrier(float* p) {
    if (threadIdx.x < 16) __syncthreads();
    p[threadIdx.x] = 1.0f;
}
extern "C" __global__ void copy(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
'''


@pytest.fixture
def kernels(ip):
    ip.user_ns.update(np=np, xcuda=xcuda)  # as a notebook's first cell would import them
    ip.user_ns.pop("after", None)  # the shell is the session's: an earlier test's clean check set it
    assert ip.run_cell(CELL).success
    xcuda.set_device(0)
    return ip


def check(ip, line, body):
    result = ip.run_cell(f"%%cuda_check {line}\n{body}\nafter = True\n")
    assert result.success, result.error_in_exec
    report = result.result
    assert isinstance(report, xcuda.CheckReport)
    assert "compute-sanitizer" in str(report), str(report)
    return report


def assert_gpu_still_works(ip):
    """A correct launch in the notebook's own context, right after the check."""
    ip.user_ns["w"] = np.ones(100, np.float32)
    assert ip.run_cell("scale[1, 128](w, 99)\nxcuda.synchronize()").success
    assert ip.user_ns["w"].tolist() == [2.0] * 100


def test_out_of_bounds_write_is_found_at_its_line_naming_the_parameter_and_the_array_is_kept(kernels):
    ip = kernels
    ip.user_ns["v"] = np.ones(100, np.float32)
    report = check(ip, "", "scale[1, 128](v, 100)")
    assert not report.ok and report.launches == 1
    f = report.findings[0]
    assert (f.kind, f.line, f.parameter, f.element) == ("out_of_bounds", 4, "v", 100), str(report)
    assert "v[100] is 0 bytes past the end of `v`" in str(report) and "`if (i <= n) v[i] *= 2.0f;`" in str(report)
    assert "after" not in ip.user_ns  # the finding stopped the cell
    assert ip.user_ns["v"].tolist() == [1.0] * 100  # a launch with findings leaves the arrays as they were
    assert_gpu_still_works(ip)


def test_shared_memory_race_is_found_with_both_lines(kernels):
    ip = kernels
    ip.user_ns["out"] = np.zeros(64, np.int32)
    report = check(ip, "--tool racecheck", "shift[1, 64](out)")
    f = report.findings[0]
    assert f.kind == "shared_race" and {f.line, f.other_line} == {8, 9}, str(report)
    assert_gpu_still_works(ip)


def test_barrier_not_every_thread_reaches_is_found_at_its_line(kernels):
    ip = kernels
    ip.user_ns["p"] = np.zeros(64, np.float32)
    report = check(ip, "--tool synccheck", "half_barrier[1, 64](p)")
    f = report.findings[0]
    assert f.kind == "divergent_barrier" and f.line == 12, str(report)
    assert_gpu_still_works(ip)


def test_read_of_an_array_nothing_wrote_is_found_by_initcheck_naming_it(kernels):
    ip = kernels
    ip.run_cell("src = xcuda.empty(512, np.float32)\ndst = xcuda.zeros(512, np.float32)")
    report = check(ip, "--tool initcheck", "copy[2, 256](src, dst, 512)")
    f = report.findings[0]
    assert (f.kind, f.line, f.parameter) == ("uninitialised_read", 17, "src"), str(report)
    # once written, the same launch is clean
    ip.run_cell("src.set(np.arange(512, dtype=np.float32))")
    report = check(ip, "--tool initcheck", "copy[2, 256](src, dst, 512)")
    assert report.ok, str(report)
    assert ip.user_ns["dst"].get().tolist() == list(range(512))
    assert_gpu_still_works(ip)


def test_a_clean_cell_copies_each_launchs_results_back_so_later_lines_see_them(kernels):
    ip = kernels
    ip.run_cell("v = np.ones(100, np.float32)\nd = xcuda.to_device(np.ones(100, np.float32))")
    report = check(ip, "", "scale[1, 128](v, 99)\nscale[1, 128](d, 99)\nscale[1, 128](v, 99)\nseen = v.sum()")
    assert report.ok and report.launches == 3, str(report)
    assert ip.user_ns["seen"] == 400.0 and ip.user_ns["after"]
    assert ip.user_ns["d"].get().tolist() == [2.0] * 100


def test_cupy_arrays_are_checked_and_written_back(kernels):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed here")
    ip = kernels
    ip.user_ns["c"] = cupy.ones(100, dtype=cupy.float32)
    report = check(ip, "", "scale[1, 128](c, 99)")
    assert report.ok, str(report)
    assert cupy.asnumpy(ip.user_ns["c"]).tolist() == [2.0] * 100
    report = check(ip, "", "scale[1, 128](c, 100)")
    assert report.findings[0].parameter == "v", str(report)  # the kernel's parameter name
    assert cupy.asnumpy(ip.user_ns["c"]).tolist() == [2.0] * 100


def test_kernel_check_runs_one_launch_under_the_tool(kernels):
    ip = kernels
    v = np.ones(100, np.float32)
    report = ip.user_ns["scale"].check(v, 100, grid=1, block=128)
    assert report.findings[0].element == 100 and v.tolist() == [1.0] * 100


# Kinds compute-sanitizer words in its own way (bench/probes/checks: m1, m2, m3, m8), as a cell.
KINDS = r'''%%cuda --name checked_kinds
#include <cassert>
extern "C" __global__ void vec4_sum(const float* in, float* out) {
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 a = v[threadIdx.x];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}
extern "C" __global__ void reciprocal(const float* in, float* out) {
    int i = threadIdx.x;
    assert(in[i] > 0.0f);
    out[i] = 1.0f / in[i];
}
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__device__ float* lut;
extern "C" __global__ void gather(float* out) { out[threadIdx.x] = lut[threadIdx.x]; }
'''


@pytest.fixture
def kinds(ip):
    ip.user_ns.update(np=np, xcuda=xcuda)
    ip.user_ns.pop("after", None)
    assert ip.run_cell(KINDS).success
    xcuda.set_device(0)
    return ip


def test_a_misaligned_vector_load_is_reported_as_misaligned_at_its_line(kinds):
    ip = kinds
    ip.run_cell("i = np.zeros(1024, np.float32)\no = np.zeros(32, np.float32)")
    f = check(ip, "", "vec4_sum[1, 32](i, o)").findings[0]
    assert (f.kind, f.line, f.parameter) == ("misaligned", 5, "in"), str(f)
    assert "not a multiple of 16 bytes" in str(f)
    assert_gpu_still_works(ip)


def test_a_failed_assert_is_an_assertion_at_its_line_with_its_message(kinds):
    ip = kinds
    ip.run_cell("i = np.zeros(32, np.float32)\no = np.zeros(32, np.float32)")
    f = check(ip, "", "reciprocal[1, 32](i, o)").findings[0]
    assert (f.kind, f.line, f.kernel) == ("assertion", 10, "reciprocal"), str(f)
    assert "`in[i] > 0.0f`" in str(f)
    assert_gpu_still_works(ip)


def test_a_null_argument_is_named_as_the_null_pointer(kinds):
    ip = kinds
    ip.run_cell("y = np.zeros(256, np.float32)")
    f = check(ip, "", "axpy[1, 256](2.0, None, y, 256)").findings[0]
    assert (f.kind, f.line, f.parameter) == ("out_of_bounds", 15, "x"), str(f)
    assert "`x` is a null pointer" in str(f)
    assert_gpu_still_works(ip)


def test_a_device_pointer_the_notebook_set_is_carried_into_the_check(kinds):
    ip = kinds
    ip.run_cell("t = xcuda.to_device(np.arange(32, dtype=np.float32))\n"
                "checked_kinds.globals['lut'].set(np.uint64(t.ptr))\n"
                "o = np.zeros(32, np.float32)")
    report = check(ip, "", "gather[1, 32](o)")
    assert report.ok, str(report)
    assert ip.user_ns["o"].tolist() == list(range(32))  # the child's result, copied back


def test_a_device_pointer_never_set_is_named_as_the_null_pointer(kinds):
    ip = kinds
    ip.run_cell("checked_kinds.globals['lut'].set(np.uint64(0))\no = np.zeros(32, np.float32)")
    f = check(ip, "", "gather[1, 32](o)").findings[0]
    assert (f.kind, f.line, f.parameter) == ("out_of_bounds", 18, "lut"), str(f)
    assert "`lut` is a null pointer" in str(f)

"""The CPU device's memory checks through the Python API, as a notebook meets them: each buggy
kernel runs after its correct twin, in one process, after launches on larger arrays (pooled
staging buffers then hold the smaller arrays, which hid overruns and misstated sizes). Each
report is checked in the words a learner reads: the line, the array's own name, element, size
and element type, null pointers named as such."""
import ctypes

import numpy as np
import pytest

import xcuda
from conftest import LOADED, CPU_DEVICE

pytestmark = pytest.mark.skipif(LOADED is not CPU_DEVICE, reason=(
    "the CPU device's checks (ctest's magics.python runs this file on the CPU device where there is no GPU; "
    "on a GPU, %%cuda_check runs compute-sanitizer: test_cuda_check_gpu.py)"))

SOURCE = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void copy(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
extern "C" __global__ void copy_off_by_one(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) dst[i] = src[i];
}
extern "C" __global__ void fill_off_by_one(float* out, int n) {
    for (int i = threadIdx.x; i <= n; i += blockDim.x) out[i] = 1.0f;
}
extern "C" __global__ void two_tiles(const float* in, float* out) {
    __shared__ float ta[32], tb[32];
    int t = threadIdx.x;
    tb[t % 32] = 0.0f;
    ta[t] = in[t];
    __syncthreads();
    out[t] = ta[t % 32] + tb[t % 32];
}
extern "C" __global__ void two_tiles_twin(const float* in, float* out) {
    __shared__ float ta[64], tb[32];
    int t = threadIdx.x;
    tb[t % 32] = 0.0f;
    ta[t] = in[t];
    __syncthreads();
    out[t] = ta[t] + tb[t % 32];
}
extern "C" __global__ void half_written(float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t < 32) tile[t] = t;
    __syncthreads();
    out[t] = tile[63 - t];
}
extern "C" __global__ void all_written(float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    tile[t] = t;
    __syncthreads();
    out[t] = tile[63 - t];
}
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
extern "C" __global__ void histogram(const int* values, int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[values[i]], 1);
}
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
__device__ float* table;
extern "C" __global__ void lookup(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
__device__ float coeffs[16];
extern "C" __global__ void weigh(float* out, int n) {
    if (threadIdx.x <= n) out[threadIdx.x] *= coeffs[threadIdx.x];
}
extern "C" __global__ void heap_use_after_free(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    p[threadIdx.x % 16] = threadIdx.x;
    free(p);
    out[threadIdx.x] = p[threadIdx.x % 16];
}
extern "C" __global__ void heap_double_free(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}
extern "C" __global__ void heap_bad_free(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    free(p + 4);
}
extern "C" __global__ void heap_overflow(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    for (int i = 0; i <= 4; ++i) p[i] = i;
    out[0] = p[0];
    free(p);
}
extern "C" __global__ void heap_correct(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    for (int i = 0; i < 16; ++i) p[i] = threadIdx.x + i;
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += p[i];
    free(p);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
extern "C" __global__ void reduce(const float* x, float* total, int n) {
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        float w = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
        cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
        for (int o = tile.size() / 2; o > 0; o /= 2) w += tile.shfl_down(w, o);
        if (tile.thread_rank() == 0) atomicAdd(total, w);
    }
}
extern "C" __global__ void double_buffer(const float* x, float* y, int n) {
    __shared__ float buf[2][128];
    int t = threadIdx.x, cur = 0;
    buf[cur][t] = x[t];
    __syncthreads();
    for (int step = 1; step < n / 128; ++step) {
        buf[cur ^ 1][t] = x[step * 128 + t];
        y[(step - 1) * 128 + t] = buf[cur][(t + 1) % 128];
        __syncthreads();
        cur ^= 1;
    }
    y[(n / 128 - 1) * 128 + t] = buf[cur][(t + 1) % 128];
}
__device__ unsigned flag;
extern "C" __global__ void publish(float* data, float* seen) {
    if (threadIdx.x == 0) {
        data[0] = 42.0f;
        __threadfence();
        atomicExch(&flag, 1u);
    }
    __syncthreads();
    if (threadIdx.x == 33) {
        while (atomicAdd(&flag, 0u) == 0u) {
        }
        __threadfence();
        seen[0] = data[0];
    }
}
'''


def line_of(text):
    """The cell line (1-based, as reports count) of the first line of SOURCE containing `text`."""
    return next(i for i, line in enumerate(SOURCE.splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def k():
    return xcuda.compile(SOURCE).kernels


def check_error(run):
    """The KernelCheckError that running `run` (then synchronising) raises."""
    with pytest.raises(xcuda.KernelCheckError) as info:
        run()
        xcuda.synchronize()
    return info.value


def test_an_array_staged_in_a_larger_pooled_buffer_is_checked_against_its_own_size(k):
    big_src, big_dst = np.arange(300, dtype=np.float32), np.zeros(300, np.float32)
    k["copy"][2, 256](big_src, big_dst, 300)
    src, dst = np.arange(240, dtype=np.float32), np.zeros(240, np.float32)
    k["copy"][2, 128](src, dst, 240)
    assert np.array_equal(dst, src)
    e = check_error(lambda: k["copy_off_by_one"][2, 128](src, dst, 240))
    assert e.kind == "out_of_bounds" and e.parameter == "src"
    assert e.line == line_of("if (i <= n) dst[i] = src[i];")
    assert e.thread == (112, 0, 0) and e.block == (1, 0, 0)
    assert "src[240] is 0 bytes past the end of `src` (240 elements of float, 960 bytes)" in str(e), str(e)


def test_a_report_after_a_launch_on_a_larger_array_quotes_the_arrays_own_size(k):
    k["copy"][1, 320](np.ones(300, np.float32), np.zeros(300, np.float32), 300)
    out = np.zeros(192, np.float32)
    e = check_error(lambda: k["fill_off_by_one"][1, 64](out, 192))
    assert e.kind == "out_of_bounds" and e.parameter == "out"
    assert "out[192] is 0 bytes past the end of `out` (192 elements of float, 768 bytes)" in str(e), str(e)


def test_a_device_array_and_a_view_of_one_are_checked_against_their_own_extents(k):
    whole = xcuda.to_device(np.arange(300, dtype=np.float32))
    out = xcuda.to_device(np.zeros(300, np.float32))
    k["copy"][2, 256](whole, out, 300)
    e = check_error(lambda: k["copy_off_by_one"][2, 256](whole, out, 300))
    assert "src[300] is 0 bytes past the end of `src` (300 elements of float, 1200 bytes)" in str(e), str(e)

    class View:
        """A CUDA-array-interface object viewing elements 40..139 of `whole` (as a CuPy slice would)."""
        def __init__(self, base, first, count):
            self.__cuda_array_interface__ = {"data": (base.ptr + 4 * first, False), "shape": (count,),
                                              "typestr": "<f4", "version": 3}

    view = View(whole, 40, 100)
    k["copy"][1, 128](view, out, 100)
    assert np.array_equal(out.get()[:100], np.arange(40, 140, dtype=np.float32))
    e = check_error(lambda: k["copy_off_by_one"][1, 128](view, out, 100))
    assert e.parameter == "src"
    assert "src[100] is 0 bytes past the end of `src` (100 elements of float, 400 bytes)" in str(e), str(e)


def test_a_host_tensor_viewing_the_cpu_devices_memory_passes_by_dlpack_with_its_own_extent(k):
    whole = xcuda.to_device(np.arange(300, dtype=np.float32))
    out = xcuda.to_device(np.zeros(300, np.float32))

    class HostTensor:
        """What torch.from_dlpack(a DeviceArray)[40:140] is on the CPU device: host memory of its
        arena, exported by DLPack (a writable numpy array over those bytes stands in for torch)."""
        def __init__(self, array):
            self.array = array

        def __dlpack__(self, stream=None):
            return self.array.__dlpack__()

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

    view = HostTensor(np.ctypeslib.as_array((ctypes.c_float * 100).from_address(whole.ptr + 4 * 40)))
    k["copy"][1, 128](view, out, 100)
    assert np.array_equal(out.get()[:100], np.arange(40, 140, dtype=np.float32))
    e = check_error(lambda: k["copy_off_by_one"][1, 128](view, out, 100))
    assert "src[100] is 0 bytes past the end of `src` (100 elements of float, 400 bytes)" in str(e), str(e)
    with pytest.raises(TypeError, match="not the CPU device's memory"):
        k["copy"][1, 128](HostTensor(np.ones(100, np.float32)), out, 100)


def test_an_overrun_of_one_shared_array_into_the_next_is_found(k):
    data, out = np.ones(64, np.float32), np.zeros(64, np.float32)
    k["two_tiles_twin"][4, 64](data, out)
    assert np.array_equal(out, data)
    e = check_error(lambda: k["two_tiles"][1, 64](data, out))
    assert e.kind == "out_of_bounds" and e.line == line_of("ta[t] = in[t];") and e.thread == (32, 0, 0)
    assert "ta[32] is 0 bytes past the end of `ta` (32 elements of float, 128 bytes)" in str(e), str(e)


def test_each_kernels_static_shared_memory_is_its_own(k):
    # The module's kernels together have 64+32+32+32+64+64+32+256 floats of it; each reports its own.
    assert k["two_tiles"].attributes["shared_size_bytes"] == 256
    assert k["half_written"].attributes["shared_size_bytes"] == 256
    assert k["copy"].attributes["shared_size_bytes"] == 0
    assert k["double_buffer"].attributes["shared_size_bytes"] == 1024


def test_shared_memory_no_thread_wrote_is_an_uninitialised_read(k):
    out = np.zeros(64, np.float32)
    k["all_written"][8, 64](out)
    assert out[0] == 63.0
    e = check_error(lambda: k["half_written"][1, 64](out))
    assert e.kind == "uninitialised_read" and e.line == line_of("out[t] = tile[63 - t];")
    assert e.thread == (0, 0, 0)
    assert ("tile[63] of `tile` (64 elements of float, 256 bytes) was never written: no thread of block (0,0,0) "
            "wrote it in this launch before this read" in str(e)), str(e)


def test_an_empty_device_array_read_before_anything_wrote_it_is_an_uninitialised_read(k):
    src, out = xcuda.empty(256, np.float32), xcuda.empty(256, np.float32)
    e = check_error(lambda: k["scale"][1, 256](src, out, 256))
    assert e.kind == "uninitialised_read" and e.parameter == "in" and e.line == line_of("out[i] = 2.0f * in[i];")
    assert ("in[0] of `in` (256 elements of float, 1024 bytes) was never written: the memory came from cuMemAlloc "
            "(xcuda.empty())" in str(e)), str(e)
    # Written by a kernel, a copy or zeros(): then read without a finding.
    k["copy"][1, 256](np.ones(256, np.float32), src, 256)
    k["scale"][1, 256](src, out, 256)
    assert out.get()[255] == 2.0
    copied = xcuda.empty(256, np.float32)
    copied.set(np.full(256, 3.0, np.float32))
    k["scale"][1, 256](copied, out, 256)
    k["scale"][1, 256](xcuda.zeros(256, np.float32), out, 256)
    xcuda.synchronize()


def test_an_atomic_on_bins_nothing_zeroed_is_an_uninitialised_read(k):
    values = np.full(64, 3, np.int32)
    bins = xcuda.zeros(8, np.int32)
    k["histogram"][1, 64](values, bins, 64)
    assert bins.get()[3] == 64
    e = check_error(lambda: k["histogram"][1, 64](values, xcuda.empty(8, np.int32), 64))
    assert e.kind == "uninitialised_read" and e.parameter == "bins"
    assert "bins[3] of `bins` (8 elements of int, 32 bytes) was never written" in str(e), str(e)
    assert "before this atomic" in str(e), str(e)


def test_a_null_argument_is_named_as_the_null_pointer_it_is(k):
    x, y = np.ones(1024, np.float32), np.ones(1024, np.float32)
    k["saxpy"][4, 256](2.0, x, y, 1024)
    e = check_error(lambda: k["saxpy"][1, 256](2.0, None, xcuda.to_device(y), 256))
    assert e.kind == "out_of_bounds" and e.parameter == "x"
    assert "`x` is a null pointer" in str(e) and "bytes before" not in str(e), str(e)
    e = check_error(lambda: k["saxpy"][1, 256](2.0, xcuda.to_device(x), None, 256))
    assert e.parameter == "y" and "`y` is a null pointer" in str(e), str(e)


def test_a_pointer_that_points_nowhere_is_named_with_the_address_it_holds(k):
    class Wild:
        __cuda_array_interface__ = {"data": (0x12345000, False), "shape": (256,), "typestr": "<f4", "version": 3}

    e = check_error(lambda: k["saxpy"][1, 256](2.0, xcuda.to_device(np.ones(256, np.float32)), Wild(), 256))
    assert e.parameter == "y"
    assert "`y` holds 0x12345000, an address no allocation covers" in str(e), str(e)


def test_a_device_pointer_variable_never_set_is_named_as_a_null_pointer():
    m = xcuda.compile(SOURCE)
    out = xcuda.empty(32, np.float32)
    e = check_error(lambda: m.kernels["lookup"][1, 32](out))
    assert e.kind == "out_of_bounds" and e.line == line_of("out[threadIdx.x] = table[threadIdx.x];")
    assert "`table` is a null pointer (the access is table[0], address 0x0)" in str(e), str(e)
    data = xcuda.to_device(np.arange(32, dtype=np.float32))
    m.get_global("table").set(np.uint64(data.ptr))
    m.kernels["lookup"][1, 32](out)
    assert np.array_equal(out.get(), np.arange(32, dtype=np.float32))


def test_a_device_array_variable_is_checked_against_its_declared_size(k):
    out = np.ones(32, np.float32)
    k["weigh"][1, 32](out, 15)
    e = check_error(lambda: k["weigh"][1, 32](out, 16))
    assert e.kind == "out_of_bounds" and e.line == line_of("out[threadIdx.x] *= coeffs[threadIdx.x];")
    assert e.thread == (16, 0, 0)
    assert "coeffs[16] is 0 bytes past the end of `coeffs` (16 elements of float, 64 bytes)" in str(e), str(e)


def test_device_heap_errors_are_found_with_the_lines_of_malloc_and_free(k):
    out = np.zeros(128, np.int32)
    k["heap_correct"][2, 64](out)
    assert out[0] == 120
    e = check_error(lambda: k["heap_use_after_free"][1, 32](np.zeros(32, np.int32)))
    assert e.kind == "use_after_free" and e.line == line_of("out[threadIdx.x] = p[threadIdx.x % 16];")
    malloc_line = line_of("int* p = static_cast<int*>(malloc(16 * sizeof(int)));")
    assert (f"the memory was freed: byte 0 of a 64-byte block device malloc returned at line {malloc_line}, freed by "
            f"free() at line {line_of('free(p);')}" in str(e)), str(e)
    assert "(the device heap)" in str(e)
    e = check_error(lambda: k["heap_double_free"][1, 32](np.zeros(32, np.int32)))
    assert e.kind == "invalid_free" and "device-side double free" in str(e), str(e)
    e = check_error(lambda: k["heap_bad_free"][1, 32](np.zeros(32, np.int32)))
    assert e.kind == "invalid_free" and e.line == line_of("free(p + 4);")
    assert "invalid pointer to device-side free" in str(e) and "16 bytes into a 64-byte block" in str(e), str(e)
    e = check_error(lambda: k["heap_overflow"][1, 32](np.zeros(32, np.int32)))
    assert e.kind == "out_of_bounds" and e.line == line_of("for (int i = 0; i <= 4; ++i) p[i] = i;")
    assert "0 bytes past the end of a 16-byte block device malloc returned" in str(e), str(e)
    k["heap_correct"][2, 64](out)
    assert out[127] == 63 * 16 + 120


def test_correct_kernels_with_shuffles_tiles_grid_stride_loops_double_buffers_atomics_and_fences_run_clean(k):
    n = 1 << 14
    x = np.ones(n, np.float32)
    total = xcuda.zeros(1, np.float32)
    k["reduce"][8, 256](x, total, n)
    assert total.get()[0] == n
    y = xcuda.empty(n, np.float32)
    k["double_buffer"][1, 128](x, y, n)
    assert y.get()[0] == 1.0
    data, seen = xcuda.empty(1, np.float32), xcuda.empty(1, np.float32)
    k["publish"][1, 64](data, seen)
    assert seen.get()[0] == 42.0


def test_cuda_check_initcheck_on_the_cpu_device_finds_a_read_of_an_empty_array(ip, k):
    ip.user_ns.update(scale=k["scale"], xcuda=xcuda, np=np)
    report = xcuda._cuda_check.checked(
        lambda: k["scale"][1, 256](xcuda.empty(256, np.float32), xcuda.empty(256, np.float32), 256), "initcheck")
    assert not report.ok and report.findings[0].kind == "uninitialised_read", str(report)

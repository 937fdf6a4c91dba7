"""The CPU device's synchronisation checks through the Python API, in one process and in a
notebook's order (correct kernels on larger arrays first, so the staging buffers the buggy
launches get are recycled ones): divergent barriers as compute-sanitizer's synccheck reports them
(bench/probes/checks/README.md) and races on global memory, which no GPU tool reports. Each buggy
kernel has a correct twin that runs clean; the correct ways to synchronise through memory
(atomics, fences and flags, cuda::atomic_ref, grid sync, the threadfence reduction) are not
reported. Messages name the cell's lines, never a temporary file."""
import re

import numpy as np
import pytest

import xcuda

SOURCE = r'''
#include <cooperative_groups.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
extern "C" __global__ void skip_partial(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}
extern "C" __global__ void return_partial(int* out, int n) {
    int t = threadIdx.x;
    if (t >= n) return;
    __syncthreads();
    out[t] = 1;
}
extern "C" __global__ void skip_whole_warps(int* out) {
    __shared__ int sm[128];
    int t = threadIdx.x;
    if (t < 64) __syncthreads();
    sm[t] = t;
    __syncthreads();
    out[t] = sm[127 - t];
}
extern "C" __global__ void half_barrier(int* out) {
    __shared__ int s[128];
    int tid = threadIdx.x;
    s[tid] = tid;
    if (tid < 64) __syncthreads();
    out[tid] = s[127 - tid];
}
// Each warp reads the next warp's part of a tile (a row of 32 words, or 16 read by both halves of
// the warp), then overwrites its own: without the barrier between, the next warp's write comes
// after this warp's read with nothing ordering them.
extern "C" __global__ void rotate_tile(float* out, int halves, int sync) {
    __shared__ float tile[256];
    int tid = threadIdx.x;
    tile[tid] = tid;
    __syncthreads();
    int next = ((tid / 32 + 1) % 8) * 32;
    float v = halves ? tile[next + tid % 16] : tile[next + tid % 32];
    if (sync) __syncthreads();
    tile[tid] = v;
    __syncthreads();
    out[tid] = tile[tid];
}
// After a barrier every warp rewrites its row of the tile and reads the row before it: without the
// second barrier, a warp reads what the warp before it has just written.
extern "C" __global__ void rewrite_tile(float* out, int sync) {
    __shared__ float tile[256];
    int tid = threadIdx.x;
    tile[tid] = 0.0f;
    __syncthreads();
    tile[tid] = tid + 1.0f;
    if (sync) __syncthreads();
    out[tid] = tile[((tid / 32 + 7) % 8) * 32 + tid % 32];
}
// A tiled product whose inner loop is unrolled by 4: NVRTC steps two pointers through the tiles and
// reads at negative displacements from them ([%rd+-128]); without the barrier after the inner loop,
// the next tile's stores overwrite what other threads are still reading.
extern "C" __global__ void matmul_unroll4(float* C, const float* A, const float* B, int n, int sync) {
    __shared__ float As[16][16], Bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += 16) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < 16; ++k) acc += As[ty][k] * Bs[k][tx];
        if (sync) __syncthreads();
    }
    C[row * n + col] = acc;
}
extern "C" __global__ void flag_handoff(int* data, volatile int* flag, int* out, int fence) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = t + 1;
        __syncthreads();
        if (t == 0) {
            if (fence) __threadfence();
            *flag = 1;
        }
    } else {
        if (t == 0) while (*flag == 0) { }
        __syncthreads();
        out[t] = data[t];
    }
}
extern "C" __global__ void smooth(const float* in, float* out, int n, int steps) {
    __shared__ float buf[2][130];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    buf[0][t + 1] = in[i];
    if (t == 0) buf[0][0] = buf[1][0] = i > 0 ? in[i - 1] : 0.0f;
    if (t == blockDim.x - 1) buf[0][t + 2] = buf[1][t + 2] = i + 1 < n ? in[i + 1] : 0.0f;
    __syncthreads();
    int cur = 0;
    for (int s = 0; s < steps; ++s) {
        buf[1 - cur][t + 1] = (buf[cur][t] + buf[cur][t + 1] + buf[cur][t + 2]) / 3.0f;
        __syncthreads();
        cur = 1 - cur;
    }
    out[i] = buf[cur][t + 1];
}
extern "C" __global__ void counter(int* count) {
    if (threadIdx.x == 0) count[0] = count[0] + 1;
}
extern "C" __global__ void counter_atomic(int* count) {
    if (threadIdx.x == 0) atomicAdd(&count[0], 1);
}
extern "C" __global__ void swap_halves(float* out, int sync) {
    int t = threadIdx.x;
    out[t] = t;
    if (sync) __syncthreads();
    out[(t + 32) % 64] += 1.0f;
}
__device__ unsigned int retirement = 0;
extern "C" __global__ void fence_reduce(const float* in, float* partial, float* result, int fence) {
    __shared__ float s[64];
    __shared__ bool last;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = in[i];
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        if (fence) __threadfence();
        unsigned int ticket = atomicInc(&retirement, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        float sum = 0;
        for (int b = t; b < gridDim.x; b += blockDim.x) sum += partial[b];
        s[t] = sum;
        __syncthreads();
        for (int h = blockDim.x / 2; h > 0; h >>= 1) {
            if (t < h) s[t] += s[t + h];
            __syncthreads();
        }
        if (t == 0) { *result = s[0]; retirement = 0; }
    }
}
extern "C" __global__ void histogram(const int* in, int* hist, int n, int atomic) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (atomic) atomicAdd(&hist[in[i] % 16], 1);
        else hist[in[i] % 16] += 1;
    }
}
extern "C" __global__ void handoff(int* data, int* flag, int* out) {
    cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        data[t] = 2 * t;
        __syncthreads();
        if (t == 0) f.store(1, cuda::memory_order_release);
    } else {
        if (t == 0) while (f.load(cuda::memory_order_acquire) == 0) { }
        __syncthreads();
        out[t] = data[t];
    }
}
extern "C" __global__ void rotate_grid(int* a, int n) {
    cg::grid_group g = cg::this_grid();
    int i = g.thread_rank();
    a[i] = i;
    g.sync();
    int v = a[(i + 64) % n];
    g.sync();
    a[i] = v;
}
extern "C" __global__ void shuffle_sum(const int* x, int* out, int n) {
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
    auto tile = cg::tiled_partition<32>(cg::this_thread_block());
    for (int o = 16; o > 0; o >>= 1) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}
'''
LINES = SOURCE.split("\n")


def line_of(text, after=0):
    """The cell line (1-based) of the first line at or after `after` that contains `text`."""
    return next(i + 1 for i, ln in enumerate(LINES) if i + 1 >= after and text in ln)


@pytest.fixture(scope="module")
def k():
    if not xcuda.device_available():
        pytest.skip("no CPU device in this run (XCUDA_DEVICE=none); ctest's magics.python runs these")
    device, checks = xcuda.get_device(), xcuda.cpu_checks()
    xcuda.set_device("cpu")
    xcuda.cpu_checks(True)
    try:
        kernels = xcuda.compile(SOURCE).kernels
        # A notebook's order: correct kernels on larger arrays first.
        n = 1 << 18
        x, y, out = np.ones(n, np.float32), np.full(n, 2.0, np.float32), np.zeros(n, np.float32)
        kernels["saxpy"][n // 256, 256](np.float32(3.0), x, y, out, np.int32(n))
        assert np.all(out == 5.0)
        total = np.zeros(1, np.int32)
        kernels["shuffle_sum"][16, 256](np.ones(100_000, np.int32), total, np.int32(100_000))
        assert total[0] == 100_000
        yield kernels
    finally:
        xcuda.cpu_checks(checks)
        xcuda.set_device(device)


def check_error(call):
    with pytest.raises(xcuda.KernelCheckError) as e:
        call()
    message = str(e.value)
    assert "/tmp/" not in message and ".cu:" not in message, message  # the cell's lines, not a file's
    return e.value


def test_lanes_of_a_warp_skipping_a_barrier_are_divergent_in_warp_at_its_line(k):
    e = check_error(lambda: k["skip_partial"][1, 64](np.zeros(64, np.int32)))
    assert e.kind == "divergent_barrier" and e.line == line_of("if (threadIdx.x < 16) __syncthreads();")
    assert "Divergent thread(s) in warp" in str(e) and "threads 0-15" in str(e) and "threads 16-31" in str(e)
    assert e.other_line == line_of("out[threadIdx.x] = 1;")


def test_threads_returning_before_a_barrier_run_clean(k):
    out = np.zeros(64, np.int32)
    k["return_partial"][1, 64](out, np.int32(40))
    assert list(out) == [1] * 40 + [0] * 24


def test_whole_warps_skipping_a_barrier_are_blamed_at_the_next_one_naming_both(k):
    e = check_error(lambda: k["skip_whole_warps"][1, 128](np.zeros(128, np.int32)))
    skipped = line_of("if (t < 64) __syncthreads();")
    assert e.kind == "divergent_barrier" and e.line == skipped + 2 and e.other_line == skipped
    assert "Divergent thread(s) in block" in str(e) and "threads 64-127" in str(e), str(e)


def test_a_race_under_a_barrier_some_warps_skip_names_that_barrier(k):
    e = check_error(lambda: k["half_barrier"][1, 128](np.zeros(128, np.int32)))
    assert e.kind == "shared_race" and e.line == line_of("out[tid] = s[127 - tid];")
    assert e.other_line == line_of("s[tid] = tid;")
    barrier = line_of("if (tid < 64) __syncthreads();")
    assert f"waits at the barrier at line {barrier}" in str(e) and "did not reach" in str(e), str(e)


@pytest.mark.parametrize("halves", [0, 1], ids=["rows", "half-rows"])
def test_a_warp_overwriting_what_another_warp_read_races_until_a_barrier_separates_them(k, halves):
    # Many warps read rows of the tile before any writes (the reads the device records later, or
    # never when a barrier comes first); the first write after them must still find its reader.
    e = check_error(lambda: k["rotate_tile"][1, 256](np.zeros(256, np.float32), np.int32(halves), np.int32(0)))
    assert e.kind == "shared_race" and e.line == line_of("tile[tid] = v;"), str(e)
    assert e.other_line == line_of("float v = halves ?") and "`tile" in str(e), str(e)
    # warp 1's first write, after warp 0 read its words (not a later pair: the first race is found)
    assert e.thread == (32, 0, 0) and e.other_thread == (0, 0, 0), str(e)
    out = np.zeros(256, np.float32)
    k["rotate_tile"][1, 256](out, np.int32(halves), np.int32(1))
    tid = np.arange(256)
    expected = (tid // 32 + 1) % 8 * 32 + (tid % 16 if halves else tid % 32)
    assert np.array_equal(out, expected.astype(np.float32))


def test_a_warp_reading_the_row_another_warp_just_rewrote_races_until_a_barrier_separates_them(k):
    e = check_error(lambda: k["rewrite_tile"][1, 256](np.zeros(256, np.float32), np.int32(0)))
    assert e.kind == "shared_race" and e.line == line_of("out[tid] = tile[((tid / 32 + 7) % 8)"), str(e)
    assert e.other_line == line_of("tile[tid] = tid + 1.0f;"), str(e)
    assert e.thread == (32, 0, 0) and e.other_thread == (0, 0, 0), str(e)
    out = np.zeros(256, np.float32)
    k["rewrite_tile"][1, 256](out, np.int32(1))
    tid = np.arange(256)
    assert np.array_equal(out, ((tid // 32 + 7) % 8 * 32 + tid % 32 + 1).astype(np.float32))


def test_shared_reads_at_negative_displacements_compute_and_are_race_checked(k):
    ptx = xcuda.compile(SOURCE).ptx
    ptx = ptx if isinstance(ptx, str) else ptx.decode()
    body = ptx[ptx.index(".entry matmul_unroll4"):]
    assert re.search(r"ld\.shared\.f32\s+%f\d+, \[%rd\d+\+-\d+\]", body), "no negative displacement to test"
    n = 64
    rng = np.random.default_rng(5)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    c = np.zeros((n, n), np.float32)
    k["matmul_unroll4"][(n // 16, n // 16), (16, 16)](c, a, b, np.int32(n), np.int32(1))
    assert np.allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    e = check_error(lambda: k["matmul_unroll4"][(n // 16, n // 16), (16, 16)](c, a, b, np.int32(n), np.int32(0)))
    assert e.kind == "shared_race" and e.line == line_of("As[ty][tx] = A[row * n + t + tx];", line_of("matmul_unroll4")), str(e)
    assert e.other_line == line_of("acc += As[ty][k] * Bs[k][tx];", line_of("matmul_unroll4")), str(e)
    # thread (0,0,0)'s next store to As[0][0], after the last of its row's threads read it
    assert e.thread == (0, 0, 0) and e.other_thread == (15, 0, 0), str(e)


def test_a_flag_set_after_a_threadfence_orders_the_data_and_without_the_fence_races(k):
    out = np.zeros(64, np.int32)
    k["flag_handoff"][2, 64](np.zeros(64, np.int32), np.zeros(1, np.int32), out, np.int32(1))
    assert list(out) == list(range(1, 65))
    e = check_error(lambda: k["flag_handoff"][2, 64](np.zeros(64, np.int32), np.zeros(1, np.int32), out,
                                                     np.int32(0)))
    assert e.kind == "global_race" and e.block != e.other_block
    assert {e.line, e.other_line} == {line_of("data[t] = t + 1;"), line_of("out[t] = data[t];")}


def test_double_buffering_in_shared_memory_runs_clean(k):
    out = np.zeros(512, np.float32)
    k["smooth"][4, 128](np.full(512, 3.0, np.float32), out, np.int32(512), np.int32(4))
    assert np.allclose(out[4:-4], 3.0)  # four steps from the zero padding at the ends


def test_a_counter_bumped_by_every_block_races_and_its_atomic_twin_does_not(k):
    e = check_error(lambda: k["counter"][64, 32](np.zeros(1, np.int32)))
    assert e.kind == "global_race" and e.line == e.other_line == line_of("count[0] = count[0] + 1")
    assert "`count[0]`" in str(e) and e.block != e.other_block and "different blocks" in str(e), str(e)
    count = np.zeros(1, np.int32)
    k["counter_atomic"][64, 32](count)
    assert count[0] == 64


def test_warps_writing_each_others_elements_race_until_a_barrier_separates_them(k):
    e = check_error(lambda: k["swap_halves"][1, 64](np.zeros(64, np.float32), np.int32(0)))
    assert e.kind == "global_race" and {e.line, e.other_line} == {line_of("out[t] = t;"),
                                                                  line_of("out[(t + 32) % 64] += 1.0f;")}
    assert e.block == e.other_block and "__syncthreads()" in str(e)
    out = np.zeros(64, np.float32)
    k["swap_halves"][1, 64](out, np.int32(1))
    assert np.array_equal(out, np.arange(64, dtype=np.float32) + 1)


def test_the_threadfence_reduction_is_ordered_and_without_its_fence_races(k):
    partial, result = np.zeros(100, np.float32), np.zeros(1, np.float32)
    for _ in range(2):
        k["fence_reduce"][100, 64](np.ones(6400, np.float32), partial, result, np.int32(1))
        assert result[0] == 6400
    # Fresh partials: storing the sums already there would change nothing, and race with nothing.
    fresh = np.zeros(100, np.float32)
    e = check_error(lambda: k["fence_reduce"][100, 64](np.ones(6400, np.float32), fresh, result, np.int32(0)))
    assert e.kind == "global_race" and e.parameter == "partial"
    assert {e.line, e.other_line} == {line_of("partial[blockIdx.x] = s[0];"), line_of("sum += partial[b];")}


def test_a_histogram_with_atomics_runs_clean_and_without_them_races(k):
    values = np.arange(4096, dtype=np.int32)
    hist = np.zeros(16, np.int32)
    k["histogram"][8, 128](values, hist, np.int32(4096), np.int32(1))
    assert list(hist) == [256] * 16
    e = check_error(lambda: k["histogram"][8, 128](values, np.zeros(16, np.int32), np.int32(4096), np.int32(0)))
    assert e.kind == "global_race" and e.line == line_of("else hist[in[i] % 16] += 1;")
    assert re.search(r"`hist\[\d+\]`", str(e)), str(e)


def test_release_and_acquire_through_atomic_ref_order_the_data_they_guard(k):
    out = np.zeros(64, np.int32)
    k["handoff"][2, 64](np.zeros(64, np.int32), np.zeros(1, np.int32), out)
    assert list(out) == [2 * t for t in range(64)]


def test_a_grid_sync_orders_the_blocks_writes_before_their_reads(k):
    a = np.zeros(256, np.int32)
    k["rotate_grid"](a, np.int32(256), grid=4, block=64, cooperative=True)
    assert list(a) == [(i + 64) % 256 for i in range(256)]


def test_cuda_check_racecheck_and_synccheck_report_what_the_cpu_device_finds(ip, k):
    ip.user_ns.update(k=k, np=np)
    report = ip.run_cell("%%cuda_check --tool racecheck\nk['counter'][8, 32](np.zeros(1, np.int32))\n").result
    assert not report.ok and report.findings[0].kind == "global_race", str(report)
    report = ip.run_cell("%%cuda_check --tool synccheck\nk['skip_partial'][1, 64](np.zeros(64, np.int32))\n").result
    assert not report.ok and report.findings[0].kind == "divergent_barrier", str(report)

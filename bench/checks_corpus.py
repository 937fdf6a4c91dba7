"""Typical kernel bugs, each with its correct twin, and tricky correct kernels: what the checks
find, case by case, on the CPU device (all cases in one process, after other launches on larger
arrays, the order a notebook runs in) and, on a GPU, through Kernel.check (compute-sanitizer in a
child process).

A case is found when the check reports the expected kind of finding at the expected line of its
source; a correct kernel must run clean (no finding: a false alarm otherwise). Lines are 1-based in
the case's source, as the cell's lines are.

usage: python bench/checks_corpus.py [--device cpu|gpu] [--only NAME...] [--json FILE] [--markdown]
       (--device gpu runs each case through Kernel.check with the compute-sanitizer tool that looks
       for its kind, and memcheck)
"""
import argparse
import dataclasses
import json
import sys
import textwrap

import numpy as np

# Which finding kinds count as each expected category (the CPU device's kinds and
# compute-sanitizer's, as xcuda names them).
CATEGORIES = {
    "bounds": {"out_of_bounds", "null_pointer", "wild_pointer"},
    "misaligned": {"misaligned"},
    "race": {"shared_race", "global_race", "race"},
    "barrier": {"divergent_barrier"},
    "collective": {"collective_absent_lanes", "invalid_sync"},
    "uninit": {"uninitialised_read", "uninitialized_read"},
    "heap": {"use_after_free", "double_free", "invalid_free", "out_of_bounds", "heap"},
    "assert": {"assertion"},
}
# The compute-sanitizer tool that looks for each category.
TOOL_FOR = {"race": "racecheck", "barrier": "synccheck", "collective": "synccheck", "uninit": "initcheck"}


@dataclasses.dataclass
class Case:
    name: str
    category: str  # expected finding category, or "" for a correct kernel
    line: int      # expected line (0: a correct kernel)
    source: str
    kernel: str
    args: object   # rng -> tuple of launch arguments
    grid: object
    block: object
    shared_mem: int = 0
    setup: object = None  # (module) -> None: e.g. sets a __device__ variable
    cooperative: bool = False

    @property
    def correct(self):
        return self.category == ""


def src(text):
    return textwrap.dedent(text).lstrip("\n")


def f32(rng, n):
    return rng.random(n, dtype=np.float32) + np.float32(0.5)


def i32(rng, n, high=100):
    return rng.integers(0, high, n, dtype=np.int32)


CASES = []


def case(*a, **k):
    CASES.append(Case(*a, **k))
    return CASES[-1]


def fixed(bug, name, source=None, **changes):
    """The correct twin of case `bug`: its launch, with the fixed source (and any other changes)."""
    CASES.append(dataclasses.replace(bug, name=name, category="", line=0, source=source or bug.source, **changes))


# --- Out of bounds ---------------------------------------------------------------------------
BOUND = src("""
extern "C" __global__ void copy_upto(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = in[i];
}
""")
bug = case("off-by-one bound (i <= n)", "bounds", 3, BOUND, "copy_upto",
           lambda r: (f32(r, 240), np.zeros(240, np.float32), 240), 2, 128)
fixed(bug, "off-by-one bound, fixed", BOUND.replace("i <= n", "i < n"))

NOGUARD = src("""
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    x[i] = a * x[i];
}
""")
bug = case("no bounds check, grid rounded up", "bounds", 3, NOGUARD, "scale",
           lambda r: (f32(r, 1000), 2.0, 1000), 4, 256)
fixed(bug, "no bounds check, fixed", NOGUARD.replace("    x[i] = a * x[i];", "    if (i < n) x[i] = a * x[i];"))

STENCIL = src("""
extern "C" __global__ void blur(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}
""")
bug = case("stencil reads the halo at both ends", "bounds", 3, STENCIL, "blur",
           lambda r: (f32(r, 500), np.zeros(500, np.float32), 500), 2, 256)
fixed(bug, "stencil, ends guarded", STENCIL.replace("if (i < n)", "if (i > 0 && i < n - 1)"))

MATRIX = src("""
extern "C" __global__ void add_matrix(const float* a, float* b, int rows, int cols) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < cols && c < rows) b[r * cols + c] += a[r * cols + c];
}
""")
bug = case("2-D guard with rows and cols swapped", "bounds", 4, MATRIX, "add_matrix",
           lambda r: (f32(r, 20 * 50), np.zeros(20 * 50, np.float32), 20, 50), (4, 4), (16, 16))
fixed(bug, "2-D guard, fixed", MATRIX.replace("r < cols && c < rows", "r < rows && c < cols"))

HIST = src("""
extern "C" __global__ void histogram(const float* x, int* bins, int n, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = (int)(x[i] * nbins);
        atomicAdd(&bins[b], 1);
    }
}
""")
bug = case("histogram bin off by one (x == 1.0)", "bounds", 5, HIST, "histogram",
           lambda r: (np.concatenate([r.random(190, dtype=np.float32), np.ones(2, np.float32)]),
                      np.zeros(16, np.int32), 192, 16), 1, 256)
fixed(bug, "histogram bin clamped",
      HIST.replace("int b = (int)(x[i] * nbins);", "int b = min((int)(x[i] * nbins), nbins - 1);"))

OVERFLOW = src("""
extern "C" __global__ void scatter(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = (i * i) % n;
    out[i] = x[j];
}
""")
bug = case("int overflow in an index (i * i)", "bounds", 5, OVERFLOW, "scatter",
           lambda r: (f32(r, 51200), np.zeros(51200, np.float32), 51200), 200, 256)
fixed(bug, "index product in 64 bits", OVERFLOW.replace("int j = (i * i) % n;", "int j = (int)((long long)i * i % n);"))

SMALLSHARED = src("""
extern "C" __global__ void block_sum(const float* x, float* out) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
""")
bug = case("shared array smaller than the block", "bounds", 4, SMALLSHARED, "block_sum",
           lambda r: (f32(r, 512), np.zeros(2, np.float32)), 2, 256)
fixed(bug, "shared array sized for the block", SMALLSHARED.replace("s[128]", "s[256]"))

NEXTARRAY = src("""
extern "C" __global__ void two_tiles(const float* in, float* out) {
    __shared__ float ta[32], tb[32];
    int t = threadIdx.x;
    tb[t % 32] = 1.0f;
    ta[t] = in[t];
    __syncthreads();
    out[t] = ta[t % 32] + tb[t % 32];
}
""")
bug = case("shared array overrun into the next array", "bounds", 5, NEXTARRAY, "two_tiles",
           lambda r: (f32(r, 64), np.zeros(64, np.float32)), 1, 64)
fixed(bug, "shared arrays each indexed in range", NEXTARRAY.replace("ta[t] = in[t];", "ta[t % 32] = in[t];"), block=32)

DYNSHARED = src("""
extern "C" __global__ void reverse(const float* in, float* out, int n) {
    extern __shared__ float tile[];
    int t = threadIdx.x;
    tile[t] = in[t];
    __syncthreads();
    out[t] = tile[n - 1 - t];
}
""")
bug = case("dynamic shared memory not requested", "bounds", 4, DYNSHARED, "reverse",
           lambda r: (f32(r, 128), np.zeros(128, np.float32), 128), 1, 128)
fixed(bug, "dynamic shared memory requested", shared_mem=128 * 4)

LOCAL = src("""
extern "C" __global__ void moments(const float* x, float* out, int n, int order) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p[4];
    p[0] = 1.0f;
    for (int k = 1; k <= order; ++k) p[k] = p[k - 1] * x[i];
    out[i] = p[order % 4];
}
""")
bug = case("local array overrun", "bounds", 6, LOCAL, "moments",
           lambda r: (f32(r, 64), np.zeros(64, np.float32), 64, 6), 1, 64)
fixed(bug, "local array in range", args=lambda r: (f32(r, 64), np.zeros(64, np.float32), 64, 3))

SAXPY = src("""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
""")
bug = case("null pointer argument", "bounds", 3, SAXPY, "saxpy", lambda r: (2.0, None, f32(r, 256), 256), 1, 256)
fixed(bug, "saxpy with both arrays", args=lambda r: (2.0, f32(r, 256), f32(r, 256), 256))

DEVPTR = src("""
__device__ const float* table;
extern "C" __global__ void lookup(const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[idx[i]];
}
""")


def _set_table(module, rng):
    import xcuda
    global table_values  # the table outlives the launch, in the script's namespace as in a notebook's
    table_values = values = xcuda.to_device(f32(rng, 100))
    table = module.get_global("table")
    table.set(np.frombuffer(np.array([values.ptr], dtype=np.uint64).tobytes(), dtype=table.dtype).reshape(table.shape))


bug = case("__device__ pointer never set", "bounds", 4, DEVPTR, "lookup",
           lambda r: (i32(r, 64), np.zeros(64, np.float32), 64), 1, 64)
fixed(bug, "__device__ pointer set from Python", setup=_set_table)

MISALIGNED = src("""
extern "C" __global__ void sum4(const float* in, float* out) {
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 a = v[threadIdx.x];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}
""")
bug = case("misaligned float4 load", "misaligned", 3, MISALIGNED, "sum4",
           lambda r: (f32(r, 256), np.zeros(32, np.float32)), 1, 32)
fixed(bug, "aligned float4 load", MISALIGNED.replace("in + 1", "in + 4"))

# --- Shared-memory races ---------------------------------------------------------------------
REDUCE = src("""
extern "C" __global__ void reduce(const float* x, float* out) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
""")
bug = case("reduction without a barrier in the loop", "race", 7, REDUCE, "reduce",
           lambda r: (f32(r, 1024), np.zeros(4, np.float32)), 4, 256)
fixed(bug, "reduction with a barrier in the loop",
      REDUCE.replace("        if (t < k) s[t] += s[t + k];\n", "        if (t < k) s[t] += s[t + k];\n        __syncthreads();\n"))

TILED = src("""
#define T 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float a[T][T], b[T][T];
    int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        a[threadIdx.y][threadIdx.x] = A[row * n + k0 + threadIdx.x];
        b[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += a[threadIdx.y][k] * b[k][threadIdx.x];
    }
    C[row * n + col] = acc;
}
""")
bug = case("tiled matmul without the second barrier", "race", 7, TILED, "matmul",
           lambda r: (f32(r, 64 * 64), f32(r, 64 * 64), np.zeros(64 * 64, np.float32), 64), (4, 4), (16, 16))
fixed(bug, "tiled matmul with both barriers",
      TILED.replace("acc += a[threadIdx.y][k] * b[k][threadIdx.x];\n", "acc += a[threadIdx.y][k] * b[k][threadIdx.x];\n        __syncthreads();\n"))

WARPSYNC = src("""
extern "C" __global__ void warp_reduce(const float* x, float* out) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[0] = s[0];
}
""")
case("implicit warp-synchronous reduction", "race", 9, WARPSYNC, "warp_reduce",
     lambda r: (f32(r, 64), np.zeros(1, np.float32)), 1, 64)

SHFL = src("""
extern "C" __global__ void warp_sum(const float* x, float* out) {
    float v = x[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}
""")
case("warp shuffle reduction", "", 0, SHFL, "warp_sum",
     lambda r: (f32(r, 128), np.zeros(1, np.float32)), 1, 128)

SHFL_DIVERGENT = src("""
extern "C" __global__ void half_warp_sum(const float* x, float* out) {
    float v = x[threadIdx.x];
    if (threadIdx.x < 16) {
        for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    if (threadIdx.x == 0) out[0] = v;
}
""")
bug = case("full-mask shuffle in a half-warp branch", "collective", 4, SHFL_DIVERGENT, "half_warp_sum",
           lambda r: (f32(r, 32), np.zeros(1, np.float32)), 1, 32)
fixed(bug, "half-warp shuffle with its mask", SHFL_DIVERGENT.replace("0xffffffffu", "0x0000ffffu"))

# --- Barriers --------------------------------------------------------------------------------
CONDBAR = src("""
extern "C" __global__ void reduce_cond(const float* x, float* out) {
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = x[t];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) {
            s[t] += s[t + k];
            __syncthreads();
        }
    }
    if (t == 0) out[0] = s[0];
}
""")
case("barrier inside if (t < k)", "barrier", 9, CONDBAR, "reduce_cond",
     lambda r: (f32(r, 128), np.zeros(1, np.float32)), 1, 128)

HALFBAR = src("""
extern "C" __global__ void half_barrier(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}
""")
case("barrier skipped by part of a warp", "barrier", 2, HALFBAR, "half_barrier",
     lambda r: (np.zeros(64, np.int32),), 1, 64)

EARLYRET = src("""
extern "C" __global__ void shift_left(const int* in, int* out, int n) {
    __shared__ int s[64];
    int t = threadIdx.x;
    if (t >= n) return;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % n];
}
""")
case("early return before a barrier (exited threads do not count)", "", 0, EARLYRET, "shift_left",
     lambda r: (i32(r, 64), np.zeros(64, np.int32), 40), 1, 64)

SPLITBAR = src("""
extern "C" __global__ void two_halves(int* out) {
    __shared__ int s[128];
    int t = threadIdx.x;
    if (t < 64) __syncthreads();
    s[t] = t;
    __syncthreads();
    out[t] = s[127 - t];
}
""")
# compute-sanitizer's synccheck reports this shape at the later barrier, where the warps that
# skipped wait (bench/probes/checks s9 on an H100); the CPU device does too, naming line 4 as
# the barrier the other warps wait at (KernelCheckError.other_line).
case("whole warps skip a barrier the others wait at", "barrier", 6, SPLITBAR, "two_halves",
     lambda r: (np.zeros(128, np.int32),), 1, 128)

# --- Global-memory races ---------------------------------------------------------------------
COUNTER = src("""
extern "C" __global__ void count_blocks(int* count) {
    if (threadIdx.x == 0) count[0] = count[0] + 1;
}
""")
bug = case("non-atomic global counter", "race", 2, COUNTER, "count_blocks",
           lambda r: (np.zeros(1, np.int32),), 16, 32)
fixed(bug, "atomic global counter", COUNTER.replace("count[0] = count[0] + 1", "atomicAdd(count, 1)"))

HISTRACE = src("""
extern "C" __global__ void histogram_plain(const int* x, int* bins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) bins[x[i] % 8] += 1;
}
""")
bug = case("histogram without atomics", "race", 3, HISTRACE, "histogram_plain",
           lambda r: (i32(r, 512), np.zeros(8, np.int32), 512), 2, 256)
fixed(bug, "histogram with atomics", HISTRACE.replace("bins[x[i] % 8] += 1", "atomicAdd(&bins[x[i] % 8], 1)"))

STRIDE = src("""
extern "C" __global__ void add_inplace(float* y, const float* x, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
        y[i] += x[i];
}
""")
bug = case("grid-stride loop striding by the block", "race", 3, STRIDE, "add_inplace",
           lambda r: (f32(r, 2048), f32(r, 2048), 2048), 4, 128)
fixed(bug, "grid-stride loop striding by the grid", STRIDE.replace("i += blockDim.x", "i += blockDim.x * gridDim.x"))

WARPRACE = src("""
extern "C" __global__ void neighbours(float* out) {
    int t = threadIdx.x;
    out[t] = (float)t;
    out[(t + 32) % 64] += 1.0f;
}
""")
case("warps write each other's elements without a barrier", "race", 3, WARPRACE, "neighbours",
     lambda r: (np.zeros(64, np.float32),), 1, 64)

FENCE = src("""
extern "C" __global__ void sum_blocks(const float* x, float* partial, float* total, unsigned* done) {
    __shared__ float s[128];
    __shared__ bool last;
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 128 + t];
    __syncthreads();
    for (int k = 64; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        last = atomicInc(done, gridDim.x) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
        *total = sum;
    }
}
""")
case("threadfence reduction (last block sums)", "", 0, FENCE, "sum_blocks",
     lambda r: (f32(r, 1024), np.zeros(8, np.float32), np.zeros(1, np.float32), np.zeros(1, np.uint32)), 8, 128)

FLAG = src("""
extern "C" __global__ void same_flag(const float* x, int* found, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.9f) *found = 1;
}
""")
case("many threads store the same flag value", "", 0, FLAG, "same_flag",
     lambda r: (f32(r, 512), np.zeros(1, np.int32), 512), 2, 256)

# --- Uninitialised reads ---------------------------------------------------------------------
PARTIAL = src("""
extern "C" __global__ void mirror(float* out) {
    __shared__ float tile[64];
    int t = threadIdx.x;
    if (t < 32) tile[t] = (float)t;
    __syncthreads();
    out[t] = tile[63 - t];
}
""")
bug = case("shared tile read where no thread wrote", "uninit", 6, PARTIAL, "mirror",
           lambda r: (np.zeros(64, np.float32),), 1, 64)
fixed(bug, "shared tile written whole", PARTIAL.replace("if (t < 32) tile[t]", "tile[t]"))

EMPTY = src("""
extern "C" __global__ void twice(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
""")


def _empty_input(rng):
    import xcuda
    return (xcuda.empty(256, np.float32), np.zeros(256, np.float32), 256)


def _filled_input(rng):
    import xcuda
    return (xcuda.to_device(f32(rng, 256)), np.zeros(256, np.float32), 256)


bug = case("xcuda.empty() read before anything wrote it", "uninit", 3, EMPTY, "twice", _empty_input, 1, 256)
fixed(bug, "xcuda.to_device() input", args=_filled_input)

# --- Device heap -----------------------------------------------------------------------------
UAF = src("""
extern "C" __global__ void scratch(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    p[threadIdx.x % 16] = threadIdx.x;
    free(p);
    out[threadIdx.x] = p[threadIdx.x % 16];
}
""")
bug = case("device heap: use after free", "heap", 5, UAF, "scratch", lambda r: (np.zeros(32, np.int32),), 1, 32)
fixed(bug, "device heap: read before free",
      UAF.replace("    free(p);\n    out[threadIdx.x] = p[threadIdx.x % 16];\n",
                  "    out[threadIdx.x] = p[threadIdx.x % 16];\n    free(p);\n"))

DFREE = src("""
extern "C" __global__ void twice_freed(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}
""")
case("device heap: double free", "heap", 7, DFREE, "twice_freed", lambda r: (np.zeros(32, np.int32),), 1, 32)

HOVER = src("""
extern "C" __global__ void fill(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    for (int i = 0; i <= 4; ++i) p[i] = i;
    out[0] = p[0];
    free(p);
}
""")
bug = case("device heap: write past a block", "heap", 4, HOVER, "fill", lambda r: (np.zeros(32, np.int32),), 1, 32)
fixed(bug, "device heap: writes inside the block", HOVER.replace("i <= 4", "i < 4"))

# --- Assertions ------------------------------------------------------------------------------
ASSERT = src("""
#include <cassert>
extern "C" __global__ void inverse(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    assert(x[i] != 0.0f);
    out[i] = 1.0f / x[i];
}
""")
bug = case("failed device assert", "assert", 5, ASSERT, "inverse",
           lambda r: (np.concatenate([f32(r, 63), np.zeros(1, np.float32)]), np.zeros(64, np.float32), 64), 1, 64)
fixed(bug, "device assert that holds", args=lambda r: (f32(r, 64), np.zeros(64, np.float32), 64))

# --- Tricky correct kernels ------------------------------------------------------------------
CG = src("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tile_sums(const float* x, float* out) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    float v = x[block.thread_rank()];
    for (int o = 4; o > 0; o >>= 1) v += tile.shfl_down(v, o);
    if (tile.thread_rank() == 0) out[block.thread_rank() / 8] = v;
}
""")
case("cooperative groups tiles", "", 0, CG, "tile_sums", lambda r: (f32(r, 64), np.zeros(8, np.float32)), 1, 64)

DOUBLEBUF = src("""
extern "C" __global__ void smooth(const float* x, float* out, int steps) {
    __shared__ float buf[2][128];
    int t = threadIdx.x;
    buf[0][t] = x[t];
    __syncthreads();
    int cur = 0;
    for (int s = 0; s < steps; ++s) {
        float l = buf[cur][(t + 127) % 128], r = buf[cur][(t + 1) % 128];
        buf[1 - cur][t] = 0.5f * buf[cur][t] + 0.25f * (l + r);
        __syncthreads();
        cur = 1 - cur;
    }
    out[t] = buf[cur][t];
}
""")
case("double buffering with one barrier per step", "", 0, DOUBLEBUF, "smooth",
     lambda r: (f32(r, 128), np.zeros(128, np.float32), 5), 1, 128)

GRIDSYNC = src("""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void two_phase(float* x, float* y, int n) {
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) x[i] = x[i] * 2.0f;
    grid.sync();
    if (i < n) y[i] = x[(i + 1) % n];
}
""")
case("grid sync between phases", "", 0, GRIDSYNC, "two_phase",
     lambda r: (f32(r, 256), np.zeros(256, np.float32), 256), 4, 64, cooperative=True)


# --- Running them ----------------------------------------------------------------------------
def warm_up(xcuda):
    """Other kernels on larger arrays first, as earlier cells of a notebook would have launched."""
    module = xcuda.compile(src("""
        extern "C" __global__ void touch(const float* a, float* b, const int* c, int* d, int n) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < n) { b[i] = a[i]; d[i] = c[i]; }
        }
    """))
    rng = np.random.default_rng(1)
    for n in (4096, 1000, 300):
        module.touch(f32(rng, n), np.zeros(n, np.float32), i32(rng, n), np.zeros(n, np.int32), n,
                     grid=(n + 255) // 256, block=256)
    xcuda.synchronize()


def finding_of(error):
    return {"kind": getattr(error, "kind", type(error).__name__), "line": getattr(error, "line", None),
            "text": str(error).splitlines()[0][:200]}


def run_cpu(xcuda, c, rng):
    module = xcuda.compile(c.source)
    if c.setup is not None:
        c.setup(module, rng)
    kernel = getattr(module, c.kernel)
    args = c.args(rng)
    try:
        kernel(*args, grid=c.grid, block=c.block, shared_mem=c.shared_mem,
               **({"cooperative": True} if c.cooperative else {}))
        xcuda.synchronize()
    except xcuda.CudaError as e:
        return [finding_of(e)]
    return []


def run_gpu(xcuda, c, rng):
    module = xcuda.compile(c.source)
    if c.setup is not None:
        c.setup(module, rng)
    kernel = getattr(module, c.kernel)
    found = []
    tools = ["memcheck"] + ([TOOL_FOR[c.category]] if c.category in TOOL_FOR else [])
    if c.correct:
        tools = ["memcheck", "racecheck", "synccheck", "initcheck"]
    for tool in tools:
        args = c.args(rng)
        try:
            report = kernel.check(*args, grid=c.grid, block=c.block, shared_mem=c.shared_mem, tool=tool,
                                  **({"cooperative": True} if c.cooperative else {}))
        except xcuda.CudaError as e:
            found.append(dict(finding_of(e), tool=tool))
            continue
        for f in report.findings:
            found.append({"kind": f.kind, "line": f.line or None, "text": str(f).splitlines()[0][:200], "tool": tool})
    return found


def verdict(c, found):
    if c.correct:
        return "clean" if not found else "FALSE ALARM"
    kinds = CATEGORIES[c.category]
    for f in found:
        if f["kind"] in kinds and f["line"] == c.line:
            return "found"
    for f in found:
        if f["kind"] in kinds:
            return "WRONG LINE"
    return "MISSED" if not found else "WRONG KIND"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--json")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    import xcuda
    if args.device == "cpu":
        xcuda.set_device("cpu")
    warm_up(xcuda)
    rng = np.random.default_rng(7)
    rows = []
    for c in CASES:
        if args.only and not any(o in c.name for o in args.only):
            continue
        try:
            found = (run_cpu if args.device == "cpu" else run_gpu)(xcuda, c, rng)
        except Exception as e:  # a case that cannot even run is a row of its own, never a silent pass
            found = [{"kind": f"ERROR {type(e).__name__}", "line": None, "text": str(e).splitlines()[0][:200]}]
        rows.append({"case": c.name, "expected": c.category or "clean", "line": c.line, "verdict": verdict(c, found),
                     "found": found})
        print(f"{rows[-1]['verdict']:12s} {c.name}: " +
              ("; ".join(f"{f['kind']} line {f['line']}" for f in found) or "no finding"), flush=True)
    buggy = [r for r in rows if r["expected"] != "clean"]
    correct = [r for r in rows if r["expected"] == "clean"]
    print(f"\n{args.device}: found {sum(r['verdict'] == 'found' for r in buggy)} of {len(buggy)} bugs at their lines; "
          f"{sum(r['verdict'] == 'FALSE ALARM' for r in correct)} false alarms in {len(correct)} correct kernels")
    if args.markdown:
        print("\n| case | expected | verdict | what was reported |\n|---|---|---|---|")
        for r in rows:
            what = "; ".join(f"{f['kind']} (line {f['line']})" for f in r["found"]) or "nothing"
            print(f"| {r['case']} | {r['expected']} {r['line'] or ''} | {r['verdict']} | {what} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

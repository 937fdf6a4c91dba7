#include "corpus_kernels.hpp"

namespace xcuda::cpu::ptx::test {

namespace {

std::vector<CorpusProgram> make_programs() {
    std::vector<CorpusProgram> p;

    p.push_back({"saxpy",
                 R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)",
                 {{"saxpy", {"f32", "u64", "u64", "u32"}}}});

    p.push_back({"tiled_matmul",
                 R"(
#define TILE 16
extern "C" __global__ void matmul(const float* A, const float* B, float* C, int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = (row < n && t * TILE + threadIdx.x < n) ? A[row * n + t * TILE + threadIdx.x] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < n && t * TILE + threadIdx.y < n) ? B[(t * TILE + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}
)",
                 {{"matmul", {"u64", "u64", "u64", "u32"}}}});

    p.push_back({"shuffle_reduction",
                 R"(
__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
    __shared__ float partial[32];
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    sum = warp_sum(sum);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < (blockDim.x >> 5) ? partial[threadIdx.x] : 0.0f;
        sum = warp_sum(sum);
        if (threadIdx.x == 0) atomicAdd(out, sum);
    }
}
extern "C" __global__ void reduce_max_xor(const double* in, double* out) {
    double v = in[threadIdx.x];
    for (int m = 16; m > 0; m >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffff, v, m));
    int lane = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
    float up = __shfl_up_sync(0xffffffff, (float)v, 1);
    if (threadIdx.x == 0) out[lane] = v + up;
}
)",
                 {{"reduce_sum", {"u64", "u64", "u32"}}, {"reduce_max_xor", {"u64", "u64"}}}});

    p.push_back({"atomics",
                 R"(
extern "C" __global__ void atomics(float* f, double* d, int* i, unsigned* u, unsigned long long* ull) {
    __shared__ int hist[64];
    hist[threadIdx.x % 64] = 0;
    __syncthreads();
    atomicAdd(f, 1.0f);
    atomicAdd(d, 2.0);
    atomicAdd(&hist[threadIdx.x % 64], 1);
    int old = atomicCAS(i, 0, threadIdx.x);
    atomicMax(i + 1, old);
    atomicMin(i + 2, -old);
    atomicExch(i + 3, 7);
    atomicInc(u, 100u);
    atomicDec(u + 1, 100u);
    atomicAnd(u + 2, 0xF0u);
    atomicOr(u + 3, 1u);
    atomicXor(u + 4, 3u);
    atomicAdd(ull, 1ull);
    unsigned long long seen = atomicCAS(ull + 1, 0ull, 5ull);
    float cur = f[1];
    float assumed;
    do {
        assumed = cur;
        cur = __int_as_float(atomicCAS((int*)f + 1, __float_as_int(assumed), __float_as_int(assumed * 2.0f)));
    } while (assumed != cur);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(i + 4 + threadIdx.x, hist[threadIdx.x] + (int)seen);
    atomicAdd_block(i + 5, 1);
    atomicAdd_system(i + 6, 1);
}
)",
                 {{"atomics", {"u64", "u64", "u64", "u64", "u64"}}}});

    p.push_back({"printf",
                 R"(
extern "C" __global__ void hello(int n, double x, const char* tag) {
    printf("block %d thread %d of %d: x=%f tag=%s ptr=%p\n", blockIdx.x, threadIdx.x, n, x, tag, tag);
    if (threadIdx.x == 0) printf("no arguments\n");
    printf("%c %lld %u %e\n", 'a', (long long)n * 3, (unsigned)n, (float)x);
}
)",
                 {{"hello", {"u32", "f64", "u64"}}}});

    p.push_back({"assert",
                 R"(
// NVRTC declares assert() itself: <cassert> is a host header it does not have.
extern "C" __global__ void checked(const int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < n && "index in range");
    assert(data[i] >= 0);
    if (data[i] == 42) __trap();
}
)",
                 {{"checked", {"u64", "u32"}}}});

    p.push_back({"noinline_and_recursion",
                 R"(
__device__ __noinline__ float poly(float x, float a, float b, float c) { return (a * x + b) * x + c; }
__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ void swap_pair(int& a, int& b) { int t = a; a = b; b = t; }
struct Acc { double sum; int count; };
__device__ __noinline__ Acc accumulate(Acc a, double v) { a.sum += v; a.count++; return a; }
extern "C" __global__ void calls(float* y, unsigned* f, int* pairs, double* mean) {
    int i = threadIdx.x;
    y[i] = poly(y[i], 1.0f, 2.0f, 3.0f);
    f[i] = fib(i % 12);
    swap_pair(pairs[2 * i], pairs[2 * i + 1]);
    Acc a{0.0, 0};
    for (int k = 0; k < i; ++k) a = accumulate(a, k);
    mean[i] = a.count ? a.sum / a.count : 0.0;
}
)",
                 {{"calls", {"u64", "u64", "u64", "u64"}}}});

    p.push_back({"cooperative_groups",
                 R"(
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void cg_reduce(const int* in, int* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = block.group_index().x * block.size() + block.thread_rank();
    int v = i < n ? in[i] : 0;
    int s = cg::reduce(warp, v, cg::plus<int>());
    cg::thread_group tile4 = cg::tiled_partition(block, 4);
    tile4.sync();
    if (warp.thread_rank() == 0) atomicAdd(out, s);
    block.sync();
    auto active = cg::coalesced_threads();
    if (active.thread_rank() == 0) atomicAdd(out + 1, (int)active.size());
    int m = warp.shfl_down(v, 1) + warp.any(v > 3) + warp.ballot(v & 1);
    out[2 + block.thread_rank()] = m;
}
extern "C" __global__ void grid_sync(int* flags) {
    cg::grid_group grid = cg::this_grid();
    flags[grid.thread_rank()] = 1;
    grid.sync();
    if (grid.thread_rank() == 0) flags[0] = (int)grid.size();
}
)",
                 {{"cg_reduce", {"u64", "u64", "u32"}}, {"grid_sync", {"u64"}}}});

    p.push_back({"clusters",
                 R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int* out) {
    __shared__ int smem[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    smem[threadIdx.x] = rank * 100 + threadIdx.x;
    cluster.sync();
    int* peer = cluster.map_shared_rank(smem, (rank + 1) % cluster.num_blocks());
    out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x];
    cluster.sync();
}
extern "C" __global__ void cluster_launch_time(int* out) {
    cg::cluster_group cluster = cg::this_cluster();
    out[threadIdx.x] = cluster.dim_blocks().x + cluster.block_index().x;
}
)",
                 {{"cluster_exchange", {"u64"}}, {"cluster_launch_time", {"u64"}}}});

    p.push_back({"half",
                 R"(
#include <cuda_fp16.h>
extern "C" __global__ void half_math(const __half* a, const __half2* b, __half* out, __half2* out2, float* f) {
    int i = threadIdx.x;
    __half x = a[i];
    __half y = __hadd(x, __float2half(1.5f));
    y = __hmul(y, x) - __hdiv(x, __int2half_rn(3));
    y = hsqrt(__habs(y)) + hexp(x);
    out[i] = __hgt(y, x) ? y : __hneg(x);
    __half2 v = b[i];
    v = __hfma2(v, v, __floats2half2_rn(0.5f, 0.25f));
    out2[i] = __hmax2(v, h2sin(v));
    f[i] = __half2float(y) + __low2float(v) + __high2float(v);
}
extern "C" __global__ void half_atomics(__half* a, __half2* b) {
    atomicAdd(a, __float2half(1.0f));
    atomicAdd(b, __floats2half2_rn(1.0f, 2.0f));
}
)",
                 {{"half_math", {"u64", "u64", "u64", "u64", "u64"}}, {"half_atomics", {"u64", "u64"}}}});

    p.push_back({"bfloat16",
                 R"(
#include <cuda_bf16.h>
extern "C" __global__ void bf16_math(const __nv_bfloat16* a, __nv_bfloat162* b, float* out) {
    int i = threadIdx.x;
    __nv_bfloat16 x = a[i];
    __nv_bfloat16 y = __hfma(x, x, __float2bfloat16(2.0f));
    y = __hmax(y, hrsqrt(x));
    __nv_bfloat162 v = b[i];
    v = __hmul2(v, __bfloat162bfloat162(y));
    b[i] = v;
    out[i] = __bfloat162float(y) + __low2float(v);
    atomicAdd((__nv_bfloat16*)a + 1, y);
}
extern "C" __global__ void bf16_params(__nv_bfloat16 scale, float* out) {
    out[threadIdx.x] *= __bfloat162float(scale);
}
)",
                 {{"bf16_math", {"u64", "u64", "u64"}}, {"bf16_params", {"b8[2]", "u64"}}}});

    p.push_back({"double_math",
                 R"(
extern "C" __global__ void dmath(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    y[i] = sin(v) + cos(v) * exp(v) - pow(v, 2.5) + log1p(fabs(v)) + sqrt(v * v + 1.0) + erf(v) + atan2(v, 2.0) +
           cbrt(v) + tgamma(v) + fma(v, v, 1.0) + rint(v) + floor(v) + ceil(v) + trunc(v) + fmod(v, 3.0) +
           ldexp(v, 3) + hypot(v, 1.0);
    long long bits = __double_as_longlong(v);
    y[n + i] = __longlong_as_double(bits ^ 1) + __drcp_rn(v) + __dsqrt_rn(v) + (double)__double2int_rz(v);
}
)",
                 {{"dmath", {"u64", "u64", "u32"}}}});

    p.push_back({"float_math",
                 R"(
extern "C" __global__ void fmath(const float* x, float* y) {
    int i = threadIdx.x;
    float v = x[i];
    y[i] = sqrtf(v) + rsqrtf(v) + __expf(v) + __sinf(v) + __cosf(v) + tanhf(v) + fmaf(v, v, 1.0f) +
           __fdividef(v, 3.0f) + erff(v) + lgammaf(v) + expf(v) + logf(v) + powf(v, 1.5f) + sinpif(v) + exp2f(v) +
           log2f(v) + __log2f(v) + __powf(v, 2.0f) + fminf(v, 1.0f) + fmaxf(v, 0.0f) + copysignf(v, -1.0f) +
           __saturatef(v) + __frcp_rn(v) + __fsqrt_rd(v) + __fmul_rz(v, v) + __fadd_ru(v, 1.0f) + truncf(v) +
           roundf(v) + nearbyintf(v) + (float)__float2int_rn(v) + (float)__float2uint_rd(v) + frexpf(v, &i);
    y[i + 1] = isnan(v) ? 0.0f : (isinf(v) ? 1.0f : (float)signbit(v));
}
)",
                 {{"fmath", {"u64", "u64"}}}});

    p.push_back({"templates",
                 R"(
template <typename T, int Block>
__global__ void scale(T* data, T factor, int n) {
    int i = blockIdx.x * Block + threadIdx.x;
    if (i < n) data[i] *= factor;
}
template <typename T>
__device__ T square(T x) { return x * x; }
template <typename T>
__global__ void squares(T* data) { data[threadIdx.x] = square(data[threadIdx.x]); }
template __global__ void scale<float, 256>(float*, float, int);
template __global__ void scale<double, 128>(double*, double, int);
template __global__ void squares<int>(int*);
template __global__ void squares<short>(short*);
)",
                 {{"scale<float, 256>", {"u64", "f32", "u32"}, true},
                  {"scale<double, 128>", {"u64", "f64", "u32"}, true},
                  {"squares<int>", {"u64"}, true},
                  {"squares<short>", {"u64"}, true}}});

    p.push_back({"structs_by_value",
                 R"(
struct Vec3 { float x, y, z; };
struct Particle { Vec3 pos; Vec3 vel; double mass; int id; };
struct __align__(16) Aligned { float4 v; int tag; };
struct Tiny { char a; short b; };
extern "C" __global__ void step(Particle p, Vec3 g, Aligned a, Tiny t, Particle* out, float dt) {
    p.vel.x += g.x * dt; p.vel.y += g.y * dt; p.vel.z += g.z * dt;
    p.pos.x += p.vel.x * dt + a.v.x; p.pos.y += p.vel.y * dt + a.v.w; p.pos.z += p.vel.z * dt;
    p.id += a.tag + t.a + t.b;
    out[threadIdx.x] = p;
}
)",
                 {{"step", {"b8[40]", "b8[12]", "b8[32]", "b8[4]", "u64", "f32"}}}});

    p.push_back({"constant_memory",
                 R"(
__constant__ float coeffs[16] = {1.0f, 0.5f, 0.25f, 0.125f};
__constant__ int lut[4][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
__constant__ double scale = 3.5;
extern "C" __global__ void fir(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
#pragma unroll 4
    for (int k = 0; k < 16; ++k) acc += coeffs[k] * x[max(i - k, 0)];
    y[i] = acc * (float)scale + lut[i & 3][(i >> 2) & 3];
}
)",
                 {{"fir", {"u64", "u64", "u32"}}}});

    p.push_back({"dynamic_shared",
                 R"(
extern "C" __global__ void block_scan(const int* in, int* out, int n) {
    extern __shared__ int temp[];
    int tid = threadIdx.x;
    temp[tid] = tid < n ? in[tid] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        int v = tid >= offset ? temp[tid - offset] : 0;
        __syncthreads();
        temp[tid] += v;
        __syncthreads();
    }
    if (tid < n) out[tid] = temp[tid];
}
extern "C" __global__ void two_arrays(float* out, int n) {
    extern __shared__ float4 dyn4[];
    float* second = (float*)&dyn4[n];
    dyn4[threadIdx.x] = make_float4(1, 2, 3, 4);
    second[threadIdx.x] = 5.0f;
    __syncthreads();
    out[threadIdx.x] = dyn4[threadIdx.x ^ 1].y + second[threadIdx.x ^ 1];
}
)",
                 {{"block_scan", {"u64", "u64", "u32"}}, {"two_arrays", {"u64", "u32"}}}});

    p.push_back({"warp_vote_match_redux",
                 R"(
extern "C" __global__ void warp_ops(const int* in, unsigned* out) {
    int v = in[threadIdx.x];
    unsigned mask = __activemask();
    out[0] = __all_sync(mask, v > 0);
    out[1] = __any_sync(mask, v < 0);
    out[2] = __ballot_sync(mask, v & 1);
    out[3] = __match_any_sync(mask, v);
    int pred;
    out[4] = __match_all_sync(mask, v, &pred) + pred;
    out[5] = __reduce_add_sync(mask, (unsigned)v);
    out[6] = __reduce_min_sync(mask, v);
    out[7] = __reduce_max_sync(mask, (unsigned)v);
    out[8] = __reduce_and_sync(mask, (unsigned)v) | __reduce_or_sync(mask, (unsigned)v) ^ __reduce_xor_sync(mask, (unsigned)v);
    __syncwarp(mask);
    unsigned lt, ge;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    out[9] = lt + __popc(ge);
}
)",
                 {{"warp_ops", {"u64", "u64"}}}});

    p.push_back({"syncthreads_variants",
                 R"(
extern "C" __global__ void barrier_counts(const float* x, int* out) {
    float v = x[threadIdx.x];
    int positives = __syncthreads_count(v > 0.0f);
    int all = __syncthreads_and(v != 0.0f);
    int any = __syncthreads_or(v > 100.0f);
    if (threadIdx.x == 0) { out[0] = positives; out[1] = all; out[2] = any; }
    __threadfence();
    __threadfence_block();
    __threadfence_system();
}
)",
                 {{"barrier_counts", {"u64", "u64"}}}});

    p.push_back({"integer_intrinsics",
                 R"(
extern "C" __global__ void bits(const unsigned* in, unsigned* out, unsigned long long* wide) {
    unsigned x = in[threadIdx.x], y = in[threadIdx.x + 1];
    out[0] = __popc(x) + __clz(x) + __ffs(x) + __brev(x);
    out[1] = __byte_perm(x, y, 0x5140);
    out[2] = __funnelshift_l(x, y, 5) ^ __funnelshift_r(x, y, 7) ^ __funnelshift_lc(x, y, 40);
    out[3] = __umulhi(x, y) + (unsigned)__mulhi((int)x, (int)y) + __sad((int)x, (int)y, 1u);
    out[4] = __vabsdiffu4(x, y) + __vadd2(x, y) + (unsigned)__dp4a((int)x, (int)y, 3);
    unsigned long long w = wide[0];
    wide[1] = __popcll(w) + __clzll((long long)w) + __brevll(w) + __umul64hi(w, w) + __ffsll((long long)w);
    out[5] = __uhadd(x, y) + __urhadd(x, y) + __usad(x, y, 0u);
    out[6] = (unsigned)__mul24((int)x, (int)y) + __umul24(x, y);
    out[7] = x / (y | 1) + x % (y | 1) + (unsigned)((int)x / ((int)y | 1));
    wide[2] = w / (wide[3] | 1) + w % 7;
}
)",
                 {{"bits", {"u64", "u64", "u64"}}}});

    p.push_back({"cccl_headers",
                 R"(
#include <cuda/std/array>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda/std/tuple>
#include <cuda/std/complex>
#include <cuda/std/cmath>
#include <cuda/std/bit>
#include <cuda/std/span>
#include <cuda/atomic>
extern "C" __global__ void cccl(float* out, int* counter) {
    cuda::std::array<float, 4> a{1.0f, 2.0f, 3.0f, 4.0f};
    cuda::std::pair<int, float> pr{3, 0.5f};
    cuda::std::tuple<int, double> tp{1, 2.0};
    cuda::std::complex<float> c(1.0f, 2.0f);
    c = c * c + cuda::std::exp(c);
    static_assert(cuda::std::is_same_v<decltype(a)::value_type, float>);
    float lowest = cuda::std::numeric_limits<float>::lowest();
    cuda::std::span<float, 4> s(a);
    float sum = 0.0f;
    for (float v : s) sum += v;
    out[threadIdx.x] = sum + pr.second + (float)cuda::std::get<1>(tp) + c.real() + lowest * 0.0f +
                       (float)cuda::std::popcount(threadIdx.x) + cuda::std::fabs(c.imag());
    cuda::atomic_ref<int, cuda::thread_scope_device> ref(*counter);
    ref.fetch_add(1, cuda::std::memory_order_relaxed);
    cuda::atomic_ref<int, cuda::thread_scope_block> blk(counter[1]);
    blk.store(2, cuda::std::memory_order_release);
    out[0] += (float)blk.load(cuda::std::memory_order_acquire);
}
)",
                 {{"cccl", {"u64", "u64"}}}});

    p.push_back({"histogram_and_transpose",
                 R"(
extern "C" __global__ void histogram(const unsigned char* data, int n, unsigned* bins) {
    __shared__ unsigned local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
extern "C" __global__ void transpose(const float* in, float* out, int w, int h) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
)",
                 {{"histogram", {"u64", "u32", "u64"}}, {"transpose", {"u64", "u64", "u32", "u32"}}}});

    p.push_back({"vector_loads_and_ldg",
                 R"(
extern "C" __global__ void vec_copy(const float4* __restrict__ in, float4* __restrict__ out, const int2* idx,
                                    double2* d, char4* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = __ldg(&in[i]);
    int2 j = idx[i];
    v.x += j.x; v.w -= j.y;
    out[i] = v;
    double2 dd = d[i];
    d[i] = make_double2(dd.y, dd.x);
    char4 cc = c[i];
    c[i] = make_char4(cc.w, cc.z, cc.y, cc.x);
    out[n + i] = make_float4(__ldcs(&in[i].x), __ldlu(&in[i].y), __ldcv(&in[i].z), __ldca(&in[i].w));
    __stcs(&out[2 * n + i].x, 1.0f);
    __stwt(&out[2 * n + i].y, 2.0f);
}
)",
                 {{"vec_copy", {"u64", "u64", "u64", "u64", "u64", "u32"}}}});

    p.push_back({"function_pointers",
                 R"(
typedef float (*op_t)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
__device__ float max_op(float a, float b) { return fmaxf(a, b); }
__device__ op_t ops[3] = {add_op, mul_op, max_op};
extern "C" __global__ void apply(const int* which, const float* a, const float* b, float* out) {
    int i = threadIdx.x;
    op_t f = ops[which[i] % 3];
    out[i] = f(a[i], b[i]);
}
)",
                 {{"apply", {"u64", "u64", "u64", "u64"}}}});

    p.push_back({"switch_and_local_arrays",
                 R"(
__device__ __noinline__ int classify(int v) {
    switch (v) {
        case 0: return 10;
        case 1: return 21;
        case 2: return 32;
        case 3: return 43;
        case 4: return 54;
        case 5: return 65;
        case 6: return 76;
        case 7: return 87;
        default: return -1;
    }
}
extern "C" __global__ void local_work(const int* in, int* out, int k) {
    int buf[32];
    for (int j = 0; j < 32; ++j) buf[j] = in[threadIdx.x * 32 + j] * j;
    out[threadIdx.x] = buf[k & 31] + buf[(k * 7) & 31] + classify(in[threadIdx.x] & 15);
}
)",
                 {{"local_work", {"u64", "u64", "u32"}}}});

    p.push_back({"global_initialisers",
                 R"(
__device__ int table[8] = {1, 1, 2, 3, 5, 8, 13, 21};
__device__ int* table_ptrs[2] = {&table[0], &table[4]};
__device__ const char* names[2] = {"alpha", "beta"};
__device__ float fvals[3] = {1.5f, -0.0f, 3.25e-3f};
__device__ double dvals[2] = {3.141592653589793, 2.718281828459045};
__device__ unsigned long long counter;
__device__ __managed__ int managed_total;
struct Point { short x; char tag; double w; };
__device__ Point origin = {3, 'o', 0.5};
extern "C" __global__ void use_globals(int* out) {
    int i = threadIdx.x & 7;
    out[threadIdx.x] = table[i] + *table_ptrs[i & 1] + names[i & 1][0] + (int)fvals[i % 3] + (int)dvals[i & 1] +
                       origin.x + origin.tag;
    atomicAdd(&counter, 1ull);
    atomicAdd(&managed_total, 1);
}
)",
                 {{"use_globals", {"u64"}}}});

    p.push_back(
        {"async_copy_and_barrier",
         R"(
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
namespace cg = cooperative_groups;
extern "C" __global__ void async_stage(const float* in, float* out, int n) {
    __shared__ float stage[256];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, stage, in + blockIdx.x * 256, sizeof(float) * 256);
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = stage[255 - threadIdx.x];
}
extern "C" __global__ void barrier_stage(const int* in, int* out) {
    __shared__ int buf[128];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in, sizeof(int) * 128, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = buf[threadIdx.x ^ 1];
}
extern "C" __global__ void pipelined(const float* in, float* out) {
    __shared__ float s[2][64];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    for (int stage = 0; stage < 2; ++stage) {
        pipe.producer_acquire();
        cuda::memcpy_async(&s[stage][threadIdx.x], &in[stage * 64 + threadIdx.x], sizeof(float), pipe);
        pipe.producer_commit();
    }
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    out[threadIdx.x] = s[0][threadIdx.x] + s[1][threadIdx.x];
}
)",
         {{"async_stage", {"u64", "u64", "u32"}}, {"barrier_stage", {"u64", "u64"}}, {"pipelined", {"u64", "u64"}}}});

    p.push_back({"inline_asm_and_special_registers",
                 R"(
__device__ unsigned lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ unsigned add_carry(unsigned a, unsigned b, unsigned* carry) {
    unsigned lo, c;
    asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 %0, %2, %3;\n\taddc.u32 %1, 0, 0;\n\t}" : "=r"(lo), "=r"(c) : "r"(a), "r"(b));
    *carry = c;
    return lo;
}
extern "C" __global__ void __launch_bounds__(256, 2) specials(unsigned* out, unsigned long long* t) {
    unsigned c;
    out[threadIdx.x] = lane_id() + add_carry(out[0], out[1], &c) + c;
    t[0] = clock64();
    t[1] = clock();
    unsigned long long gt;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
    t[2] = gt;
    unsigned smid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    out[1] = smid;
    __nanosleep(100);
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p bar.sync 0; }" :: "r"(c));
}
)",
                 {{"specials", {"u64", "u64"}}}});

    p.push_back({"textures_and_surfaces",
                 R"(
extern "C" __global__ void sample(cudaTextureObject_t tex, cudaSurfaceObject_t surf, float* out, int w) {
    int x = threadIdx.x, y = blockIdx.x;
    float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
    float4 q = tex1Dfetch<float4>(tex, x);
    surf2Dwrite(v + q.x, surf, x * (int)sizeof(float), y);
    float back;
    surf2Dread(&back, surf, x * (int)sizeof(float), y);
    out[y * w + x] = back;
}
)",
                 {{"sample", {"u64", "u64", "u64", "u32"}}}});

    p.push_back({"tensor_cores_wmma",
                 R"(
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_tile(const __half* a, const __half* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
)",
                 {{"wmma_tile", {"u64", "u64", "u64"}}}});

    p.push_back(
        {"launch_attributes",
         R"(
extern "C" __global__ void __maxnreg__(32) capped(float* x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void __launch_bounds__(1024, 1) wide(float* x) { x[threadIdx.x] += 1.0f; }
struct Big { float v[64]; };
extern "C" __global__ void by_grid_constant(const __grid_constant__ Big big, float* out) {
    out[threadIdx.x] = big.v[threadIdx.x & 63];
}
extern "C" __global__ void no_params() {}
)",
         {{"capped", {"u64"}}, {"wide", {"u64"}}, {"by_grid_constant", {"b8[256]", "u64"}}, {"no_params", {}}}});

    p.push_back({"stencil_and_loops",
                 R"(
#define RADIUS 3
extern "C" __global__ void stencil_1d(const float* in, float* out, int n) {
    __shared__ float temp[128 + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        temp[l - RADIUS] = g >= RADIUS ? in[g - RADIUS] : 0.0f;
        temp[l + 128] = g + 128 < n ? in[g + 128] : 0.0f;
    }
    __syncthreads();
    float r = 0.0f;
    for (int o = -RADIUS; o <= RADIUS; ++o) r += temp[l + o];
    if (g < n) out[g] = r;
}
extern "C" __global__ void mandelbrot(int* iters, int w, int h, int max_iter) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h, zr = 0, zi = 0;
    int k = 0;
#pragma unroll 1
    while (k < max_iter && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        ++k;
    }
    iters[y * w + x] = k;
}
)",
                 {{"stencil_1d", {"u64", "u64", "u32"}}, {"mandelbrot", {"u64", "u32", "u32", "u32"}}}});

    p.push_back({"conversions_and_types",
                 R"(
extern "C" __global__ void convert(const double* d, float* f, long long* ll, unsigned char* uc, short* s, bool* b,
                                   signed char sc, unsigned short us, char c) {
    int i = threadIdx.x;
    double v = d[i];
    f[i] = (float)v + __double2float_rd(v) + (float)(long long)v;
    ll[i] = (long long)v + __double2ll_rn(v) + (long long)f[i];
    uc[i] = (unsigned char)(v * 255.0) + (unsigned char)sc;
    s[i] = (short)v + (short)us;
    b[i] = v > 0.5 && c != 0;
    unsigned long long u = (unsigned long long)v;
    d[i + 1] == 0.0 ? (void)0 : (void)(f[i + 1] = (float)u + __ull2float_rz(u) + __int2float_rd(i));
}
)",
                 {{"convert", {"u64", "u64", "u64", "u64", "u64", "u64", "u8", "u16", "u8"}}}});

    return p;
}

}  // namespace

const std::vector<CorpusProgram>& corpus_programs() {
    static const std::vector<CorpusProgram> programs = make_programs();
    return programs;
}

}  // namespace xcuda::cpu::ptx::test

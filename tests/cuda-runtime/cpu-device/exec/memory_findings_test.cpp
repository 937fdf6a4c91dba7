// The memory checks on wrong kernels and their correct twins, run in one engine in the order a
// notebook runs them (the correct kernel first, on larger arrays): exact bounds of arguments, of
// shared variables and of device-heap blocks; use after free and bad frees on the heap; reads of
// memory nothing wrote; null and wild pointers named as such.
#include "engine_harness.hpp"

#include "exec/decode/program.hpp"

namespace xcuda::cpu::testing {
namespace {

std::shared_ptr<const Failure> failure_of(const LaunchOutcome& out) {
    if (out.status == CUDA_SUCCESS) return nullptr;
    EXPECT_NE(out.failure, nullptr) << "an error status without a report";
    return out.failure;
}

std::string report_of(const std::shared_ptr<const Failure>& f) { return f ? f->report() : std::string("clean"); }

const char* const copy_kernels = R"(
extern "C" __global__ void copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
extern "C" __global__ void copy_off_by_one(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = in[i];
})";

TEST(MemoryFindings, AnArrayInALargerPooledBufferIsCheckedAgainstItsOwnSize) {
    Engine e;
    auto m = e.load(copy_kernels);
    // Buffers sized for 300 floats, as a pool keeps them after a launch on 300-element arrays.
    const auto in = e.to_device(std::vector<float>(300, 1.0f)), out = e.to_device(std::vector<float>(300, 0.0f));
    e.extents = {{in, 300 * 4}, {out, 300 * 4}};
    EXPECT_EQ(failure_of(e.launch(m, "copy", {2, 1, 1}, {256, 1, 1}, 0, in, out, 300)), nullptr);
    // Lent now for 240-element arrays: the twin is clean, the off-by-one reads in[240].
    e.extents = {{in, 240 * 4}, {out, 240 * 4}};
    const auto clean = failure_of(e.launch(m, "copy", {2, 1, 1}, {128, 1, 1}, 0, in, out, 240));
    EXPECT_EQ(clean, nullptr) << report_of(clean);
    const auto f = failure_of(e.launch(m, "copy_off_by_one", {2, 1, 1}, {128, 1, 1}, 0, in, out, 240));
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(d.access, Access::read);
    EXPECT_EQ(d.where.line, 8);
    EXPECT_EQ(d.thread.x, 240u - 128u);
    EXPECT_EQ(d.block.x, 1u);
    EXPECT_EQ(d.region.parameter, 0);
    EXPECT_EQ(d.region.size, 960u);  // the array's, not the buffer's 1200
    EXPECT_EQ(d.region.offset, 960);
}

TEST(MemoryFindings, AViewIsCheckedAgainstTheViewNotTheArrayItLiesIn) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void shift(const float* in, float* out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = in[i - 1];
})");
    const auto whole = e.to_device(std::vector<float>(300, 1.0f)), out = e.to_device(std::vector<float>(100, 0.0f));
    const std::uint64_t view = whole + 40 * 4;
    e.extents = {{view, 100 * 4}, {out, 100 * 4}};
    const auto f = failure_of(e.launch(m, "shift", {1, 1, 1}, {32, 1, 1}, 0, view, out, 32));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(f->finding.thread.x, 0u);
    EXPECT_EQ(f->finding.region.base, view);
    EXPECT_EQ(f->finding.region.size, 400u);
    EXPECT_EQ(f->finding.region.offset, -4);  // in[-1]: 4 bytes before the view
    EXPECT_EQ(f->finding.region.parameter, 0);
}

const char* const shared_kernels = R"(
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
})";

TEST(MemoryFindings, AnOverrunOfOneSharedArrayIntoTheNextIsFoundAtItsFirstElement) {
    Engine e;
    auto m = e.load(shared_kernels);
    const auto in = e.to_device(std::vector<float>(64, 1.0f)), out = e.to_device(std::vector<float>(64, 0.0f));
    const auto clean = failure_of(e.launch(m, "two_tiles_twin", {4, 1, 1}, {64, 1, 1}, 0, in, out));
    EXPECT_EQ(clean, nullptr) << report_of(clean);
    const auto f = failure_of(e.launch(m, "two_tiles", {1, 1, 1}, {64, 1, 1}, 0, in, out));
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(d.space, MemorySpace::shared);
    EXPECT_EQ(d.access, Access::write);
    EXPECT_EQ(d.where.line, 6);
    EXPECT_EQ(d.thread.x, 32u);
    EXPECT_NE(d.region.variable.find("ta"), std::string::npos) << d.region.variable;
    EXPECT_EQ(d.region.size, 128u);
    EXPECT_EQ(d.region.offset, 128);  // ta[32]: 0 bytes past the end
}

TEST(MemoryFindings, EachKernelsSharedMemoryIsItsOwnAsOnAGpu) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void block_sum_static(const float* x, float* partial) {
    __shared__ float tile[256];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) partial[0] = tile[255];
}
extern "C" __global__ void block_sum(const float* x, float* partial) {
    extern __shared__ float buf[];
    buf[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) partial[0] = buf[255];
})");
    EXPECT_EQ(m->kernel("block_sum_static")->static_shared_bytes, 1024u);
    EXPECT_EQ(m->kernel("block_sum")->static_shared_bytes, 0u);
    const auto x = e.to_device(std::vector<float>(256, 2.0f)), partial = e.to_device(std::vector<float>(1, 0.0f));
    const auto f = failure_of(e.launch(m, "block_sum", {1, 1, 1}, {256, 1, 1}, 256 * 4, x, partial));
    EXPECT_EQ(f, nullptr) << report_of(f);
    EXPECT_EQ(e.to_host<float>(partial, 1)[0], 2.0f);
    // One float short of what the kernel reads: buf[255] is past the dynamic shared memory.
    const auto short_of = failure_of(e.launch(m, "block_sum", {1, 1, 1}, {256, 1, 1}, 255 * 4, x, partial));
    ASSERT_NE(short_of, nullptr);
    EXPECT_EQ(short_of->finding.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(short_of->finding.space, MemorySpace::shared);
}

const char* const heap_kernels = R"(
extern "C" __global__ void use_after_free(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    p[threadIdx.x % 16] = threadIdx.x;
    free(p);
    out[threadIdx.x] = p[threadIdx.x % 16];
}
extern "C" __global__ void double_free(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}
extern "C" __global__ void free_inside(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    free(p + 4);
}
extern "C" __global__ void free_argument(int* out) {
    if (threadIdx.x == 0) free(out);
}
extern "C" __global__ void overflow(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    for (int i = 0; i <= 4; ++i) p[i] = i;
    out[0] = p[0];
    free(p);
}
extern "C" __global__ void correct(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    for (int i = 0; i < 16; ++i) p[i] = threadIdx.x + i;
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += p[i];
    free(p);
    out[threadIdx.x] = sum;
})";

TEST(MemoryFindings, DeviceHeapUseAfterFreeDoubleFreeBadFreesAndOverrunsAreFound) {
    Engine e;
    auto m = e.load(heap_kernels);
    const auto out = e.to_device(std::vector<int>(128, 0));
    for (int round = 0; round < 3; ++round) {  // blocks made and freed in earlier launches change nothing
        const auto clean = failure_of(e.launch(m, "correct", {2, 1, 1}, {64, 1, 1}, 0, out));
        ASSERT_EQ(clean, nullptr) << report_of(clean);
    }
    EXPECT_EQ(e.to_host<int>(out, 1)[0], 120);

    const auto uaf = failure_of(e.launch(m, "use_after_free", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(uaf, nullptr);
    EXPECT_EQ(uaf->finding.kind, FindingKind::use_after_free);
    EXPECT_EQ(uaf->finding.access, Access::read);
    EXPECT_EQ(uaf->finding.where.line, 6);
    EXPECT_EQ(uaf->finding.region.kind, Region::Kind::heap_block);
    EXPECT_EQ(uaf->finding.region.size, 64u);
    EXPECT_EQ(uaf->finding.region.allocated_at.line, 3);
    EXPECT_EQ(uaf->finding.region.freed_at.line, 5);

    const auto twice = failure_of(e.launch(m, "double_free", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(twice, nullptr);
    EXPECT_EQ(twice->finding.kind, FindingKind::invalid_free);
    EXPECT_EQ(twice->finding.where.line, 14);
    EXPECT_EQ(twice->finding.detail, "double free");
    EXPECT_EQ(twice->finding.region.freed_at.line, 13);

    const auto inside = failure_of(e.launch(m, "free_inside", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(inside, nullptr);
    EXPECT_EQ(inside->finding.kind, FindingKind::invalid_free);
    EXPECT_EQ(inside->finding.where.line, 20);
    EXPECT_EQ(inside->finding.region.kind, Region::Kind::heap_block);
    EXPECT_EQ(inside->finding.region.offset, 16);

    const auto argument = failure_of(e.launch(m, "free_argument", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(argument, nullptr);
    EXPECT_EQ(argument->finding.kind, FindingKind::invalid_free);
    EXPECT_EQ(argument->finding.region.kind, Region::Kind::allocation);
    EXPECT_EQ(argument->finding.region.parameter, 0);

    const auto over = failure_of(e.launch(m, "overflow", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(over, nullptr);
    EXPECT_EQ(over->finding.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(over->finding.access, Access::write);
    EXPECT_EQ(over->finding.where.line, 28);
    EXPECT_EQ(over->finding.region.kind, Region::Kind::heap_block);
    EXPECT_EQ(over->finding.region.size, 16u);
    EXPECT_EQ(over->finding.region.offset, 16);

    const auto after = failure_of(e.launch(m, "correct", {2, 1, 1}, {64, 1, 1}, 0, out));
    EXPECT_EQ(after, nullptr) << report_of(after);
}

TEST(MemoryFindings, SharedMemoryReadBeforeAnyThreadOfTheBlockWroteItIsAnUninitialisedRead) {
    Engine e;
    auto m = e.load(R"(
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
})");
    const auto out = e.to_device(std::vector<float>(64, 0.0f));
    // A block's shared memory does not keep what an earlier block or launch wrote.
    const auto clean = failure_of(e.launch(m, "all_written", {8, 1, 1}, {64, 1, 1}, 0, out));
    EXPECT_EQ(clean, nullptr) << report_of(clean);
    const auto f = failure_of(e.launch(m, "half_written", {1, 1, 1}, {64, 1, 1}, 0, out));
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::uninitialised_read);
    EXPECT_EQ(d.space, MemorySpace::shared);
    EXPECT_EQ(d.where.line, 7);
    EXPECT_EQ(d.thread.x, 0u);  // reads tile[63]
    EXPECT_NE(d.region.variable.find("tile"), std::string::npos);
    EXPECT_EQ(d.region.offset, 63 * 4);
}

TEST(MemoryFindings, GlobalMemoryNothingWroteIsAnUninitialisedReadUntilACopyMemsetOrKernelWritesIt) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void twice(const float* in, float* out) { out[threadIdx.x] = in[threadIdx.x] * 2.0f; }
extern "C" __global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }
extern "C" __global__ void count(int* bins, const int* values) { atomicAdd(&bins[values[threadIdx.x]], 1); }
extern "C" __global__ void reset(int* bins) { atomicExch(&bins[threadIdx.x], 0); }
)");
    const auto out = e.allocate_unwritten(64 * 4);
    const auto in = e.allocate_unwritten(64 * 4);
    const auto f = failure_of(e.launch(m, "twice", {1, 1, 1}, {64, 1, 1}, 0, in, out));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::uninitialised_read);
    EXPECT_EQ(f->finding.space, MemorySpace::global);
    EXPECT_EQ(f->finding.where.line, 2);
    EXPECT_EQ(f->finding.region.parameter, 0);
    EXPECT_EQ(f->finding.region.offset, 0);
    // A kernel writes `in`: reading it afterwards is fine, and `out` is written by the reads' launch.
    EXPECT_EQ(failure_of(e.launch(m, "fill", {1, 1, 1}, {64, 1, 1}, 0, in)), nullptr);
    const auto clean = failure_of(e.launch(m, "twice", {1, 1, 1}, {64, 1, 1}, 0, in, out));
    EXPECT_EQ(clean, nullptr) << report_of(clean);
    EXPECT_EQ(e.to_host<float>(out, 64)[63], 2.0f);
    // Half written by a kernel: the other half is still unwritten.
    const auto partly = e.allocate_unwritten(64 * 4);
    EXPECT_EQ(failure_of(e.launch(m, "fill", {1, 1, 1}, {32, 1, 1}, 0, partly)), nullptr);
    const auto half = failure_of(e.launch(m, "twice", {1, 1, 1}, {64, 1, 1}, 0, partly, out));
    ASSERT_NE(half, nullptr);
    EXPECT_EQ(half->finding.thread.x, 32u);
    // A copy or memset writes it too.
    e.memory().mark_written(partly, 64 * 4);
    EXPECT_EQ(failure_of(e.launch(m, "twice", {1, 1, 1}, {64, 1, 1}, 0, partly, out)), nullptr);

    // An atomic reads the value it changes: counting into bins nothing zeroed is reported; the
    // exchange that zeroes them is a write.
    const auto values = e.to_device(std::vector<int>(32, 3));
    const auto bins = e.allocate_unwritten(8 * 4);
    const auto counted = failure_of(e.launch(m, "count", {1, 1, 1}, {32, 1, 1}, 0, bins, values));
    ASSERT_NE(counted, nullptr);
    EXPECT_EQ(counted->finding.kind, FindingKind::uninitialised_read);
    EXPECT_EQ(counted->finding.access, Access::atomic);
    EXPECT_EQ(counted->finding.region.offset, 12);
    EXPECT_EQ(failure_of(e.launch(m, "reset", {1, 1, 1}, {8, 1, 1}, 0, bins)), nullptr);
    const auto after = failure_of(e.launch(m, "count", {1, 1, 1}, {32, 1, 1}, 0, bins, values));
    EXPECT_EQ(after, nullptr) << report_of(after);
    EXPECT_EQ(e.to_host<int>(bins, 8)[3], 32);
}

TEST(MemoryFindings, ANullArgumentIsNamedAsTheParameterItIsNotTheNearestAllocation) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
})");
    const auto y = e.to_device(std::vector<float>(256, 1.0f));
    const auto f = failure_of(e.launch(m, "saxpy", {1, 1, 1}, {256, 1, 1}, 0, 2.0f, std::uint64_t{0}, y, 256));
    ASSERT_NE(f, nullptr);
    const Finding& d = f->finding;
    EXPECT_EQ(d.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(d.region.kind, Region::Kind::none);
    EXPECT_EQ(d.pointer.kind, PointerSource::Kind::parameter);
    EXPECT_EQ(d.pointer.parameter, 1);
    EXPECT_EQ(d.pointer.value, 0u);
    EXPECT_NE(f->report().find("kernel parameter 1 is a null pointer"), std::string::npos) << f->report();
    // A pointer into nothing: named with the value it holds.
    const std::uint64_t wild = 0x12345000ull;  // far from the arena, which mmap places high
    const auto w = failure_of(e.launch(m, "saxpy", {1, 1, 1}, {256, 1, 1}, 0, 2.0f, y, wild, 256));
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->finding.pointer.parameter, 2);
    EXPECT_EQ(w->finding.pointer.value, wild);
    EXPECT_FALSE(w->finding.pointer.allocated);
    EXPECT_NE(w->report().find("an address no allocation covers"), std::string::npos) << w->report();
}

TEST(MemoryFindings, ADevicePointerVariableNeverSetIsNamedAsANullPointer) {
    Engine e;
    auto m = e.load(R"(
__device__ float* table;
__device__ unsigned long long other;
extern "C" __global__ void lookup(float* out) { out[threadIdx.x] = table[threadIdx.x]; }
)");
    const auto out = e.to_device(std::vector<float>(32, 0.0f));
    const auto f = failure_of(e.launch(m, "lookup", {1, 1, 1}, {32, 1, 1}, 0, out));
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->finding.kind, FindingKind::out_of_bounds);
    EXPECT_EQ(f->finding.pointer.kind, PointerSource::Kind::variable);
    EXPECT_NE(f->finding.pointer.variable.find("table"), std::string::npos) << f->finding.pointer.variable;
    EXPECT_EQ(f->finding.pointer.value, 0u);
    EXPECT_EQ(f->finding.region.kind, Region::Kind::none);
}

// Correct kernels with the patterns the checks must not mistake for bugs, each on memory the
// launch wrote first or an argument's exact extent.
TEST(MemoryFindings, CorrectKernelsWithShufflesTilesGridStrideLoopsDoubleBuffersAtomicsAndFencesRunClean) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
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
        if (threadIdx.x == 0) atomicAdd(total, w);
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
__device__ unsigned ready;
extern "C" __global__ void publish(float* data, float* seen) {
    if (threadIdx.x == 0) {
        data[0] = 42.0f;
        __threadfence();
        atomicExch(&ready, 1u);
    }
    __syncthreads();
    if (threadIdx.x == 1) {
        while (atomicAdd(&ready, 0u) == 0u) {
        }
        __threadfence();
        seen[0] = data[0];
    }
})");
    const int n = 4096;
    std::vector<float> xs(n, 1.0f);
    const auto x = e.to_device(xs);
    const auto total = e.allocate_unwritten(4);
    e.memory().mark_written(total, 4);  // a memset
    const auto y = e.allocate_unwritten(n * 4);
    e.extents = {{x, n * 4}};
    const auto r = failure_of(e.launch(m, "reduce", {8, 1, 1}, {256, 1, 1}, 0, x, total, n));
    EXPECT_EQ(r, nullptr) << report_of(r);
    const auto b = failure_of(e.launch(m, "double_buffer", {1, 1, 1}, {128, 1, 1}, 0, x, y, n));
    EXPECT_EQ(b, nullptr) << report_of(b);
    const auto data = e.allocate_unwritten(4), seen = e.allocate_unwritten(4);
    const auto p = failure_of(e.launch(m, "publish", {1, 1, 1}, {64, 1, 1}, 0, data, seen));
    EXPECT_EQ(p, nullptr) << report_of(p);
    EXPECT_EQ(e.to_host<float>(seen, 1)[0], 42.0f);
}

}  // namespace
}  // namespace xcuda::cpu::testing

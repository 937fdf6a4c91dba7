// Threads that cooperate through what CUDA's headers build on PTX: cuda::barrier and
// cuda::pipeline (mbarrier), cuda::memcpy_async (cp.async, the bulk copies), cooperative groups'
// tiles larger than a warp (the reserved shared memory) and partitions of a warp (collectives
// whose lanes name different masks). Each kernel's result against the host's, and no finding:
// what the threads order through these objects is not a race.
#include "engine_harness.hpp"

#include <numeric>

namespace xcuda::cpu::testing {
namespace {

#define EXPECT_RAN(out) ASSERT_EQ((out).status, CUDA_SUCCESS) << ((out).failure ? (out).failure->report() : "")

TEST(Cooperation, ABarriersArriveAndWaitOrdersSharedWritesBeforeTheReadsAfterIt) {
    Engine e;
    auto m = e.load(R"(
#include <cuda/barrier>
extern "C" __global__ void rotate(int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int v[64];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    v[threadIdx.x] = threadIdx.x * 3;
    bar.arrive_and_wait();
    out[threadIdx.x] = v[(threadIdx.x + 32) % 64];
    auto token = bar.arrive();   // a second phase, split: arrive, then wait for it
    bar.wait(std::move(token));
    v[threadIdx.x] = 0;
})");
    const auto d = e.to_device(std::vector<int>(64, -1));
    EXPECT_RAN(e.launch(m, "rotate", {2, 1, 1}, {64, 1, 1}, 0, d));
    const auto got = e.to_host<int>(d, 64);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(got[i], ((i + 32) % 64) * 3) << i;
}

TEST(Cooperation, MemcpyAsyncWithABarrierCopiesInBulkAndCompletesItsTransaction) {
    Engine e;
    auto m = e.load(R"(
#include <cuda/barrier>
extern "C" __global__ void reverse(const float4* in, float4* out) {
    __shared__ alignas(16) float4 buf[64];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(&buf[threadIdx.x], &in[threadIdx.x], sizeof(float4), bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = buf[63 - threadIdx.x];
})");
    ASSERT_NE(e.ptx().find("cp.async.bulk"), std::string::npos) << "NVRTC no longer emits the bulk copy here";
    std::vector<float> in(256);
    std::iota(in.begin(), in.end(), 0.5f);
    const auto din = e.to_device(in), dout = e.to_device(std::vector<float>(256, 0));
    EXPECT_RAN(e.launch(m, "reverse", {1, 1, 1}, {64, 1, 1}, 0, din, dout));
    const auto got = e.to_host<float>(dout, 256);
    for (int t = 0; t < 64; ++t) {
        for (int c = 0; c < 4; ++c) EXPECT_EQ(got[t * 4 + c], in[(63 - t) * 4 + c]) << t << "." << c;
    }
}

TEST(Cooperation, APipelineWithSharedStateCommitsAndWaitsForItsCopies) {
    Engine e;
    auto m = e.load(R"(
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void reverse(const float* in, float* out) {
    __shared__ float buf[64];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf, in, sizeof(buf), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[threadIdx.x] = buf[63 - threadIdx.x];
    pipe.consumer_release();
})");
    std::vector<float> in(64);
    std::iota(in.begin(), in.end(), 1.0f);
    const auto din = e.to_device(in), dout = e.to_device(std::vector<float>(64, 0));
    EXPECT_RAN(e.launch(m, "reverse", {1, 1, 1}, {64, 1, 1}, 0, din, dout));
    const auto got = e.to_host<float>(dout, 64);
    for (int t = 0; t < 64; ++t) EXPECT_EQ(got[t], in[63 - t]) << t;
}

TEST(Cooperation, ATileOfTwoWarpsReducesThroughTheReservedSharedMemory) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tile_sums(const int* in, int* out) {
    __shared__ cg::block_tile_memory<128> scratch;
    auto block = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<64>(block);
    int s = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
    if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = s;
})");
    std::vector<int> in(128);
    std::iota(in.begin(), in.end(), 0);
    const auto din = e.to_device(in), dout = e.to_device(std::vector<int>(2, 0));
    EXPECT_RAN(e.launch(m, "tile_sums", {1, 1, 1}, {128, 1, 1}, 0, din, dout));
    EXPECT_EQ(e.to_host<int>(dout, 2), (std::vector<int>{2016, 6112}));
}

TEST(Cooperation, ConvergedLanesNamingDisjointMasksEachVoteAndReduceOverTheirOwn) {
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void halves(const int* v, int* sum, int* mx, unsigned* bal, int* any, unsigned* same) {
    unsigned lane = threadIdx.x, mask = (lane & 1) ? 0xAAAAAAAAu : 0x55555555u;
    sum[lane] = __reduce_add_sync(mask, v[lane]);
    mx[lane] = __reduce_max_sync(mask, v[lane]);
    bal[lane] = __ballot_sync(mask, v[lane] > 10);
    any[lane] = __any_sync(mask, v[lane] > 35);
    same[lane] = __match_any_sync(mask, v[lane] % 4);
})");
    std::vector<int> v(32);
    std::iota(v.begin(), v.end(), 0);
    v[0] = 40;
    const auto dv = e.to_device(v), dsum = e.to_device(std::vector<int>(32)), dmx = e.to_device(std::vector<int>(32)),
               dbal = e.to_device(std::vector<unsigned>(32)), dany = e.to_device(std::vector<int>(32)),
               dsame = e.to_device(std::vector<unsigned>(32));
    EXPECT_RAN(e.launch(m, "halves", {1, 1, 1}, {32, 1, 1}, 0, dv, dsum, dmx, dbal, dany, dsame));
    const auto sum = e.to_host<int>(dsum, 32), mx = e.to_host<int>(dmx, 32), any = e.to_host<int>(dany, 32);
    const auto bal = e.to_host<unsigned>(dbal, 32), same = e.to_host<unsigned>(dsame, 32);
    for (unsigned lane = 0; lane < 32; ++lane) {
        const unsigned mask = (lane & 1) ? 0xAAAAAAAAu : 0x55555555u;
        int s = 0, m_ = 0, a = 0;
        unsigned b = 0, eq = 0;
        for (unsigned l = 0; l < 32; ++l) {
            if ((mask >> l & 1) == 0) continue;
            s += v[l];
            m_ = std::max(m_, v[l]);
            a |= v[l] > 35;
            if (v[l] > 10) b |= 1u << l;
            if (v[l] % 4 == v[lane] % 4) eq |= 1u << l;
        }
        EXPECT_EQ(sum[lane], s) << lane;
        EXPECT_EQ(mx[lane], m_) << lane;
        EXPECT_EQ(bal[lane], b) << lane;
        EXPECT_EQ(any[lane], a) << lane;
        EXPECT_EQ(same[lane], eq) << lane;
    }
}

}  // namespace
}  // namespace xcuda::cpu::testing

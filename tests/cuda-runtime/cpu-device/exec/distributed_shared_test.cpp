// Distributed shared memory: the CTAs of a cluster reach each other's shared memory through
// cluster.map_shared_rank (mapa), read, write and atomics alike; getctarank says whose memory an
// address is; a rank outside the cluster is a finding at its line.
#include "engine_harness.hpp"

#include <numeric>

namespace xcuda::cpu::testing {
namespace {

#define EXPECT_RAN(out) ASSERT_EQ((out).status, CUDA_SUCCESS) << ((out).failure ? (out).failure->report() : "")

TEST(DistributedShared, EachBlockOfAClusterReadsItsNeighboursSharedMemory) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void swap_halves(const int* in, int* out) {
    __shared__ int mine[64];
    cg::cluster_group cluster = cg::this_cluster();
    mine[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    cluster.sync();
    const int* theirs = cluster.map_shared_rank(mine, cluster.block_rank() ^ 1);
    out[blockIdx.x * 64 + threadIdx.x] = theirs[threadIdx.x];
    cluster.sync();  // the neighbour's memory must outlive its reads
})");
    ASSERT_NE(e.ptx().find("mapa"), std::string::npos) << "NVRTC no longer emits mapa here";
    std::vector<int> in(4 * 64);
    std::iota(in.begin(), in.end(), 0);
    const auto din = e.to_device(in), dout = e.to_device(std::vector<int>(in.size(), -1));
    e.cluster = {2, 1, 1};
    EXPECT_RAN(e.launch(m, "swap_halves", {4, 1, 1}, {64, 1, 1}, 0, din, dout));
    const auto got = e.to_host<int>(dout, in.size());
    for (int b = 0; b < 4; ++b) {
        for (int t = 0; t < 64; ++t) EXPECT_EQ(got[b * 64 + t], in[(b ^ 1) * 64 + t]) << b << "." << t;
    }
}

TEST(DistributedShared, AHistogramSpreadOverTheClustersSharedMemoryAddsUpWithAtomics) {
    // The Programming Guide's distributed shared memory histogram: each block owns a slice of the
    // bins, and every block adds into whichever block's slice a value falls in.
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void histogram(int* bins, const int* input, int n, int nbins) {
    extern __shared__ int slice[];
    cg::cluster_group cluster = cg::this_cluster();
    const int per_block = nbins / cluster.num_blocks();
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) slice[i] = 0;
    cluster.sync();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const int bin = input[i];
        int* owner = cluster.map_shared_rank(slice, bin / per_block);
        atomicAdd(owner + bin % per_block, 1);
    }
    cluster.sync();
    const int first = cluster.block_rank() * per_block;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) atomicAdd(&bins[first + i], slice[i]);
})");
    const int n = 5000, nbins = 64;
    std::vector<int> input(n), expected(nbins, 0);
    for (int i = 0; i < n; ++i) {
        input[i] = (i * 37 + i / 7) % nbins;
        ++expected[input[i]];
    }
    const auto dbins = e.to_device(std::vector<int>(nbins, 0)), din = e.to_device(input);
    e.cluster = {4, 1, 1};
    EXPECT_RAN(e.launch(m, "histogram", {8, 1, 1}, {128, 1, 1}, (nbins / 4) * 4, dbins, din, n, nbins));
    // The grid-stride loop gives each value to one block of one of the two clusters.
    const auto got = e.to_host<int>(dbins, nbins);
    for (int b = 0; b < nbins; ++b) EXPECT_EQ(got[b], expected[b]) << b;
}

TEST(DistributedShared, ClusterAddressesFromMapaNameTheirBlockForGetctarankAndLoads) {
    // mapa.shared::cluster and getctarank on 32-bit shared addresses, as inline PTX writes them.
    Engine e;
    auto m = e.load(R"(
extern "C" __global__ void ranks(unsigned* owner, int* seen) {
    __shared__ int value;
    if (threadIdx.x == 0) value = 100 + blockIdx.x;
    asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
    unsigned mine = static_cast<unsigned>(__cvta_generic_to_shared(&value)), remote, rank;
    int v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(mine), "r"(threadIdx.x));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(remote));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote));
    owner[blockIdx.x * 4 + threadIdx.x] = rank;
    seen[blockIdx.x * 4 + threadIdx.x] = v;
    asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
})");
    const auto downer = e.to_device(std::vector<unsigned>(16, 99)), dseen = e.to_device(std::vector<int>(16, -1));
    e.cluster = {4, 1, 1};
    EXPECT_RAN(e.launch(m, "ranks", {4, 1, 1}, {4, 1, 1}, 0, downer, dseen));
    const auto owner = e.to_host<unsigned>(downer, 16);
    const auto seen = e.to_host<int>(dseen, 16);
    for (int b = 0; b < 4; ++b) {
        for (int t = 0; t < 4; ++t) {
            EXPECT_EQ(owner[b * 4 + t], static_cast<unsigned>(t)) << b << "." << t;
            EXPECT_EQ(seen[b * 4 + t], 100 + t) << b << "." << t;
        }
    }
}

TEST(DistributedShared, ARankOutsideTheClusterIsAFindingAtItsLine) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void too_far(int* out) {
    __shared__ int mine[32];
    cg::cluster_group cluster = cg::this_cluster();
    mine[threadIdx.x] = threadIdx.x;
    cluster.sync();
    int* theirs = cluster.map_shared_rank(mine, cluster.block_rank() + 1);
    out[threadIdx.x] = theirs[threadIdx.x];
    cluster.sync();
})");
    const auto dout = e.to_device(std::vector<int>(64, 0));
    e.cluster = {2, 1, 1};
    const LaunchOutcome out = e.launch(m, "too_far", {2, 1, 1}, {32, 1, 1}, 0, dout);
    ASSERT_EQ(out.status, CUDA_ERROR_ILLEGAL_ADDRESS);
    const Finding& f = out.failure->finding;
    EXPECT_EQ(f.kind, FindingKind::invalid_operation);
    EXPECT_EQ(cell_line(f.where), 9) << f.where.str();
    EXPECT_EQ(f.block.x, 1u);  // rank 1 asked for rank 2
    EXPECT_NE(f.detail.find("CTA rank 2: the cluster has 2 CTAs"), std::string::npos) << f.detail;
}

}  // namespace
}  // namespace xcuda::cpu::testing

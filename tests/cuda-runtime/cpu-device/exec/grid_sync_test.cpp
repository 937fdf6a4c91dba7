// A kernel that synchronises its whole grid (cooperative_groups' grid.sync()) is known as one at
// load, so that the driver runs it cooperatively however it is launched, as a GPU's driver gives
// such a kernel its grid workspace; a kernel that only uses this_grid() for its indices is not.
#include "engine_harness.hpp"

namespace xcuda::cpu::testing {
namespace {

TEST(GridSync, AKernelCallingGridSyncIsMarkedAndOnlyUsingThisGridForIndicesIsNot) {
    Engine e;
    auto m = e.load(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ __noinline__ void settle() { cg::this_grid().sync(); }  // reached through a call
extern "C" __global__ void two_phases(int* flags) {
    flags[blockIdx.x] = 1;
    settle();
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        int all = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) all += flags[b];
        flags[gridDim.x] = all;
    }
}
extern "C" __global__ void stride(float* p, int n) {
    cg::grid_group g = cg::this_grid();
    for (long long i = g.thread_rank(); i < n; i += g.size()) p[i] *= 2.0f;
})");
    ASSERT_NE(m->kernel("two_phases"), nullptr);
    EXPECT_TRUE(m->kernel("two_phases")->syncs_grid);
    EXPECT_FALSE(m->kernel("stride")->syncs_grid);

    const auto flags = e.to_device(std::vector<int>(17, 0));
    e.cooperative = true;  // what the driver makes of a plain launch of two_phases
    const LaunchOutcome out = e.launch(m, "two_phases", {16, 1, 1}, {64, 1, 1}, 0, flags);
    ASSERT_EQ(out.status, CUDA_SUCCESS) << (out.failure ? out.failure->report() : "");
    EXPECT_EQ(e.to_host<int>(flags, 17)[16], 16);
}

}  // namespace
}  // namespace xcuda::cpu::testing

// Which kernels the runtime launches cooperatively whatever the caller asked: those whose PTX
// (NVRTC's, as a cell compiles) reads cooperative_groups' grid workspace.
#include <xcuda/rt/compiler.hpp>
#include <xcuda/rt/grid_sync_scan.hpp>

#include <gtest/gtest.h>

namespace xcuda::rt {
namespace {

CompileOptions sm90() {
    CompileOptions o;
    o.arch = "sm_90";
    o.options = {"-std=c++17"};
    return o;
}

TEST(GridSyncScan, AKernelCallingGridSyncIsFoundAndItsNeighboursAreNot) {
    const char* src = R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_sum(const float* x, float* partial, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    atomicAdd(&partial[blockIdx.x], x[grid.thread_rank() % n]);
    grid.sync();
    if (grid.thread_rank() == 0) *out = partial[0];
}
extern "C" __global__ void block_sum(const float* x, float* out) {
    cg::thread_block block = cg::this_thread_block();
    atomicAdd(out, x[block.thread_rank()]);
    block.sync();
}
)";
    const auto r = compile(src, sm90());
    EXPECT_EQ(kernels_that_sync_the_grid(r.ptx), std::vector<std::string>{"grid_sum"});
}

TEST(GridSyncScan, AGridSyncInAFunctionNotInlinedMarksTheKernelsThatCallIt) {
    const char* ptx = R"(
.func (.param .b32 r) phase_barrier(.param .b32 p)
{
	mov.u32 	%r1, %envreg2;
	ret;
}
.visible .entry calls_it(.param .u64 a)
{
	call.uni (retval0), phase_barrier, (param0);
	ret;
}
.visible .entry phase_barrier_free(.param .u64 a)
{
	ret;
}
)";
    EXPECT_EQ(kernels_that_sync_the_grid(ptx), std::vector<std::string>{"calls_it"});
}

}  // namespace
}  // namespace xcuda::rt

"""Launch options on a GPU: cooperative launches (grid-wide sync), dynamic shared memory above
48 KiB, thread block clusters, and Kernel.attributes against the driver. Their argument and
limit checks run on CI against the simulated driver (test_sim_driver.py)."""
import numpy as np
import pytest

import xcuda
from conftest import requires_gpu

pytestmark = requires_gpu

COOPERATIVE = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Each block adds its share into partial[block]; after the grid-wide barrier, thread 0 of the
// grid sums the partials, which only holds if every block's writes are visible to it.
extern "C" __global__ void grid_sum(const float* x, float* partial, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    float s = 0.0f;
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) s += x[i];
    atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        *out = t;
    }
}
'''


def sm_count():
    return xcuda.Device(0).properties["multiprocessor_count"]


@pytest.fixture(scope="module")
def grid_sum():
    return xcuda.compile(COOPERATIVE).grid_sum


def test_a_cooperative_launch_syncs_the_whole_grid(grid_sum):
    n = 1 << 20
    x = np.ones(n, np.float32)
    blocks = min(grid_sum.occupancy(256)["active_blocks_per_sm"], 2) * sm_count()
    partial, out = xcuda.zeros(blocks, np.float32), xcuda.zeros(1, np.float32)
    grid_sum(x, partial, out, n, grid=blocks, block=256, cooperative=True)
    assert out.get()[0] == n
    out2 = xcuda.zeros(1, np.float32)
    grid_sum[blocks, 256].with_options(cooperative=True)(x, xcuda.zeros(blocks, np.float32), out2, n)
    assert out2.get()[0] == n


def test_a_cooperative_grid_that_cannot_be_resident_is_refused_naming_the_maximum(grid_sum):
    most = grid_sum.occupancy(256)["active_blocks_per_sm"] * sm_count()
    x = np.ones(16, np.float32)
    with pytest.raises(xcuda.LaunchError, match=f"at most {most} can be resident at once"):
        grid_sum(x, xcuda.zeros(most + 1, np.float32), xcuda.zeros(1, np.float32), 16, grid=most + 1, block=256,
                 cooperative=True)
    # refused before the driver: the context is fine
    xcuda.synchronize()


def test_100_kib_of_dynamic_shared_memory_is_usable_without_setting_an_attribute():
    m = xcuda.compile(r'''
extern "C" __global__ void shared_sum(float* out, int n) {
    extern __shared__ float s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)(i % 7);
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int i = 0; i < n; ++i) t += s[i];
        out[0] = t;
        out[1] = s[n - 1];
    }
}
''')
    nbytes = 100 * 1024
    n = nbytes // 4
    out = np.zeros(2, np.float32)
    m.shared_sum[1, 256, nbytes, None](out, n)
    assert out.tolist() == [float(sum(i % 7 for i in range(n))), float((n - 1) % 7)]
    assert m.shared_sum.attributes["max_dynamic_shared_size_bytes"] >= nbytes
    optin = xcuda.Device(0).properties["shared_memory_per_block_optin"]
    with pytest.raises(xcuda.LaunchError, match=f"at most {optin} bytes"):
        m.shared_sum(out, n, grid=1, block=256, shared_mem=optin + 1)


def test_a_cluster_launch_gives_each_block_its_rank_in_the_cluster():
    if not xcuda.Device(0).properties["cluster_launch"]:
        pytest.skip("this GPU has no thread block clusters (compute capability below 9.0)")
    m = xcuda.compile(r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void ranks(unsigned* rank, unsigned* size, unsigned* ctarank) {
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) {
        unsigned r;
        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
        rank[blockIdx.x] = cluster.block_rank();
        size[blockIdx.x] = cluster.num_blocks();
        ctarank[blockIdx.x] = r;
    }
    cluster.sync();
}
''')
    rank, size, ctarank = (np.zeros(8, np.uint32) for _ in range(3))
    m.ranks(rank, size, ctarank, grid=8, block=32, cluster=2)
    assert rank.tolist() == [0, 1] * 4 and size.tolist() == [2] * 8 and ctarank.tolist() == rank.tolist()
    m.ranks[8, 32].with_options(cluster=(4, 1, 1))(rank, size, ctarank)
    assert rank.tolist() == [0, 1, 2, 3] * 2 and size.tolist() == [4] * 8
    with pytest.raises(xcuda.LaunchError, match="not a multiple of 4"):
        m.ranks(rank, size, ctarank, grid=6, block=32, cluster=4)


def test_kernel_attributes_come_from_the_driver_and_settable_ones_stick(grid_sum):
    a = grid_sum.attributes
    assert a["num_regs"] == grid_sum.resources["registers"]
    assert a["max_threads_per_block"] >= 256 and a["binary_version"] >= 70
    a["preferred_shared_memory_carveout"] = 50
    assert grid_sum.attributes["preferred_shared_memory_carveout"] == 50
    a["max_dynamic_shared_size_bytes"] = 64 * 1024
    assert grid_sum.attributes["max_dynamic_shared_size_bytes"] == 64 * 1024
    with pytest.raises(TypeError, match="read-only"):
        a["num_regs"] = 1

"""Launch options: cooperative launches (grid-wide sync), dynamic shared memory above 48 KiB,
thread block clusters, and Kernel.attributes against the driver. Results need a GPU; the argument
and limit checks also run on CI against the simulated driver (conftest.py's `driver`), which
records each launch (last_launch) instead of running it."""
import collections.abc
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xcuda
from conftest import last_launch, requires_sim, requires_kernels

SIM_SOURCE = r'''
extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}
'''

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
    return xcuda.Device(xcuda.get_device()).properties["multiprocessor_count"]


@pytest.fixture(scope="module")
def grid_sum(driver):
    return xcuda.compile(COOPERATIVE, arch=driver.arch).grid_sum


@pytest.fixture(scope="module")
def sim():
    return xcuda.compile(SIM_SOURCE, arch="compute_90")


@requires_kernels
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
    per_sm = grid_sum.occupancy(256)["active_blocks_per_sm"]
    most = per_sm * sm_count()
    x = np.ones(16, np.float32)
    partial, out = xcuda.zeros(most + 1, np.float32), xcuda.zeros(1, np.float32)
    grid_sum(x, partial, out, 16, grid=most, block=256, cooperative=True)
    with pytest.raises(xcuda.LaunchError, match=rf"grid \({most + 1},1,1\) has {most + 1} blocks but at most {most} can be "
                                                rf"resident at once \({per_sm} per SM x {sm_count()} SMs.*"
                                                rf"use a grid of at most {most} blocks"):
        grid_sum(x, partial, out, 16, grid=most + 1, block=256, cooperative=True)
    with pytest.raises(xcuda.LaunchError, match=f"at most {most}"):
        grid_sum[most + 1, 256].with_options(cooperative=True)(x, partial, out, 16)
    # refused before the driver: the context is fine
    xcuda.synchronize()


@requires_kernels
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
    optin = xcuda.Device(xcuda.get_device()).properties["shared_memory_per_block_optin"]
    with pytest.raises(xcuda.LaunchError, match=f"at most {optin} bytes"):
        m.shared_sum(out, n, grid=1, block=256, shared_mem=optin + 1)


@requires_kernels
def test_a_cluster_launch_gives_each_block_its_rank_in_the_cluster():
    if not xcuda.Device(xcuda.get_device()).properties["cluster_launch"]:
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


@requires_kernels
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


# ---- on the simulated driver: the launch each option makes, and the limits it is checked against ----


@requires_sim
def test_plain_launches_take_cu_launch_kernel_and_options_cu_launch_kernel_ex(sim):
    d = xcuda.zeros(4, np.float32)
    sim.plain[2, 32](1.0, d, d, 4)
    assert last_launch() == "cuLaunchKernel plain grid=(2,1,1) block=(32,1,1) shared=0"
    sim.plain(1.0, d, d, 4, grid=4, block=64, cooperative=True)
    assert last_launch() == "cuLaunchKernelEx plain grid=(4,1,1) block=(64,1,1) shared=0 cooperative=1"
    sim.plain(1.0, d, d, 4, grid=(8, 2), block=32, cluster=(2, 2))
    assert last_launch() == "cuLaunchKernelEx plain grid=(8,2,1) block=(32,1,1) shared=0 cluster=(2,2,1)"
    launcher = sim.plain[8, 32].with_options(cooperative=True, cluster=4)
    assert launcher.cooperative and launcher.cluster == (4, 1, 1)
    assert "cooperative cluster=(4,1,1)" in repr(launcher)
    for _ in range(2):  # the second call takes the launcher's validated path
        launcher(1.0, d, d, 4)
        assert last_launch() == "cuLaunchKernelEx plain grid=(8,1,1) block=(32,1,1) shared=0 cooperative=1 cluster=(4,1,1)"
    sim.plain[8, 32](1.0, d, d, 4)   # the launcher it came from has no options
    assert last_launch().startswith("cuLaunchKernel plain")


@requires_sim
def test_dynamic_shared_memory_above_48_kib_raises_the_kernel_limit_and_above_the_opt_in_maximum_is_refused():
    m = xcuda.compile('extern "C" __global__ void bigshared(float* y) {}', arch="compute_90")
    d = xcuda.zeros(4, np.float32)
    assert m.bigshared.attributes["max_dynamic_shared_size_bytes"] == 49152
    m.bigshared[1, 32, 100 * 1024, None](d)
    assert last_launch() == "cuLaunchKernel bigshared grid=(1,1,1) block=(32,1,1) shared=102400"
    assert m.bigshared.attributes["max_dynamic_shared_size_bytes"] == 100 * 1024
    with pytest.raises(xcuda.LaunchError, match=r"at most 232448 bytes \(the device's opt-in maximum of 232448 bytes "
                                                r"per block, less the 0 bytes of static shared memory.*"
                                                r"pass shared_mem <= 232448"):
        m.bigshared(d, grid=1, block=32, shared_mem=232449)


@requires_sim
def test_clusters_need_a_grid_that_is_a_whole_number_of_them(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(xcuda.LaunchError, match=r"grid \(10,1,1\) is not a whole number of clusters \(4,1,1\): x = 10 "
                                                r"is not a multiple of 4; use a grid of 12 in x"):
        sim.plain(1.0, d, d, 4, grid=10, block=32, cluster=4)
    with pytest.raises(xcuda.LaunchError, match="cannot run clusters of 16 blocks.*non_portable_cluster_size_allowed"):
        sim.plain(1.0, d, d, 4, grid=16, block=32, cluster=16)


@requires_sim
def test_a_cluster_launch_on_an_sm_80_device_is_refused_before_the_driver():
    env = dict(os.environ, XCUDA_SIM_COMPUTE_CAPABILITY="80")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent('''
        import numpy as np, xcuda
        m = xcuda.compile('extern "C" __global__ void plain(float* y) {}', arch="compute_80")
        d = xcuda.zeros(4, np.float32)
        try:
            m.plain(d, grid=4, block=32, cluster=2)
        except xcuda.LaunchError as e:
            print("REFUSED", e)
        m.plain(d, grid=4, block=32, cooperative=True)
        print("COOPERATIVE OK")
    ''')], capture_output=True, text=True, timeout=120, env=env)
    assert "REFUSED cluster=(2,1,1) needs thread block clusters (compute capability 9.0 or newer); this device " \
           "(xcuda simulated device) is sm_80: launch plain without cluster=" in r.stdout, r.stdout + r.stderr
    assert "COOPERATIVE OK" in r.stdout


@requires_sim
def test_launch_option_values_are_checked(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(TypeError, match="cooperative must be True or False, got 1"):
        sim.plain(1.0, d, d, 4, grid=1, block=32, cooperative=1)
    with pytest.raises(ValueError, match=r"cluster \(0, 1\): every dimension must be a positive int"):
        sim.plain(1.0, d, d, 4, grid=1, block=32, cluster=(0, 1))
    with pytest.raises(TypeError, match="launch options are grid=, block=, shared_mem=, stream=, cooperative=, cluster="):
        sim.plain(1.0, d, d, 4, grid=1, block=32, clusters=2)
    with pytest.raises(TypeError, match="the launch options are cooperative= and cluster="):
        sim.plain[1, 32].with_options(coop=True)
    assert sim.plain[1, 32].with_options(cluster=None).cluster is None


@requires_sim
def test_kernel_attributes_read_and_write_through_the_driver(sim):
    a = sim.plain.attributes
    assert isinstance(a, collections.abc.Mapping)
    assert a["num_regs"] == 10 and a["max_threads_per_block"] == 1024 and a["binary_version"] == 90
    assert "cluster_scheduling_policy_preference" in a and "bogus" not in a and len(a) == len(list(a))
    assert dict(a)["max_dynamic_shared_size_bytes"] == a["max_dynamic_shared_size_bytes"]
    a["preferred_shared_memory_carveout"] = 50
    assert sim.plain.attributes["preferred_shared_memory_carveout"] == 50
    a["non_portable_cluster_size_allowed"] = True
    assert a["non_portable_cluster_size_allowed"] == 1
    d = xcuda.zeros(4, np.float32)
    sim.plain(1.0, d, d, 4, grid=16, block=32, cluster=16)   # allowed now
    assert "cluster=(16,1,1)" in last_launch()
    assert "required_cluster_width" in xcuda.KernelAttributes.settable
    assert "num_regs=10" in repr(a)


@requires_sim
def test_kernel_attribute_errors_name_the_names_and_the_limit(sim):
    a = sim.plain.attributes
    with pytest.raises(KeyError, match="no kernel attribute 'regs'; the attributes are max_threads_per_block, "
                                       "shared_size_bytes, .*cluster_scheduling_policy_preference"):
        a["regs"]
    with pytest.raises(KeyError, match="no kernel attribute"):
        a["regs"] = 1
    with pytest.raises(TypeError, match="kernel attribute 'num_regs' is read-only; the settable ones are "
                                        "max_dynamic_shared_size_bytes, preferred_shared_memory_carveout"):
        a["num_regs"] = 32
    with pytest.raises(ValueError, match=r"max_dynamic_shared_size_bytes = 300000 is more than kernel plain can have "
                                         r"on this device: at most 232448"):
        a["max_dynamic_shared_size_bytes"] = 300000
    with pytest.raises(TypeError, match="takes an int, got 1.5"):
        a["preferred_shared_memory_carveout"] = 1.5

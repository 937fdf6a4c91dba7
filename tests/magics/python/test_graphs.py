"""xcuda.graph(): launches captured in a `with` block are replayed with their results, arguments
can be changed between replays, and CuPy/torch work queued on the graph's stream is captured with
them (on a GPU). On CI the same API's bookkeeping and refusals run against the simulated driver,
which records launches as text ("cuGraphLaunch <kernel> grid=... arg0=<first int>", last_launch)
and runs no kernel code; the profiling of a replay is one test for both (conftest.py's `driver`)."""
import numpy as np
import pytest

import xcuda
from conftest import last_launch, requires_sim, requires_no_device, requires_kernels


SOURCE = r'''
extern "C" __global__ void scale_add(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void add_one(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
}
'''
N = 1000


SIM_SOURCE = r'''
extern "C" __global__ void first(int tag, float* y) {}
extern "C" __global__ void second(int tag, float* y) {}
'''


@pytest.fixture(scope="module")
def m(driver):
    return xcuda.compile(SOURCE, arch=driver.arch)


@pytest.fixture(scope="module")
def sim():
    return xcuda.compile(SIM_SOURCE, arch="compute_90")


@requires_kernels
def test_a_replay_runs_the_captured_launches_again_in_order(m):
    x = xcuda.to_device(np.arange(N, dtype=np.float32))
    y = xcuda.zeros(N, np.float32)
    with xcuda.graph() as g:
        m.scale_add[(N + 255) // 256, 256](2.0, x, y, N)
        m.add_one[(N + 255) // 256, 256](y, N)
    g.stream.synchronize()
    assert np.array_equal(y.get(), np.zeros(N, np.float32)), "capturing must not run the launches"
    g.launch()
    g.launch()
    g.stream.synchronize()
    expected = 2 * (2.0 * np.arange(N, dtype=np.float32) + 1)
    np.testing.assert_allclose(y.get(), expected)
    assert [k[0] for k in g.kernels] == ["scale_add", "add_one"]


@requires_kernels
def test_set_args_points_a_replay_at_other_arrays(m):
    x = xcuda.to_device(np.ones(N, np.float32))
    y1, y2 = xcuda.zeros(N, np.float32), xcuda.zeros(N, np.float32)
    with xcuda.graph() as g:
        m.scale_add[(N + 255) // 256, 256](3.0, x, y1, N)
    g.set_args(0, 5.0, x, y2, N)
    g.launch()
    g.stream.synchronize()
    assert np.all(y1.get() == 0) and np.all(y2.get() == 5.0)


@requires_kernels
def test_a_hundred_small_kernels_replay_exactly(m):
    y = xcuda.zeros(256, np.float32)
    with xcuda.graph() as g:
        for _ in range(100):
            m.add_one[1, 256](y, 256)
    for _ in range(3):
        g.launch()
    xcuda.synchronize()
    assert np.all(y.get() == 300)


def test_cuda_profile_and_timeit_show_a_replay_as_one_entry_naming_its_kernels(driver, m):
    x = xcuda.to_device(np.ones(256, np.float32))
    y = xcuda.zeros(256, np.float32)
    with xcuda.graph() as g:
        for _ in range(3):
            m.add_one[1, 256](y, 256)
        m.scale_add[1, 256](2.0, x, y, 256)
    report = xcuda.cuda_profile("g.launch()\n", {"g": g})
    assert "graph of 4 kernels: add_one x3, scale_add" in report.plain and "1 launch" in report.plain, report.plain
    if driver.event_s is not None:
        assert f"1 launch, {driver.event_s * 1e3:.2f} ms in all" in report.plain
    if driver.runs_kernels:
        xcuda.synchronize()
        assert np.all(y.get() == 5)
    else:
        assert last_launch().startswith("cuGraphLaunch scale_add")
    if driver.counters:
        # CUPTI's kernel replay gives a graph launch no counters and, seen on the H200, none to the
        # kernels launched after it: a replay under counters is refused with that reason.
        with pytest.raises(RuntimeError, match="CUPTI replays kernels one launch at a time"):
            xcuda.counters(g.launch)
        assert len(xcuda.counters(lambda: m.add_one[1, 256](y, 256))) == 1  # and the next collection works
    r = xcuda.cuda_timeit("g.launch()", {"g": g}, number=5, repeat=2)
    # the simulator's fixed time between the events around each replay; a GPU's is whatever it takes
    assert r.median == pytest.approx(driver.event_s) if driver.event_s is not None else r.median > 0


@requires_kernels
def test_cupy_work_on_the_graphs_stream_is_captured_with_the_kernels(m):
    cp = pytest.importorskip("cupy", reason="needs CuPy")
    y = cp.zeros(N, cp.float32)
    with xcuda.graph() as g:
        with cp.cuda.ExternalStream(g.stream.ptr):
            y += 10           # a CuPy kernel on the captured stream
            m.add_one[(N + 255) // 256, 256](y, N)
    g.launch()
    g.stream.synchronize()
    assert cp.all(y == 11).item()


@requires_kernels
def test_torch_graphs_capture_xcuda_launches(m):
    torch = pytest.importorskip("torch", reason="needs PyTorch")
    y = torch.zeros(N, device="cuda")
    tg = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    with torch.cuda.graph(tg, stream=s):
        m.add_one[(N + 255) // 256, 256, 0, s.cuda_stream](y, N)
    tg.replay()
    tg.replay()
    torch.cuda.synchronize()
    assert torch.all(y == 2).item()


@requires_no_device
def test_without_a_gpu_a_graph_raises_no_device_error():
    with pytest.raises(xcuda.NoDeviceError):
        xcuda.graph()


# ---- on the simulated driver: what is captured, replayed and refused ---------------------------------


@requires_sim
def test_launches_inside_the_block_are_captured_then_replayed(sim):
    y = xcuda.zeros(64, np.float32)
    sim.first[1, 32](0, y)
    before = last_launch()
    with xcuda.graph() as g:
        sim.first[2, 32](7, y)
        sim.second[3, 64](8, y)
    assert last_launch() == before, "a captured launch must not run"
    assert g.kernels == [("first", (2, 1, 1), (32, 1, 1)), ("second", (3, 1, 1), (64, 1, 1))]
    g.launch()
    assert last_launch().startswith("cuGraphLaunch second grid=(3,1,1) block=(64,1,1)")
    assert last_launch().endswith("arg0=8")
    assert "2 kernel launches, captured" in repr(g)


@requires_sim
def test_set_args_changes_what_later_replays_pass(sim):
    y = xcuda.zeros(64, np.float32)
    with xcuda.graph() as g:
        sim.second[1, 32](1, y)
    g.set_args(0, 42, y)
    g.launch()
    assert last_launch().endswith("arg0=42")
    with pytest.raises(IndexError, match="captured 1 launches; launch 3 does not exist"):
        g.set_args(3, 1, y)
    with pytest.raises(TypeError, match="tag"):
        g.set_args(0, "not an int", y)


@requires_sim
def test_numpy_arguments_are_refused_inside_a_graph_naming_the_argument(sim):
    host = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match=r"argument `y`.*numpy array.*xcuda.to_device"):
        with xcuda.graph():
            sim.first[1, 32](1, host)
    # the failed block dropped its capture: a launch outside runs again
    sim.first[1, 32](5, xcuda.zeros(64, np.float32))
    assert last_launch().startswith("cuLaunchKernel first")


@requires_sim
def test_misuse_is_explained(sim):
    g = xcuda.graph()
    with pytest.raises(RuntimeError, match="not captured yet"):
        g.launch()
    with g:
        with pytest.raises(RuntimeError, match="do not nest"):
            with xcuda.graph():
                pass
    with pytest.raises(RuntimeError, match="already captured"):
        with g:
            pass
    with pytest.raises(ValueError, match="legacy default stream cannot be captured"):
        xcuda.graph(stream=0)


@requires_sim
def test_a_launch_naming_another_stream_is_not_captured(sim):
    other = xcuda.Stream()
    y = xcuda.zeros(64, np.float32)
    with xcuda.graph() as g:
        sim.first[1, 32, 0, other](9, y)
    assert g.kernels == []
    assert last_launch().startswith("cuLaunchKernel first") and "grid=(1,1,1)" in last_launch()

"""xcuda.graph() on CI, against the simulated driver (XCUDA_CUDA_DRIVER; ctest sets it): what is
captured instead of run, replayed, re-targeted with new arguments, and refused with a reason.
The simulator records launches as text ("cuGraphLaunch <kernel> grid=... arg0=<first int>") and
runs no kernel code; test_graphs.py checks results on a GPU."""
import numpy as np
import pytest

import xcuda
from test_sim_driver import last_launch, simulator_loaded

pytestmark = pytest.mark.skipif(not simulator_loaded(),
                                reason="XCUDA_CUDA_DRIVER does not name the simulated driver (ctest sets it)")

SOURCE = r'''
extern "C" __global__ void first(int tag, float* y) {}
extern "C" __global__ void second(int tag, float* y) {}
'''


@pytest.fixture(scope="module")
def sim():
    return xcuda.compile(SOURCE, arch="compute_90")


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


def test_numpy_arguments_are_refused_inside_a_graph_naming_the_argument(sim):
    host = np.zeros(64, np.float32)
    with pytest.raises(TypeError, match=r"argument `y`.*numpy array.*xcuda.to_device"):
        with xcuda.graph():
            sim.first[1, 32](1, host)
    # the failed block dropped its capture: a launch outside runs again
    sim.first[1, 32](5, xcuda.zeros(64, np.float32))
    assert last_launch().startswith("cuLaunchKernel first")


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


def test_a_launch_naming_another_stream_is_not_captured(sim):
    other = xcuda.Stream()
    y = xcuda.zeros(64, np.float32)
    with xcuda.graph() as g:
        sim.first[1, 32, 0, other](9, y)
    assert g.kernels == []
    assert last_launch().startswith("cuLaunchKernel first") and "grid=(1,1,1)" in last_launch()



def test_cuda_profile_and_timeit_show_a_replay_as_one_entry_naming_its_kernels(sim):
    y = xcuda.zeros(64, np.float32)
    with xcuda.graph() as g:
        for tag in range(3):
            sim.first[1, 32](tag, y)
        sim.second[1, 32](9, y)
    report = xcuda.cuda_profile("g.launch()\n", {"g": g})
    assert "graph of 4 kernels: first x3, second" in report.plain, report.plain
    assert "1 launch, 1.50 ms in all" in report.plain
    assert last_launch().startswith("cuGraphLaunch second")
    r = xcuda.cuda_timeit("g.launch()", {"g": g}, number=5, repeat=2)
    assert r.median == pytest.approx(1.5e-3)  # the simulator's 1.5 ms between the events around each replay

"""A plain launch tests one word for every reason to leave the plain path (the diverter, a graph
capture, the CPU device). These run against the simulated driver, where launches are plain: each
reason, started after plain launches, takes the next launch, and once it ends launches are plain
(made by the driver) again. Each launch has its own grid, by which the driver's record names it."""
import numpy as np
import pytest

import xcuda
from conftest import last_launch, requires_sim

SOURCE = r'''
extern "C" __global__ void tag(int t, float* y) { y[threadIdx.x] = t; }
'''


@pytest.fixture(scope="module")
def k():
    return xcuda.compile(SOURCE, arch="compute_90").tag


def made(blocks):
    """Whether the driver's last launch was the one of `blocks` blocks."""
    return last_launch().startswith(f"cuLaunchKernel tag grid=({blocks},1,1)")


@requires_sim
def test_the_diverter_takes_launches_between_plain_ones(k):
    y = xcuda.zeros(32, np.float32)
    k[1, 32](1, y)
    assert made(1)
    seen = []
    previous = xcuda._core._divert_launches(lambda kernel, args, *rest: seen.append(args[0]))
    try:
        k[2, 32](2, y)
    finally:
        xcuda._core._divert_launches(previous)
    assert seen == [2] and made(1), "a diverted launch is handed over, not made"
    k[3, 32](3, y)
    assert seen == [2] and made(3)


@requires_sim
def test_a_capture_takes_launches_between_plain_ones(k):
    y = xcuda.zeros(32, np.float32)
    k[4, 32](4, y)
    with xcuda.graph() as g:
        k[5, 32](5, y)
    assert made(4) and g.kernels == [("tag", (5, 1, 1), (32, 1, 1))]
    k[6, 32](6, y)
    assert made(6) and len(g.kernels) == 1


@requires_sim
def test_the_cpu_device_takes_launches_while_selected(k):
    y = xcuda.zeros(32, np.float32)
    k[7, 32](7, y)
    gpu = xcuda.get_device()
    xcuda.set_device("cpu")
    try:
        on_cpu = xcuda.compile(SOURCE).tag
        on_cpu[8, 32](8, xcuda.zeros(32, np.float32))
        assert made(7), "the CPU device's launch does not reach the driver"
        # the CPU device's launch notes its parameters' names and extents: its findings name them
        with pytest.raises(xcuda.KernelCheckError, match=r"y\[16\] is 0 bytes past the end of `y`"):
            on_cpu[1, 32](1, xcuda.zeros(16, np.float32))
            xcuda.synchronize()
    finally:
        xcuda.set_device(gpu)
    k[9, 32](9, y)
    assert made(9)

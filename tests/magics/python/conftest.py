"""Shared fixtures: the xcuda module, an IPython shell with the extension, GPU gating."""
import importlib.util

import pytest

import xcuda

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


def no_gpu_reason():
    """'' when a CUDA device is usable, else why not (shown in the skip reason)."""
    return "" if xcuda.driver_available() else xcuda.driver_unavailable_reason()


requires_gpu = pytest.mark.skipif(not xcuda.driver_available(),
                                  reason="no CUDA device: " + no_gpu_reason())


@pytest.fixture(scope="session")
def saxpy():
    return xcuda.compile(SAXPY).kernels["saxpy"]


@pytest.fixture(scope="session")
def ip():
    if importlib.util.find_spec("IPython") is None:
        pytest.skip("IPython is not installed in this Python")
    from IPython.testing.globalipapp import start_ipython
    shell = start_ipython()
    shell.run_line_magic("load_ext", "xcuda")
    return shell

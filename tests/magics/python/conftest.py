"""Shared fixtures: the xcuda module, an IPython shell with the extension, and the driver this
process loaded, which gates the tests that launch.

The driver is chosen per process (XCUDA_CUDA_DRIVER when xcuda loads): ctest's magics.python runs
this folder against the machine's libcuda (none on CI: the launching tests skip, saying why; a
GPU on the GPU machine), magics.python.sim-driver against the runtime's simulated libcuda. A test
that checks the same behaviour on both takes the `driver` fixture and reads what differs
(the simulator's fixed timings, whether kernel code runs) from it; `requires_gpu` and
`requires_sim` mark the tests that only one of them can run."""
import ctypes
import dataclasses
import importlib.util
import os
from typing import Optional

import pytest

import xcuda

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''

SIM = os.environ.get("XCUDA_CUDA_DRIVER", "")


def simulator_loaded():
    """Whether XCUDA_CUDA_DRIVER names the simulated libcuda (tests/cuda-runtime/sim_driver.cpp)."""
    try:
        return hasattr(ctypes.CDLL(SIM), "xcuda_sim_release") if SIM else False
    except OSError:
        return False


def last_launch():
    """The simulator's description of the last launch: "cuLaunchKernel <name> grid=... block=..."."""
    f = ctypes.CDLL(SIM).xcuda_sim_last_launch
    f.restype = ctypes.c_char_p
    return f().decode()


def no_gpu_reason():
    """'' when a CUDA device is usable, else why not (shown in the skip reason)."""
    return "" if xcuda.driver_available() else xcuda.driver_unavailable_reason()


@dataclasses.dataclass(frozen=True)
class Driver:
    """The driver this process launches on, and what a test may expect of it."""
    name: str                  # "gpu" or "sim"
    arch: Optional[str]        # what to compile for: the simulator finds kernels by name in PTX text
    runs_kernels: bool         # the simulator runs no kernel code (but add_bytes): results are a GPU's
    event_s: Optional[float]   # the time between any two events where it is fixed (the simulator's 1.5 ms)
    registers: Optional[int]   # registers of every kernel where fixed (the simulator's 10); else ptxas's count
    devices: Optional[int]     # the device count where fixed (the simulator's one)
    counters: bool             # hardware counters: CUPTI reads NVIDIA's driver only


SIM_DRIVER = Driver(name="sim", arch="compute_90", runs_kernels=False, event_s=1.5e-3, registers=10, devices=1,
                    counters=False)
GPU_DRIVER = Driver(name="gpu", arch=None, runs_kernels=True, event_s=None, registers=None, devices=None,
                    counters=True)
LOADED = SIM_DRIVER if simulator_loaded() else GPU_DRIVER if xcuda.driver_available() else None

NO_DRIVER_REASON = ("no CUDA device (" + no_gpu_reason() + ") and XCUDA_CUDA_DRIVER does not name the simulated "
                    "driver (ctest's magics.python.sim-driver sets it)")
requires_gpu = pytest.mark.skipif(LOADED is not GPU_DRIVER, reason=(
    "needs a GPU: the simulated driver runs no kernel code" if LOADED is SIM_DRIVER
    else "no CUDA device: " + no_gpu_reason()))
requires_sim = pytest.mark.skipif(LOADED is not SIM_DRIVER, reason=(
    "checks what the simulated driver records (ctest's magics.python.sim-driver sets XCUDA_CUDA_DRIVER)"))


@pytest.fixture(scope="session")
def driver():
    if LOADED is None:
        pytest.skip(NO_DRIVER_REASON)
    return LOADED


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

"""Shared fixtures: the xcuda module, an IPython shell with the extension, and the driver this
process loaded, which gates the tests that launch.

The driver is chosen per process (XCUDA_CUDA_DRIVER and XCUDA_DEVICE when xcuda loads): ctest's
magics.python runs this folder on the device that runs by default (a GPU on the GPU machine; on
CI, which has none, the CPU device, where kernels really run and their results are checked),
magics.python.no-device with XCUDA_DEVICE=none (no device at all: what a launch says then), and
magics.python.sim-driver against the runtime's simulated libcuda. A test that checks the same
behaviour on several takes the `driver` fixture and reads what differs (the simulator's fixed
timings, whether kernel code runs, whether counters can be read) from it; `requires_gpu`,
`requires_sim` and `requires_no_device` mark the tests that only one of them can run."""
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
    """Why kernels do not launch on a GPU here (shown in the skip reason)."""
    if xcuda.gpu_available():
        return "XCUDA_DEVICE=cpu chose the CPU device"
    return xcuda.driver_unavailable_reason() or "the NVIDIA driver finds no GPU"


@dataclasses.dataclass(frozen=True)
class Driver:
    """The driver this process launches on, and what a test may expect of it."""
    name: str                  # "gpu", "cpu" (the CPU device) or "sim"
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
CPU_DEVICE = Driver(name="cpu", arch=None, runs_kernels=True, event_s=None, registers=None, devices=None,
                    counters=False)
# The device that launches by default: XCUDA_DEVICE=cpu picks the CPU device on a GPU machine too.
LOADED = (SIM_DRIVER if simulator_loaded() else None if not xcuda.device_available()
          else CPU_DEVICE if xcuda.get_device() == "cpu" else GPU_DRIVER)

NO_DRIVER_REASON = ("no device: no GPU (" + no_gpu_reason() + ") and XCUDA_DEVICE=none keeps the CPU device out "
                    "(ctest's magics.python runs these on the CPU device)")
requires_gpu = pytest.mark.skipif(LOADED is not GPU_DRIVER, reason=(
    "needs a GPU: the simulated driver runs no kernel code" if LOADED is SIM_DRIVER
    else "needs a GPU; this run uses the CPU device (" + no_gpu_reason() + ")" if LOADED is CPU_DEVICE
    else "no CUDA device: " + no_gpu_reason()))
requires_kernels = pytest.mark.skipif(LOADED not in (GPU_DRIVER, CPU_DEVICE), reason=(
    "needs kernel code to run: the simulated driver runs none" if LOADED is SIM_DRIVER
    else "no device: " + no_gpu_reason()))
requires_no_device = pytest.mark.skipif(xcuda.device_available(), reason=(
    "checks what happens with no device at all; kernels launch here (on a GPU or the CPU device): ctest's "
    "magics.python.no-device runs it with XCUDA_DEVICE=none"))
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

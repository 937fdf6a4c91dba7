"""xcuda: CUDA C++ kernels compiled in-process with NVRTC and launched through the CUDA driver
API, on numpy, CuPy, PyTorch or xcuda's own device arrays.

In a notebook: the xcuda Jupyter kernel (`python -m xcuda install`), or `%load_ext xcuda` in
any IPython kernel. The API (Module, Kernel, DeviceArray, Device, Stream, Event, compile, the
CudaError tree) is defined in C++ (xcuda._core) and re-exported here, with its Python half;
__all__ lists it (docs/DESIGN.md, "The Python contract").
"""

from xcuda import _core
from xcuda._core import *  # noqa: F401,F403  (every public name of the C++ module)

__version__ = _core.__version__

# Classes and errors name themselves as users import them (xcuda.Kernel, xcuda.CompileError)
# and as pickle looks them up, not after the extension module that defines them.
for _value in vars(_core).values():
    if isinstance(_value, type) and _value.__module__ == _core.__name__:
        _value.__module__ = __name__
del _value

# Where NVRTC and its headers are (NVIDIA's wheels, conda, a toolkit), told to the C++ loader
# before anything compiles; nothing is loaded until something does.
from xcuda import _toolkit  # noqa: E402

_toolkit.tell_the_loader()

# The Python half of the API, over the names above: Kernel.check (%%cuda_check's checks for one
# launch), Kernel.autotune and Kernel.debug are methods of the C++ class, written in Python.
from xcuda import _autotune, _cuda_check, _kernel_debug  # noqa: E402
from xcuda._autotune import Tuned  # noqa: E402
from xcuda._cuda_check import CheckReport  # noqa: E402
from xcuda._kernel_debug import debug_thread  # noqa: E402
from xcuda._cuda_timeline import timeline  # noqa: E402
from xcuda._timeline_view import Timeline  # noqa: E402

Kernel.check = _cuda_check.kernel_check  # noqa: F405
Kernel.autotune = _autotune.autotune  # noqa: F405
Kernel.debug = _kernel_debug.kernel_debug  # noqa: F405
Tuned.__module__ = Timeline.__module__ = __name__


# Exercises (xcuda.exercise, xcuda.grade, ...) import numpy: loaded on first use, so that starting
# the kernel does not pay for it.
_EXERCISE_NAMES = ("Exercise", "GradeResult", "LaunchRules", "exercise", "exercises", "grade", "load_exercises",
                   "publish_exercises")

# The public surface: what `from xcuda import *` binds and docs/DESIGN.md's Python contract lists.
# load_ipython_extension and unload_ipython_extension are IPython's hooks (%load_ext xcuda), not
# names for a notebook; the exercise names load on first use (numpy with them).
__all__ = [
    # compiling and the compiled cell
    "compile", "Module", "ModuleGlobals", "Kernel", "KernelTemplate", "KernelAttributes", "Launcher",
    # devices, memory, streams, graphs
    "Device", "device_count", "get_device", "set_device", "synchronize", "sync_after_cell", "device_available",
    "gpu_available", "driver_available", "driver_unavailable_reason", "gpu_work_left_running", "DeviceArray",
    "to_device", "empty", "zeros", "from_dlpack", "Stream", "Event", "Graph", "graph",
    # measuring and checking
    "BenchmarkResult", "Report", "cuda_timeit", "cuda_profile", "counters", "profiler_chips", "profiler_metrics",
    "timeline", "Timeline", "Tuned", "cpu_checks", "CheckReport", "debug_thread",
    # the error tree
    "CudaError", "CompileError", "DriverError", "LaunchError", "KernelCheckError", "OutOfMemoryError",
    "ContextLostError", "NoDeviceError", "KernelStillRunningError", "ProfilerUnavailableError",
    # exercises and their grading
    *_EXERCISE_NAMES,
]


def __getattr__(name):
    if name not in _EXERCISE_NAMES:
        raise AttributeError(f"module 'xcuda' has no attribute {name!r}")
    from xcuda import _exercise
    for public in _EXERCISE_NAMES:
        value = getattr(_exercise, public)
        if isinstance(value, type):
            value.__module__ = __name__
        globals()[public] = value
    return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(_EXERCISE_NAMES))

"""xcuda: CUDA C++ kernels compiled in-process with NVRTC and launched through the CUDA driver
API, on numpy, CuPy, PyTorch or xcuda's own device arrays.

In a notebook: the xcuda Jupyter kernel (`python -m xcuda install`), or `%load_ext xcuda` in
any IPython kernel. The API (Module, Kernel, DeviceArray, Device, Stream, Event, compile, the
CudaError tree) is defined in C++ (xcuda._core) and re-exported here.
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

from xcuda._cuda_check import CheckReport  # noqa: E402  (Python, over the names above)
from xcuda._cuda_check import kernel_check as _kernel_check  # noqa: E402

Kernel.check = _kernel_check  # noqa: F405

from xcuda._timeline import timeline  # noqa: E402,F401
from xcuda._timeline_view import Timeline  # noqa: E402,F401

Timeline.__module__ = __name__

from xcuda._autotune import Tuned, autotune as _kernel_autotune  # noqa: E402

Kernel.autotune = _kernel_autotune  # noqa: F405
Tuned.__module__ = __name__

from xcuda._kernel_debug import debug_thread  # noqa: E402,F401
from xcuda._kernel_debug import kernel_debug as _debug_one_thread  # noqa: E402

Kernel.debug = _debug_one_thread  # noqa: F405


# Exercises (xcuda.exercise, xcuda.grade, ...) import numpy: loaded on first use, so that starting
# the kernel does not pay for it.
_EXERCISE_NAMES = ("Exercise", "GradeResult", "LaunchRules", "exercise", "exercises", "grade", "load_exercises",
                   "publish_exercises")


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

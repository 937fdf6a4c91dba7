"""One launch of a kernel (the student's, or a reference kernel) on one test's arguments, on the
selected device: what it left in the outputs, and what the CPU device's checks found."""
import contextlib
import dataclasses

import numpy as np

from xcuda import _core


@dataclasses.dataclass
class Run:
    outputs: dict  # parameter name -> the array as the launch left it
    finding: object = None  # the xcuda.KernelCheckError that stopped it
    counts: list = None  # xcuda._core._cpu_launch_counts' launches, when counted
    traces: list = None  # xcuda._core._cpu_launch_traces' launches, when traced


def argument_values(parameters, args):
    """The kernel's arguments in order, arrays copied (a launch writes the outputs in place)."""
    return [np.array(args[p.name], copy=True) if p.pointer else args[p.name] for p in parameters]


def launch(kernel, parameters, args, config, count=False, trace=False):
    """Launches `kernel` once on copies of `args` with config (grid, block, shared bytes)."""
    values = argument_values(parameters, args)
    grid, block, shared = config

    def work():
        kernel[grid, block, shared](*values)
        _core.synchronize()

    run = Run(outputs={})
    try:
        if count:
            run.counts = _core._cpu_launch_counts(work)
        elif trace:
            run.traces = _core._cpu_launch_traces(work)
        else:
            work()
    except _core.KernelCheckError as e:
        run.finding = e
    run.outputs = {p.name: v for p, v in zip(parameters, values) if p.output}
    return run


@contextlib.contextmanager
def on_cpu_device():
    """The CPU device with every check on, whatever was selected; both come back after. With no
    device at all (XCUDA_DEVICE=none and no GPU) it raises NoDeviceError, as a launch would."""
    device = _core.get_device()
    if not _core.device_available():
        _core.set_device(device)  # raises the NoDeviceError that says why and how to get a device
    _core.set_device("cpu")
    checks = _core.cpu_checks()
    _core.cpu_checks(True)
    try:
        yield
    finally:
        _core.cpu_checks(checks)
        _core.set_device(device)


def gpu_selected():
    """A GPU is selected (the grader then runs every test on it as well as on the CPU device)."""
    return _core.get_device() != "cpu" and _core.gpu_available()

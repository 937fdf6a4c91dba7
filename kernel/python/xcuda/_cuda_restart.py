"""%cuda_restart: the xcuda kernel's process replaced by a fresh one, the notebook's variables
kept (_restart saves and loads them; the kernel's C++ half replaces the process). The kernel
registers it over the extension's stand-in (xcuda/_kernel_only_magics.py), which any other
IPython keeps."""
import os

from IPython import get_ipython
from IPython.core.error import UsageError

from xcuda import _kernel
from xcuda._magic_line import help_or_no_arguments

HELP = """%cuda_restart: a fresh kernel process, with your variables.

A GPU fault (ContextLostError) leaves the GPU unusable for this process, and a kernel an interrupt
left running (KernelStillRunningError) holds it until the process ends. %cuda_restart saves the
namespace (numpy arrays and other picklable objects, functions and classes of your cells, xcuda
modules, kernels and device arrays, by value where the device still answers), replaces the kernel
process by a new one (the frontend stays connected: same connection, history and execution
count go on), and loads the namespace there before the next cell runs. What cannot be saved
(open files, generators, sockets) is listed by name. Only in the xcuda kernel."""


def register(shell):
    """Registers %cuda_restart in the kernel's shell (after the extension, whose stand-in it
    replaces)."""
    shell.register_magic_function(cuda_restart, magic_kind="line", magic_name="cuda_restart")


def cuda_restart(line):
    """%cuda_restart: a fresh kernel process, with your variables (%cuda_restart -h says more)."""
    if help_or_no_arguments("%cuda_restart", line, HELP):
        return
    if not _kernel.serving():
        raise UsageError("%cuda_restart replaces the xcuda kernel's process, so it runs only while that kernel serves")
    from xcuda import _restart  # what only a restart needs (~2 ms), not every kernel's start

    directory, report = _restart.save(get_ipython())
    print(_restart.describe_save(report), flush=True)
    os.environ[_restart.STATE_ENV] = directory
    _kernel.replace_after_this_cell()

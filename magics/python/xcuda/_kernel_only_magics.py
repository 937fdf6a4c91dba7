"""The magics only the xcuda kernel runs (%cuda_restart, which replaces the kernel's own process),
as the extension registers them in any other IPython (ipykernel, a terminal): each says that it
runs only in the xcuda kernel and what to do here instead. The xcuda kernel registers its own
over them (kernel/python/xcuda/_cuda_restart.py)."""
from xcuda._magic_line import help_or_no_arguments, usage_error

CUDA_RESTART_HELP = """%cuda_restart: a fresh kernel process, with your variables, in the xcuda kernel.

A GPU fault (ContextLostError) leaves the GPU unusable for the process that saw it, and a kernel an
interrupt left running (KernelStillRunningError) holds it until the process ends. In the xcuda
kernel (python -m xcuda install), %cuda_restart saves the notebook's variables, replaces the kernel
process by a new one and loads them there. This IPython is not the xcuda kernel: restart from the
frontend (Kernel > Restart Kernel; the variables are lost)."""


def cuda_restart_elsewhere(line):
    """%cuda_restart: only in the xcuda kernel (%cuda_restart -h says more)."""
    if help_or_no_arguments("%cuda_restart", line, CUDA_RESTART_HELP):
        return
    raise usage_error("%cuda_restart replaces the xcuda kernel's process, so it runs only in that kernel; "
                      "in this one, restart from the frontend (Kernel > Restart Kernel; the variables are lost)")


def register(shell):
    """Registers the stand-ins, each where the shell has no magic of that name: a %reload_ext
    xcuda in the xcuda kernel keeps the kernel's own."""
    if "cuda_restart" not in shell.magics_manager.magics["line"]:
        shell.register_magic_function(cuda_restart_elsewhere, magic_kind="line", magic_name="cuda_restart")

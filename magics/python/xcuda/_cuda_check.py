"""%%cuda_check and Kernel.check: the launches of a piece of Python run on the CPU device with
every check on, and what they found reported in the cell's terms.

The CPU device checks each access of an emulated kernel (out of bounds, misaligned, freed),
shared-memory races, barriers not all threads reach and warp collectives with absent lanes (see
cuda-runtime/cpu-device/DESIGN.md). On a GPU machine the body runs there too, then the GPU is
selected again: a GPU cannot make those checks cheaply, and a wrong kernel there costs the
context. The first finding stops the launch that made it, and with it the body; the arrays it
was given stay as that launch left them.
"""
import html
import shlex

import xcuda

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# What each compute-sanitizer tool looks for, as the CPU device checks it (all run at once).
COVERS = {
    "memcheck": "out-of-bounds, misaligned and freed accesses",
    "racecheck": "shared-memory races",
    "synccheck": "barriers and warp collectives not all threads reach",
}
HELP = """%%cuda_check [--tool memcheck|racecheck|synccheck]

Runs the cell (Python that launches kernels) with its launches on the CPU device and every
check on, then reports what they found at the cell's lines: the kind, the kernel's line, the
parameter and element an address falls in, the thread and block; for a race, both lines and both
threads. On a GPU machine too (the GPU is selected again after the cell). The first finding stops
its launch and the cell. All checks run whatever --tool says (--tool names what you look for);
initcheck (reads of uninitialised memory) has no counterpart on the CPU device.
kernel.check(*args, grid=, block=) does the same for one launch and returns the report."""


class CheckReport:
    """What a %%cuda_check cell or Kernel.check found: .findings (the KernelCheckErrors, at most
    one: the first stops the launch), .launches (how many were checked), .ok."""

    def __init__(self, findings, launches, tool):
        self.findings = findings
        self.launches = launches
        self.tool = tool

    @property
    def ok(self):
        return not self.findings

    def __str__(self):
        if self.findings:
            e = self.findings[0]
            return (f"{self.tool} on the CPU device: 1 finding in launch {self.launches} of the cell "
                    f"(the launch and the cell stopped there)\n{type(e).__name__}: {e}")
        if self.launches == 0:
            return f"{self.tool} on the CPU device: the cell launched no kernel, so nothing was checked"
        covered = COVERS.get(self.tool, "every check")
        return (f"{self.tool} on the CPU device: no findings in {self.launches} launch"
                f"{'es' if self.launches != 1 else ''} ({covered}; all checks ran)")

    def __repr__(self):
        return f"<xcuda.CheckReport {'ok' if self.ok else self.findings[0].kind}: {self.launches} launches>"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_html_(self):
        colour = "#1a7f37" if self.ok else "#cf222e"
        return f'<pre style="border-left:3px solid {colour};padding-left:8px">{html.escape(str(self))}</pre>'


def _usage_error(message):
    from IPython.core.error import UsageError  # IPython only where the magic runs
    return UsageError(message)


def _parse(line):
    try:
        words = shlex.split(line)
    except ValueError as e:
        raise _usage_error(f"%%cuda_check {line}: {e}") from None
    tool = "memcheck"
    while words:
        word = words.pop(0)
        if word in ("-h", "--help"):
            return None
        if word == "--tool" and words:
            tool = words.pop(0)
        elif word.startswith("--tool="):
            tool = word.split("=", 1)[1]
        else:
            raise _usage_error(f"%%cuda_check: unknown option {word!r}; %%cuda_check -h lists them")
    if tool not in TOOLS:
        raise _usage_error(f"%%cuda_check --tool {tool}: not a compute-sanitizer tool; use one of {', '.join(TOOLS)}")
    if tool == "initcheck":
        raise _usage_error("%%cuda_check --tool initcheck: the CPU device does not track which memory was written, so "
                         "reads of uninitialised memory cannot be found there; memcheck, racecheck and synccheck can")
    return tool


def checked(work, tool):
    """Runs work() with launches on the CPU device, every check on; the selected device and the
    checks' setting come back after. Returns its CheckReport (a finding stops work)."""
    device = xcuda.get_device()
    checks = xcuda.cpu_checks()
    before = xcuda._core._launch_count()
    findings = []
    xcuda.set_device("cpu")
    xcuda.cpu_checks(True)
    try:
        work()
        xcuda.synchronize()
    except xcuda.KernelCheckError as e:
        findings.append(e)
    finally:
        xcuda.cpu_checks(checks)
        xcuda.set_device(device)
    return CheckReport(findings, xcuda._core._launch_count() - before, tool)


def cuda_check_line(line):
    """%%cuda_check checks the launches of the cell below it (%%cuda_check -h says more)."""
    if line.strip() in ("-h", "--help"):
        print(HELP)
        return
    raise _usage_error("%%cuda_check checks the cell below it: start the cell with `%%cuda_check` on its own line "
                       "(%cuda_check -h says what it reports)")


def cuda_check(line, cell):
    """%%cuda_check [--tool memcheck|racecheck|synccheck]: the cell's launches checked on the CPU
    device (%%cuda_check -h says more)."""
    tool = _parse(line)
    if tool is None:
        print(HELP)
        return None
    from IPython import get_ipython

    ip = get_ipython()
    code = compile(cell, "<cuda_check>", "exec")
    return checked(lambda: exec(code, ip.user_ns), tool)


def kernel_check(kernel, *args, grid, block, tool="memcheck", **options):
    """check(*args, grid, block, tool='memcheck', shared_mem=0, ...) -> CheckReport

    Launches the kernel once as kernel(*args, grid=, block=) does, on the CPU device with every
    check on (the selected device comes back after), and returns what the checks found."""
    if tool not in TOOLS or tool == "initcheck":
        raise ValueError(f"tool={tool!r}: use 'memcheck', 'racecheck' or 'synccheck' (initcheck has no "
                         "counterpart on the CPU device)")
    return checked(lambda: kernel(*args, grid=grid, block=block, **options), tool)

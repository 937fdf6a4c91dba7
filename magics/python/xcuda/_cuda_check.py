"""%%cuda_check and Kernel.check: the launches of a piece of Python checked, and what the checks
found reported in the cell's terms.

On a GPU with compute-sanitizer (the CUDA Toolkit's), each launch runs again in a child process
under it (_sanitizer.py), so a wrong kernel never costs the notebook's context; with no findings
the results come back into the cell's arrays. Elsewhere (no GPU, or no compute-sanitizer, which
one line says how to get) the launches run on the CPU device with every check on: out of bounds,
misaligned and freed accesses, shared- and global-memory races, barriers not all threads reach and
warp collectives with absent lanes (see cuda-runtime/cpu-device/DESIGN.md). The first finding stops
the launch that made it, and with it the body; the arrays it was given stay as that launch left
them.
"""
import html

from xcuda import _core
from xcuda import _sanitizer
from xcuda._magic_line import cell_magic_on_a_line, parse_option_line, usage_error

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")
# What each compute-sanitizer tool looks for, as the CPU device checks it (all run at once).
COVERS = {
    "memcheck": "out-of-bounds, misaligned and freed accesses, null pointers, device malloc/free errors",
    "racecheck": "shared- and global-memory races (a GPU's racecheck sees shared memory only)",
    "synccheck": "barriers and warp collectives not all threads reach",
    "initcheck": "reads of memory nothing wrote: xcuda.empty() arrays, shared memory",
}
HELP = """%%cuda_check [--tool memcheck|racecheck|synccheck|initcheck]

Runs the cell (Python that launches kernels) with each launch checked, then reports what the
checks found at the cell's lines: the kind, the kernel's line, the parameter and element an
address falls in, the thread and block, how often it repeated; for a race, both lines.
On a GPU, each launch runs again in a separate process under compute-sanitizer --tool TOOL (the
notebook's GPU context is never touched by it); with no findings its results are copied back
into the cell's arrays, so the rest of the cell sees them. initcheck finds reads of an
xcuda.empty() array nothing wrote. Without a GPU or compute-sanitizer, the launches run on the
CPU device with all its checks at once (--tool names what you look for; its initcheck also finds
shared memory read before any thread of the block wrote it). A finding stops the cell.
kernel.check(*args, grid=, block=, tool=) does the same for one launch and returns the report."""


class CheckReport:
    """What a %%cuda_check cell or Kernel.check found: .findings (KernelCheckErrors on the CPU
    device, where the first stops the launch; SanitizerFindings on a GPU, repeats counted),
    .launches (how many were checked), .ok, .where (what checked them)."""

    CPU_DEVICE = "the CPU device"

    def __init__(self, findings, launches, tool, where=CPU_DEVICE):
        self.findings = findings
        self.launches = launches
        self.tool = tool
        self.where = where

    @property
    def ok(self):
        return not self.findings

    def __str__(self):
        head = f"{self.tool} on {self.where}"
        if self.findings:
            if self.where == self.CPU_DEVICE:  # KernelCheckErrors: the first stopped the launch
                e = self.findings[0]
                return (f"{head}: 1 finding in launch {self.launches} of the cell "
                        f"(the launch and the cell stopped there)\n{type(e).__name__}: {e}")
            n = len(self.findings)
            lines = [f"{head}: {n} finding{'s' if n != 1 else ''} in launch {self.launches} of the cell (the cell "
                     "stopped there; the arrays are as they were before that launch)"]
            return "\n".join(lines + [str(f) for f in self.findings])
        if self.launches == 0:
            return f"{head}: the cell launched no kernel, so nothing was checked"
        plural = "es" if self.launches != 1 else ""
        if self.where != self.CPU_DEVICE:
            return (f"{head}: no findings in {self.launches} launch{plural} (each ran in a checking process; its "
                    "results were copied back)")
        covered = COVERS.get(self.tool, "every check")
        return f"{head}: no findings in {self.launches} launch{plural} ({covered}; all checks ran)"

    def __repr__(self):
        return f"<xcuda.CheckReport {'ok' if self.ok else self.findings[0].kind}: {self.launches} launches>"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    def _repr_html_(self):
        colour = "#1a7f37" if self.ok else "#cf222e"
        return f'<pre style="border-left:3px solid {colour};padding-left:8px">{html.escape(str(self))}</pre>'


def _parse(line):
    options = parse_option_line("cuda_check", line, {"tool": "memcheck"})
    if options is None:
        return None
    tool = options["tool"]
    if tool not in TOOLS:
        raise usage_error(f"%%cuda_check --tool {tool}: not a compute-sanitizer tool; use one of {', '.join(TOOLS)}")
    return tool


def checked(work, tool):
    """Runs work() with its launches checked (see the module's docstring); the selected device
    and the CPU device's checks setting come back after. Returns its CheckReport."""
    device = _core.get_device()
    if device != "cpu" and not _core.gpu_available() and not _core.device_available():
        _core.set_device(device)  # XCUDA_DEVICE=none: nothing to check on; raises its NoDeviceError before anything runs
    if device != "cpu":
        tool_path = _sanitizer.find_tool()
        if tool_path:
            return _checked_under_sanitizer(work, tool, tool_path, device)
        print(f"xcuda: {_sanitizer.HOW_TO_GET}. Checking on the CPU device instead.")
    return _checked_on_cpu_device(work, tool, device)


def _checked_on_cpu_device(work, tool, device):
    checks = _core.cpu_checks()
    before = _core._launch_count()
    findings = []
    _core.set_device("cpu")
    _core.cpu_checks(True)
    try:
        work()
        _core.synchronize()
    except _core.KernelCheckError as e:
        findings.append(e)
    finally:
        _core.cpu_checks(checks)
        _core.set_device(device)
    return CheckReport(findings, _core._launch_count() - before, tool)


def _checked_under_sanitizer(work, tool, tool_path, device):
    launches = 0

    def divert(kernel, args, grid, block, shared_mem, stream, options):
        nonlocal launches
        launches += 1
        _sanitizer.launch_in_child(tool_path, tool, kernel, args, grid, block, shared_mem, stream, options)

    findings = []
    previous = _core._divert_launches(divert)
    try:
        work()
    except _sanitizer.SanitizerFindings as e:
        findings = e.findings
    finally:
        _core._divert_launches(previous)
    where = f"GPU {device} ({_core.Device(device).name}) under compute-sanitizer"
    return CheckReport(findings, launches, tool, where)


def cuda_check_line(line):
    """%%cuda_check checks the launches of the cell below it (%%cuda_check -h says more)."""
    cell_magic_on_a_line(line, HELP, "%%cuda_check checks the cell below it: start the cell with `%%cuda_check` on "
                         "its own line (%cuda_check -h says what it reports)")


def cuda_check(line, cell):
    """%%cuda_check [--tool memcheck|racecheck|synccheck|initcheck]: the cell's launches checked,
    under compute-sanitizer on a GPU, else on the CPU device (%%cuda_check -h says more)."""
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

    Launches the kernel once as kernel(*args, grid=, block=) does, checked as %%cuda_check checks
    (under compute-sanitizer on a GPU, else on the CPU device), and returns what was found."""
    if tool not in TOOLS:
        raise ValueError(f"tool={tool!r}: use one of {', '.join(repr(t) for t in TOOLS)} (initcheck needs a GPU "
                         "and compute-sanitizer)")
    return checked(lambda: kernel(*args, grid=grid, block=block, **options), tool)

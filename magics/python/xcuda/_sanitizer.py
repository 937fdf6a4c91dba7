"""%%cuda_check on a GPU: each launch the checked cell makes runs again in a child process under
compute-sanitizer, never in the notebook's own context (a wrong kernel there costs the context:
ContextLostError until %cuda_restart).

The launch is diverted (xcuda._core._divert_launches) to launch_in_child(), which
1. copies the launch's arguments to the host: numpy arrays as they are, xcuda DeviceArrays and
   DLPack device arrays (CuPy, PyTorch) by value; an xcuda array from empty() that nothing has
   written goes as "uninitialised", so initcheck finds reads of it; and the values the notebook
   left in the module's __constant__/__device__ variables, a pointer among them translated to
   the child's copy of what it points into (an argument, another variable of the module, or an
   array the notebook's namespace holds, copied too);
2. pickles the kernel, compiled again with -lineinfo (so the findings name the cell's lines),
   and runs `compute-sanitizer --tool TOOL python -m xcuda._sanitizer_child`, which launches it
   on device copies, each array its own allocation of its exact size;
3. reads the tool's log into findings (_sanitizer_report.py), naming the parameter and element
   each address falls in;
4. with no findings, copies what the launch left back into the notebook's arrays (and its
   variables without pointers), so the rest of the cell sees the results; with findings, they
   stay as they were and the cell stops.
"""
import os
import re
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile

from xcuda import _core
from xcuda import _sanitizer_report, _toolkit

TOOL_ENV = "XCUDA_COMPUTE_SANITIZER"
HOW_TO_GET = ("compute-sanitizer was not found: pip install nvidia-cuda-sanitizer-api into the kernel's environment "
              "(nvidia-cuda-sanitizer-api-cu12 for CUDA 12; in a notebook: %pip install ...), or install the CUDA "
              f"Toolkit, whose bin/ folder has it; {TOOL_ENV}=/path/to/compute-sanitizer names one installed elsewhere")
# One child's budget: Python, xcuda and the tool start in seconds; a kernel that never ends is
# stopped by an interrupt (Ctrl-C / the stop button), which ends the child.
EXIT_FINDINGS = 86  # --error-exitcode: the tool found something


class UnsupportedArgument(TypeError):
    pass


def where_tool():
    """(compute-sanitizer's path, where it came from), or None: $XCUDA_COMPUTE_SANITIZER, PATH, then
    the places NVRTC is looked for (xcuda._toolkit: $CUDA_HOME, NVIDIA's wheels, conda, the
    toolkits under /usr/local)."""
    named = os.environ.get(TOOL_ENV)
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise FileNotFoundError(f"{TOOL_ENV}={named}: no executable there; point it at compute-sanitizer "
                                    "(in the CUDA Toolkit's bin/) or unset it")
        return named, TOOL_ENV
    found = shutil.which("compute-sanitizer")
    if found:
        return found, "PATH"
    return _toolkit.find_compute_sanitizer()


def find_tool():
    """compute-sanitizer's path, or None (where_tool says where it came from)."""
    where = where_tool()
    return where[0] if where else None


def _python():
    """A Python that runs the child: this one, unless this process is not a python binary (an
    embedding kernel), then its prefix's python3."""
    exe = sys.executable or ""
    if os.path.basename(exe).startswith("python"):
        return exe
    for name in (f"python{sys.version_info[0]}.{sys.version_info[1]}", "python3"):
        candidate = os.path.join(sys.prefix, "bin", name)
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("python3") or exe


def _host_copy(value, any_device=False):
    """('array', host ndarray or None, shape, dtype, write_back) for an array argument, else
    ('value', value). write_back(ndarray) puts a result into the notebook's array. An argument on
    the CPU device is refused unless `any_device` (an array a pointer was found to point into)."""
    import numpy as np

    if isinstance(value, np.ndarray):
        def write_back(result, target=value):
            if target.flags.writeable:
                np.copyto(target, result.reshape(target.shape))
        return ("array", np.ascontiguousarray(value), value.shape, value.dtype.str), write_back
    if isinstance(value, _core.DeviceArray):
        if value.device == "cpu" and not any_device:
            raise UnsupportedArgument("a DeviceArray on the CPU device; %%cuda_check on a GPU checks arrays of the GPU")
        host = value.get() if value._contents_defined else None
        return ("array", host, value.shape, np.dtype(value.dtype).str), value.set
    if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
        view = _core.from_dlpack(value)
        return ("array", view.get(), view.shape, np.dtype(view.dtype).str), view.set
    if hasattr(value, "__cuda_array_interface__"):
        raise UnsupportedArgument(f"a {type(value).__name__} (it has __cuda_array_interface__ but no DLPack): "
                                  "pass it as an xcuda.DeviceArray, a CuPy array or a PyTorch tensor")
    return ("value", value), None


def _device_range(value):
    """(ptr, nbytes) of the device memory an argument array is, in the notebook's context, or None."""
    if isinstance(value, _core.DeviceArray):
        return value.ptr, value.nbytes
    interface = getattr(value, "__cuda_array_interface__", None)
    if isinstance(interface, dict) and interface.get("data"):
        import numpy as np

        shape, itemsize = interface.get("shape", ()), np.dtype(interface["typestr"]).itemsize
        strides = interface.get("strides")
        extent = itemsize
        for n, stride in zip(shape, strides or ()):
            extent += (n - 1) * abs(stride)
        if not strides:
            extent = itemsize * int(np.prod(shape, dtype=np.int64))
        return interface["data"][0], extent
    return None


def _namespace_arrays():
    """Device arrays the notebook's namespace holds (xcuda, CuPy, PyTorch): what a __device__
    pointer the notebook set from Python most likely points into."""
    try:
        from IPython import get_ipython
    except ImportError:
        get_ipython = lambda: None  # noqa: E731
    ip = get_ipython()
    # A script's own globals where there is no notebook (bench/checks_corpus.py, python -c).
    namespace = ip.user_ns if ip is not None else vars(sys.modules["__main__"])
    found = []
    for value in list(namespace.values()):
        try:
            placed = _device_range(value)
        except (AttributeError, KeyError, TypeError, ValueError, RuntimeError):
            continue  # an array interface that cannot be read (a tensor on the host): not device memory
        if placed:
            found.append((value, *placed))
    return found


def _pointer_words(raw):
    """(offset, value) of each 8-byte-aligned word of a variable's bytes."""
    import numpy as np

    words = np.frombuffer(raw[: len(raw) // 8 * 8], dtype="<u8")
    return [(8 * i, int(w)) for i, w in enumerate(words)]


# (variable, address) of the last launch's __device__ pointers into memory the child could not be
# given: what a failure in the child most likely comes from.
_unresolved_pointers = []


def _module_variables(kernel, arguments):
    """What the notebook left in the kernel's module's variables, for the child (see the module's
    docstring). `arguments`: [(index, ptr, nbytes)] of the launch's device-array arguments.
    Returns (variables, extras, null pointer names): variables [(name, bytes, [(offset, kind, ref,
    delta)])] with kind "argument" (ref: its index), "variable" (ref: its name) or "extra" (ref:
    an index into extras: (argument spec as _host_copy makes it, write_back) pairs)."""
    variables, extras, nulls = [], [], []
    _unresolved_pointers.clear()
    try:
        views = dict(kernel._globals.items())
    except _core.CudaError:
        return variables, extras, nulls
    if not views:
        return variables, extras, nulls
    declarations = kernel._globals.declarations()
    ranges = [("argument", index, ptr, nbytes) for index, ptr, nbytes in arguments]
    ranges += [("variable", name, view.ptr, view.nbytes) for name, view in views.items()]
    namespace = None
    import numpy as np

    for name, view in views.items():
        raw = np.ascontiguousarray(view.get()).tobytes()
        declaration = declarations.get(name, "")
        pointers = []
        if "*" in declaration or (view.dtype == np.uint8 and view.nbytes >= 8):  # pointers, or a struct
            words = _pointer_words(raw)
            if "*" in declaration and len(words) == 1 and words[0][1] == 0:
                nulls.append(name)
            for offset, value in words:
                if value == 0:
                    continue
                target = next(((kind, ref, value - ptr) for kind, ref, ptr, nbytes in ranges
                               if ptr <= value <= ptr + nbytes), None)
                if target is None:
                    if namespace is None:
                        namespace = _namespace_arrays()
                    for obj, ptr, nbytes in namespace:
                        if ptr <= value <= ptr + nbytes:
                            try:
                                extras.append(_host_copy(obj, any_device=True))
                            except UnsupportedArgument:
                                break  # not an array the child can have: the pointer stays as it is
                            ranges.append(("extra", len(extras) - 1, ptr, nbytes))
                            target = ("extra", len(extras) - 1, value - ptr)
                            break
                if target is not None:
                    pointers.append((offset, *target))
                else:
                    _unresolved_pointers.append((name, value))
        variables.append((name, raw, pointers))
    return variables, extras, nulls


def _run_child(tool_path, tool, payload, work):
    """Runs the child under the tool; returns (log text, child's stdout, child's stderr, rc)."""
    payload_path = os.path.join(work, "payload.pickle")
    with open(payload_path, "wb") as f:
        pickle.dump(payload, f, protocol=pickle.HIGHEST_PROTOCOL)
    log_path = os.path.join(work, "sanitizer.log")
    command = [tool_path, "--tool", tool, "--log-file", log_path, "--error-exitcode", str(EXIT_FINDINGS),
               "--print-limit", "1000", _python(), "-m", "xcuda._sanitizer_child", payload_path, work]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p and os.path.isdir(p)))
    env.pop("XCUDA_DEVICE", None)  # the child launches on the GPU the payload names
    # its own process group: an interrupt ends the tool and the child under it, whatever they wait for
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
    try:
        out, err = child.communicate()
    except BaseException:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        raise
    try:
        with open(log_path) as f:
            log = f.read()
    except OSError:
        log = ""
    return log, out, err, child.returncode


def _allocations(work, kernel):
    try:
        with open(os.path.join(work, "allocations.pickle"), "rb") as f:
            placed = pickle.load(f)
    except OSError:
        return []
    params = list(kernel.parameters)
    out = []
    for index, ptr, nbytes, itemsize in placed:
        name, ctype = params[index] if index < len(params) else (f"argument {index}", "")
        out.append(_sanitizer_report.Allocation(name, ptr, nbytes, itemsize, ctype.replace("*", "").strip()))
    return out


class SanitizerFindings(Exception):
    """Raised by a diverted launch that the tool found faults in: stops the checked cell."""

    def __init__(self, findings, launch_error):
        super().__init__(f"{len(findings)} findings")
        self.findings = findings
        self.launch_error = launch_error


def _kernel_may_read(kernel, variable):
    """Whether the launched kernel's PTX names the module variable `variable` (so a null access
    may have gone through it): a null `__device__` pointer that only another kernel of the cell
    reads is not offered as the pointer at fault. True where the PTX cannot tell (a call the
    compiler did not inline may read it)."""
    ptx = kernel._ptx
    start = ptx.find(f".entry {kernel.lowered_name}(")
    if start < 0:
        return True
    end = ptx.find("\n}", start)
    body = ptx[start:end if end > 0 else len(ptx)]
    return "call" in body or re.search(rf"(?<![\w$.]){re.escape(variable)}(?![\w$])", body) is not None


def launch_in_child(tool_path, tool, kernel, args, grid, block, shared_mem, stream, options):
    """One diverted launch (see the module's docstring). Raises SanitizerFindings when the tool
    found something, RuntimeError when the child failed for another reason (its stderr)."""
    _core.synchronize()  # the arguments' contents are what earlier work left in them
    specs, write_backs, on_device, null_arguments = [], [], [], []
    parameters = list(kernel.parameters)
    for index, value in enumerate(args):
        name, ctype = parameters[index] if index < len(parameters) else (str(index), "")
        try:
            spec, write_back = _host_copy(value)
        except UnsupportedArgument as e:
            raise TypeError(f"%%cuda_check: argument `{name}` of {kernel.name} is {e}") from None
        specs.append(spec)
        write_backs.append(write_back)
        placed = _device_range(value) if spec[0] == "array" else None
        if placed:
            on_device.append((index, *placed))
        if spec[0] == "value" and "*" in ctype and (value is None or (isinstance(value, int) and value == 0)):
            null_arguments.append(name)
    variables, extras, null_variables = _module_variables(kernel, on_device)
    null_variables = [name for name in null_variables if _kernel_may_read(kernel, name)]
    payload = {"kernel": kernel._with_line_info(), "device": _core.get_device(), "grid": grid, "block": block,
               "shared_mem": shared_mem, "options": options, "args": specs, "variables": variables,
               "extras": [spec for spec, _ in extras]}
    with tempfile.TemporaryDirectory(prefix="xcuda-check-") as work:
        log, out, err, rc = _run_child(tool_path, tool, payload, work)
        if out:
            sys.stdout.write(out)  # the kernel's printf
        found = _sanitizer_report.findings(log, _allocations(work, kernel), kernel.source, output=f"{out}\n{err}",
                                           null_pointers=null_arguments + null_variables)
        for f in found:
            if f.kernel in (kernel.lowered_name, kernel._template_params[0]):
                f.kernel = kernel.name
        try:
            with open(os.path.join(work, "results.pickle"), "rb") as f:
                outcome = pickle.load(f)
        except OSError:
            outcome = None
    if found:
        raise SanitizerFindings(found, outcome and outcome["error"])
    if outcome is None or rc not in (0, EXIT_FINDINGS):
        tail = "\n".join((err or log).strip().splitlines()[-15:])
        raise RuntimeError(f"%%cuda_check: the checking process for {kernel.name} ended with exit code {rc} "
                           f"and no report:\n{tail}")
    if outcome["error"]:
        unreachable = "".join(
            f"; `{name}` holds {address:#x}, device memory that is not an argument of this launch, another "
            f"variable of its module or an array of the notebook's namespace, so the checking process could not "
            f"be given it (keep that array in a notebook variable, or pass it as an argument)"
            for name, address in _unresolved_pointers)
        raise RuntimeError(f"%%cuda_check: {kernel.name} failed in the checking process ({outcome['error']}) "
                           f"but {tool} reported nothing{unreachable or '; try --tool memcheck'}")
    for index, result in outcome["results"].items():
        write_backs[index](result)
    views = kernel._globals
    declarations = views.declarations() if outcome.get("variables") else {}
    for name, result in outcome.get("variables", {}).items():
        if "*" not in declarations.get(name, ""):  # a pointer the child set would point into the child
            views[name].set(result)
    for index, result in outcome.get("extras", {}).items():
        extras[index][1](result)

"""%cuda_restart: a fresh kernel process in place of this one, with the notebook's variables.

A GPU that faulted (ContextLostError) stays unusable for the process that saw the fault, and a
kernel an interrupt left running holds the GPU until its process ends; only a new process gets a
working GPU back. Jupyter's own restart gives one but loses every variable. Here:

1. save(): each name of the user's namespace is written to its own file with cloudpickle (so an
   object that cannot be saved costs only itself): numpy arrays and other picklable objects,
   functions and classes defined in cells (by value), xcuda modules, kernels and device arrays
   (by value, where the device still answers); modules are re-imported by name.
2. The kernel answers the cell, then replaces its process image (exec: the same pid and command
   line, so the same connection file, ports and key; the frontend keeps talking to it).
3. restore(), as the new process builds its shell: the names come back, history and the
   execution count go on. What could not be saved or restored is listed by name.

The state directory is passed in $XCUDA_RESTORE_FROM and removed once loaded.
"""

import importlib
import io
import os
import pickle
import re
import shutil
import sys
import tempfile
import time
import types

STATE_ENV = "XCUDA_RESTORE_FROM"
COUNT_ENV = "XCUDA_RESTORE_EXECUTION_COUNT"
INDEX = "index.pickle"

# IPython's own names (kept in user_ns_hidden too) and its output caches: _, __, ___, _i, _ii,
# _iii, _i5, _5, _oh, _ih, _dh.
_CACHE_NAME = re.compile(r"^(_+|_i+|_i\d+|_\d+|_oh|_ih|_dh)$")


def _kept_names(shell):
    hidden = set(getattr(shell, "user_ns_hidden", {}))
    for name, value in shell.user_ns.items():
        if name in hidden or _CACHE_NAME.match(name) or (name.startswith("__") and name.endswith("__")):
            continue
        yield name, value


def _why_not(value, exc):
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{type(value).__name__}: {text}"


def _reload_library(name):
    import ctypes

    return ctypes.CDLL(name)


def _pickler(cloudpickle, f):
    """cloudpickle's pickler, with a shared library loaded by ctypes saved as its path: the new
    process loads it again, as the cell that loaded it did. By value (cloudpickle's default for
    an instance) it saves but does not load (its function-pointer class is made at run time)."""
    import collections
    import ctypes

    class Pickler(cloudpickle.CloudPickler):
        # a class attribute: the C pickler reads it when constructed
        dispatch_table = collections.ChainMap({ctypes.CDLL: lambda lib: (_reload_library, (lib._name,))},
                                              cloudpickle.CloudPickler.dispatch_table)

    return Pickler(f, protocol=pickle.HIGHEST_PROTOCOL)


def save(shell):
    """Writes the namespace to a new state directory. Returns (directory, report) where the
    report has 'saved' (names), 'modules' (name -> module), 'unsaved' (name -> why), 'bytes'
    and 'seconds'."""
    import cloudpickle  # a dependency of xcuda: functions and classes of cells, by value

    start = time.perf_counter()
    directory = tempfile.mkdtemp(prefix="xcuda-restart-")
    saved, modules, unsaved = [], {}, {}
    total = 0
    for name, value in list(_kept_names(shell)):
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
            continue
        if isinstance(value, io.IOBase):
            # cloudpickle would save a read-only file's contents as a StringIO: not the file.
            unsaved[name] = f"{type(value).__name__}: an open file or stream; open it again after the restart"
            continue
        path = os.path.join(directory, f"{len(saved)}.pickle")
        try:
            with open(path, "wb") as f:
                _pickler(cloudpickle, f).dump(value)
        except Exception as exc:  # any object's own failure to pickle: listed, the others go on
            unsaved[name] = _why_not(value, exc)
            os.remove(path)
            continue
        total += os.path.getsize(path)
        saved.append(name)
    state = {
        "saved": saved,
        "modules": modules,
        "unsaved": unsaved,
        "execution_count": shell.execution_count,
        "cwd": os.getcwd(),
        "sys_path": list(sys.path),
    }
    with open(os.path.join(directory, INDEX), "wb") as f:
        pickle.dump(state, f)
    report = {"saved": saved, "modules": modules, "unsaved": unsaved, "bytes": total,
              "seconds": time.perf_counter() - start}
    return directory, report


def describe_save(report):
    """The lines the restart cell shows."""
    lines = [f"Saved {len(report['saved'])} variables ({report['bytes'] / 1e6:.1f} MB) and "
             f"{len(report['modules'])} module names in {report['seconds']:.2f} s."]
    if report["unsaved"]:
        lines.append("Not saved (they will be missing after the restart):")
        lines += [f"  {name}: {why}" for name, why in report["unsaved"].items()]
    lines.append("Restarting the kernel process; the variables load before the next cell runs.")
    return "\n".join(lines)


def restore(shell):
    """In the new process, while its shell is built: loads the state named by $XCUDA_RESTORE_FROM
    (if any) and removes it. Returns text for the first cell ('' when there is nothing to say)."""
    directory = os.environ.pop(STATE_ENV, "")
    if not directory:
        return ""
    try:
        with open(os.path.join(directory, INDEX), "rb") as f:
            state = pickle.load(f)
    except Exception as exc:
        shutil.rmtree(directory, ignore_errors=True)
        return f"xcuda: the variables saved by %cuda_restart could not be read ({exc}); the namespace is empty"
    start = time.perf_counter()
    problems = {}
    try:
        os.chdir(state["cwd"])
    except OSError as exc:
        problems["(working directory)"] = str(exc)
    for entry in state["sys_path"]:
        if entry not in sys.path:
            sys.path.append(entry)
    for name, module in state["modules"].items():
        try:
            shell.user_ns[name] = importlib.import_module(module)
        except Exception as exc:
            problems[name] = f"import {module}: {exc}"
    for index, name in enumerate(state["saved"]):
        try:
            with open(os.path.join(directory, f"{index}.pickle"), "rb") as f:
                shell.user_ns[name] = pickle.load(f)
        except Exception as exc:
            problems[name] = f"{type(exc).__name__}: {exc}"
    # The kernel says which number the next cell takes (the restart cell counted); else the saved one.
    count = os.environ.pop(COUNT_ENV, "")
    shell.execution_count = int(count) if count.isdigit() else state["execution_count"]
    shutil.rmtree(directory, ignore_errors=True)
    if not problems:
        return ""  # what could not be saved, the restart cell listed
    lines = [f"xcuda: after %cuda_restart ({time.perf_counter() - start:.2f} s) these could not be loaded:"]
    lines += [f"  {name}: {why}" for name, why in problems.items()]
    return "\n".join(lines)

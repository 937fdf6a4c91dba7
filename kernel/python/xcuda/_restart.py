"""%cuda_restart: a fresh kernel process in place of this one, with the notebook's variables.

A GPU that faulted (ContextLostError) stays unusable for the process that saw the fault, and a
kernel an interrupt left running holds the GPU until its process ends; only a new process gets a
working GPU back. Jupyter's own restart gives one but loses every variable. Here:

1. save(): each name of the user's namespace is written to its own file with cloudpickle (so an
   object that cannot be saved costs only itself): numpy arrays and other picklable objects,
   functions and classes defined in cells (by value), xcuda modules, kernels and device arrays
   (by value, where the device still answers); modules are re-imported by name. Two kinds of
   object are written as references instead (see _References): the namespace, which a cell's
   functions get back as their globals (so they read and write the live namespace, as before
   the restart, not copies of the globals they used), and an object that is the value of
   another saved name (written once, under that name, and the same object after the restart).
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


def _pickler(cloudpickle, f, references):
    """cloudpickle's pickler, with
    - a shared library loaded by ctypes saved as its path: the new process loads it again, as the
      cell that loaded it did. By value (cloudpickle's default for an instance) it saves but does
      not load (its function-pointer class is made at run time);
    - a function of the namespace's cells saved with the namespace as its globals and without
      copies of the globals it reads (_live_globals);
    - the objects `references` names written as references (persistent ids)."""
    import collections
    import ctypes

    class Pickler(cloudpickle.CloudPickler):
        # a class attribute: the C pickler reads it when constructed
        dispatch_table = collections.ChainMap({ctypes.CDLL: lambda lib: (_reload_library, (lib._name,))},
                                              cloudpickle.CloudPickler.dispatch_table)

        # cloudpickle 2.x and 3.x reduce a function defined outside an importable module (a cell's)
        # here; the pickler calls it for every such function it meets, at any depth.
        def _dynamic_function_reduce(self, func):
            reduced = super()._dynamic_function_reduce(func)
            return _live_globals(reduced, references.user_ns) if func.__globals__ is references.user_ns else reduced

    pickler = Pickler(f, protocol=pickle.HIGHEST_PROTOCOL)
    # An attribute, not a method of Pickler: one Python call per object written, not two.
    pickler.persistent_id = references.persistent_id()
    return pickler


def _live_globals(reduced, user_ns):
    """cloudpickle's reduction of a cell's function, changed to load with the namespace itself as
    its globals: cloudpickle gives it a new dict holding copies of the globals it reads (which
    the function would go on reading after the restart, whatever the notebook binds). The
    namespace is written as a reference (_References.persistent_id), and the copies are left out:
    the function reads the names from the namespace when it runs, as before the restart (a name
    that was not saved is missing there, as everywhere after the restart). Left out, they also
    keep cloudpickle's _function_setstate, which updates the function's globals with them, from
    writing into the namespace.

    cloudpickle 2.2 to 3.1 reduce to (_make_function, (code, globals, name, argdefs, closure),
    (state, slotstate), None, None, _function_setstate); a reduction of another shape is kept as
    cloudpickle made it (the function is then saved by value, with copies of its globals, and
    the restart tests fail)."""
    if len(reduced) != 6 or len(reduced[1]) != 5 or len(reduced[2]) != 2 or "__globals__" not in reduced[2][1]:
        return reduced
    make, (code, _, name, argdefs, closure), (state, slotstate), items, dict_items, setstate = reduced
    slotstate = dict(slotstate, __globals__={})
    return make, (code, user_ns, name, argdefs, closure), (state, slotstate), items, dict_items, setstate


# Objects the interpreter shares on its own (small ints, interned strings, None, the empty tuple)
# and whose identity no program relies on: were `flag = None` a reference target, every None
# inside every saved object would load through `flag`.
_ATOMS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis), type(NotImplemented))


def _may_share(value):
    return type(value) not in _ATOMS and not (type(value) in (tuple, frozenset) and len(value) == 0)


class _References:
    """Which objects save() writes as references (persistent ids), not by value:
    - ("user_ns",): the namespace itself, a cell's functions' globals (_live_globals) or a name
      bound to it (`ns = globals()`); restore() gives the new shell's namespace;
    - ("name", N): an object that is the value of the saved name N, inside another name's value
      or as the value of a second name (`b = a`): written once, in N's file; restore() loads N
      first and gives its object, so `a is b` and `d["f"] is f` hold after the restart, and the
      bytes are counted once.
    A name's value belongs to the first name bound to it. A reference that would close a cycle
    between files (a's value holds b's and b's holds a's) is not written: the object is written by
    value there instead, so no file needs itself loaded first; after the restart that name holds
    a copy (of ring_a inside ring_b, say) where the others hold the object itself. A name that
    could not be saved is no target (`excluded`): the files that referred to it are written again
    with its value in them (or fail as it did)."""

    def __init__(self, user_ns, names):
        self.user_ns = user_ns
        self.owner = {}  # id(value) -> the name its file holds it under; names keeps the values alive
        for name, value in names:
            if _may_share(value) and value is not user_ns:  # the namespace is ("user_ns",), whatever its names
                self.owner.setdefault(id(value), name)
        self.refers_to = {}  # name -> the names its file refers to
        self.excluded = set()
        self.saving = None  # the name whose file is being written
        self._by_value = set()  # the targets that file holds by value (a reference would be a cycle)

    def begin(self, name):
        self.saving = name
        self.refers_to[name] = set()
        self._by_value = set()

    def failed(self, name):
        self.refers_to.pop(name, None)
        self.excluded.add(name)

    def stale(self):
        """The saved names whose files refer to a name that could not be saved."""
        return [name for name, targets in self.refers_to.items() if targets & self.excluded]

    def persistent_id(self):
        """The pickler's persistent_id. It is called for every object written (before pickle's
        own memo): a closure, with a dict look-up for most objects (3 M floats in a list: 0.06 s
        to save with no persistent_id, 0.25 s with this one)."""
        owner, user_ns, reference = self.owner.get, self.user_ns, self._reference

        def persistent_id(obj):
            target = owner(id(obj))
            if target is None:
                return ("user_ns",) if obj is user_ns else None
            return reference(target)

        return persistent_id

    def _reference(self, target):
        if target == self.saving or target in self.excluded or target in self._by_value:
            return None
        targets = self.refers_to[self.saving]
        if target not in targets:
            if self._reaches(target, self.saving):
                self._by_value.add(target)
                return None
            targets.add(target)
        return ("name", target)

    def _reaches(self, start, goal):
        seen, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                todo.extend(self.refers_to.get(name, ()))
        return False


def _candidates(shell, modules, unsaved):
    """The (name, value) pairs to pickle; modules (saved as their import name) and open files
    (not saved) go to `modules` and `unsaved`."""
    names = []
    for name, value in _kept_names(shell):
        if isinstance(value, types.ModuleType):
            modules[name] = value.__name__
        elif isinstance(value, io.IOBase):
            # cloudpickle would save a read-only file's contents as a StringIO: not the file.
            unsaved[name] = f"{type(value).__name__}: an open file or stream; open it again after the restart"
        else:
            names.append((name, value))
    return names


def _write(cloudpickle, references, name, value, path):
    """Writes one name's file; returns its size, or the reason it could not be written."""
    references.begin(name)
    try:
        with open(path, "wb") as f:
            _pickler(cloudpickle, f, references).dump(value)
    except Exception as exc:  # any object's own failure to pickle: listed, the others go on
        references.failed(name)
        os.remove(path)
        return _why_not(value, exc)
    return os.path.getsize(path)


def save(shell):
    """Writes the namespace to a new state directory. Returns (directory, report) where the
    report has 'saved' (names), 'modules' (name -> module), 'unsaved' (name -> why), 'bytes'
    and 'seconds'."""
    import cloudpickle  # a dependency of xcuda: functions and classes of cells, by value

    start = time.perf_counter()
    directory = tempfile.mkdtemp(prefix="xcuda-restart-")
    modules, unsaved = {}, {}
    order = [name for name, _ in _kept_names(shell)]
    names = _candidates(shell, modules, unsaved)
    references = _References(shell.user_ns, names)
    files, sizes = {}, {}  # name -> file name, bytes
    todo = [(index, name, value) for index, (name, value) in enumerate(names)]
    while todo:
        for index, name, value in todo:
            files[name] = f"{index}.pickle"
            written = _write(cloudpickle, references, name, value, os.path.join(directory, files[name]))
            if isinstance(written, str):
                unsaved[name] = written
                del files[name]
                sizes.pop(name, None)
            else:
                sizes[name] = written
        # Files that refer to a name that could not be saved: again, with its value in them.
        # Each round only a failure makes more (a name fails once), so this ends.
        stale = set(references.stale())
        todo = [(index, name, value) for index, (name, value) in enumerate(names) if name in stale]
    saved = [name for name, _ in names if name in files]
    unsaved = {name: unsaved[name] for name in order if name in unsaved}  # in the namespace's order
    state = {
        "saved": saved,
        "files": files,
        "modules": modules,
        "unsaved": unsaved,
        "execution_count": shell.execution_count,
        "cwd": os.getcwd(),
        "sys_path": list(sys.path),
    }
    with open(os.path.join(directory, INDEX), "wb") as f:
        pickle.dump(state, f)
    report = {"saved": saved, "modules": modules, "unsaved": unsaved, "bytes": sum(sizes.values()),
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


class _NotLoaded(Exception):
    """A name's file refers to a name that could not be loaded (its own reason is listed too)."""


class _Loader:
    """Loads the saved names into the namespace, each from its own file; a name that another's
    file refers to (_References) is loaded first, once. What fails is in `failed` (name -> why):
    a name that could not be loaded, and each name whose file refers to it."""

    def __init__(self, directory, files, user_ns):
        self.directory, self.files, self.user_ns = directory, files, user_ns
        self.loaded, self.failed = {}, {}
        self.loading = []  # the names being loaded, outermost first

    def load(self, name):
        """Loads `name` into the namespace (once), or records in `failed` why not."""
        if name in self.loaded or name in self.failed:
            return
        self.loading.append(name)
        try:
            with open(os.path.join(self.directory, self.files[name]), "rb") as f:
                value = _Unpickler(f, self._resolve).load()
        except _NotLoaded as exc:
            self.failed[name] = f"refers to {exc}, which could not be loaded"
            return
        except Exception as exc:  # the object's own failure to load: listed, the others go on
            self.failed[name] = f"{type(exc).__name__}: {exc}"
            return
        finally:
            self.loading.pop()
        self.loaded[name] = self.user_ns[name] = value

    def _resolve(self, pid):
        if pid == ("user_ns",):
            return self.user_ns
        if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "name"):
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        target = pid[1]
        if target in self.loading:
            # save() writes no cycle of references (_References); met anyway, each name of the
            # cycle fails, and says which.
            cycle = " -> ".join(self.loading[self.loading.index(target):] + [target])
            raise pickle.UnpicklingError(f"a cycle of references: {cycle}")
        if target not in self.files:
            raise pickle.UnpicklingError(f"refers to {target}, which was not saved")
        self.load(target)
        if target in self.failed:
            raise _NotLoaded(target)
        return self.loaded[target]


class _Unpickler(pickle.Unpickler):
    """pickle's unpickler, with save()'s references resolved by `resolve`."""

    def __init__(self, f, resolve):
        super().__init__(f)
        self._resolve = resolve

    def persistent_load(self, pid):
        return self._resolve(pid)


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
    # cloudpickle sets a loaded function's globals' __builtins__ to the builtins dict: put back
    # the shell's (the builtins module: `__builtins__.print` works in a cell).
    builtins = shell.user_ns.get("__builtins__")
    loader = _Loader(directory, state["files"], shell.user_ns)
    try:
        for name in state["saved"]:
            loader.load(name)
    finally:
        if builtins is not None:
            shell.user_ns["__builtins__"] = builtins
    problems.update((name, loader.failed[name]) for name in state["saved"] if name in loader.failed)
    # The kernel says which number the next cell takes (the restart cell counted); else the saved one.
    count = os.environ.pop(COUNT_ENV, "")
    shell.execution_count = int(count) if count.isdigit() else state["execution_count"]
    shutil.rmtree(directory, ignore_errors=True)
    if not problems:
        return ""  # what could not be saved, the restart cell listed
    lines = [f"xcuda: after %cuda_restart ({time.perf_counter() - start:.2f} s) these could not be loaded:"]
    lines += [f"  {name}: {why}" for name, why in problems.items()]
    return "\n".join(lines)

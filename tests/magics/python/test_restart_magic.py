"""%cuda_restart outside the xcuda kernel (here: IPython with the extension, as ipykernel runs
it): it cannot replace a process it does not own, and says what to do instead."""
import pytest
from IPython.core.error import UsageError


def test_cuda_restart_outside_the_xcuda_kernel_says_to_restart_from_the_frontend(ip):
    with pytest.raises(UsageError, match="only in that kernel.*restart from the frontend"):
        ip.run_line_magic("cuda_restart", "")
    with pytest.raises(UsageError, match="takes no arguments.*'now'"):
        ip.run_line_magic("cuda_restart", "now")


def test_cuda_restart_help_says_what_it_keeps_in_the_xcuda_kernel_and_what_to_do_here(ip, capsys):
    ip.run_line_magic("cuda_restart", "-h")
    said = capsys.readouterr().out
    assert "saves the notebook's variables" in said and "restart from the\nfrontend" in said


def test_reloading_the_extension_keeps_a_cuda_restart_the_shell_already_has(ip):
    # The xcuda kernel registers its own %cuda_restart over the extension's; %reload_ext xcuda
    # there must not put the stand-in back.
    def kernels_own(line):
        return "the kernel's"

    before = ip.magics_manager.magics["line"]["cuda_restart"]
    ip.register_magic_function(kernels_own, magic_kind="line", magic_name="cuda_restart")
    try:
        ip.run_line_magic("reload_ext", "xcuda")
        assert ip.run_line_magic("cuda_restart", "") == "the kernel's"
    finally:
        ip.magics_manager.magics["line"]["cuda_restart"] = before


# --- save() and restore() of xcuda._restart, without a kernel process -------------------------
# The names are made by cells of this process's IPython shell (so a cell's functions have the
# shell's namespace as __globals__, as in the kernel), saved, and restored in a fresh Python with
# a fresh shell: what the new kernel process does, short of replacing a process. A fresh process
# matters: in this one cloudpickle would hand back the original classes of the cells.

FRESH = r'''
import json, os, sys
from IPython.testing.globalipapp import start_ipython
from xcuda import _restart
shell = start_ipython()
os.environ[_restart.STATE_ENV] = sys.argv[1]
said = _restart.restore(shell)
outcome = shell.run_cell(sys.stdin.read())
outcome.raise_error()
print("\nRESULT " + json.dumps({"said": said, "result": shell.user_ns.get("result"), "module": _restart.__file__}))
'''


@pytest.fixture
def shell(ip):
    """`ip` with none of the names other tests left (save() saves every name), put back after."""
    from xcuda import _restart
    before = dict(ip.user_ns)
    for name, _ in list(_restart._kept_names(ip)):
        del ip.user_ns[name]
    yield ip
    ip.user_ns.clear()
    ip.user_ns.update(before)


@pytest.fixture
def saved(shell):
    """save(shell) after running the cell given; the state directory is removed afterwards."""
    import shutil
    from xcuda import _restart
    directories = []

    def run(cell):
        shell.run_cell(cell).raise_error()
        directory, report = _restart.save(shell)
        directories.append(directory)
        return directory, report

    yield run
    for directory in directories:
        shutil.rmtree(directory, ignore_errors=True)


def restore_in_fresh_process(directory, cell):
    """What restore() said in a fresh Python with a fresh shell, and the `result` that `cell`,
    run there after the restore, leaves."""
    import json
    import os
    import subprocess
    import sys
    from xcuda import _restart
    r = subprocess.run([sys.executable, "-c", FRESH, directory], input=cell, capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stdout + r.stderr
    [line] = [line for line in r.stdout.splitlines() if line.startswith("RESULT ")]
    answer = json.loads(line[len("RESULT "):])
    assert answer["module"] == _restart.__file__  # the child restored with the same code
    return answer["said"], answer["result"]


def test_a_cell_function_reads_the_live_namespace_after_the_restore(saved):
    directory, report = saved("scale = 2\ndef times(x):\n    return scale * x\nns = globals()\n")
    assert report["saved"] == ["scale", "times", "ns"] and not report["unsaved"], report
    said, result = restore_in_fresh_process(directory, (
        "result = [times(3)]\n"
        "scale = 10\n"
        "result += [times(3), times.__globals__ is globals(), ns is globals(),\n"
        "           type(__builtins__).__name__]\n"))
    assert said == ""
    # After the rebinding the function reads the new value, as it did before the restart; the
    # shell's __builtins__ is still the builtins module (cloudpickle sets it to the builtins dict).
    assert result == [6, 30, True, True, "module"]


def test_a_global_statement_in_a_cell_function_updates_the_namespace_after_the_restore(saved):
    directory, _ = saved("counter = 0\ndef bump():\n    global counter\n    counter += 1\n    return counter\n")
    said, result = restore_in_fresh_process(directory, "bump()\nbump()\nresult = [counter, bump()]\n")
    assert said == "" and result == [2, 3]


def test_names_bound_to_one_array_are_saved_once_and_stay_one_object(saved):
    import numpy as np
    directory, report = saved(
        "import numpy as np\n"
        "a = np.arange(2**21, dtype=np.float32)\n"
        "b = a\n"
        "pair = [a, b]\n"
        "def total():\n    return float(a.sum() + b.sum())\n")
    nbytes = np.dtype(np.float32).itemsize * 2**21
    assert report["saved"] == ["a", "b", "pair", "total"], report
    assert nbytes < report["bytes"] < 1.05 * nbytes, report["bytes"]  # one copy of the array, not four
    said, result = restore_in_fresh_process(directory, (
        "result = [a is b, pair[0] is a, pair[1] is a, total()]\n"
        "a = a[:2]\n"
        "result.append(b.size)\n"))  # b is still the whole array: rebinding a does not touch it
    assert said == ""
    assert result == [True, True, True, float(np.arange(2**21, dtype=np.float32).sum() * 2), 2**21]


def test_a_method_of_a_cell_class_reads_the_live_namespace_after_the_restore(saved):
    directory, _ = saved(
        "offset = 1\n"
        "class Shift:\n"
        "    def __init__(self, k):\n        self.k = k\n"
        "    def apply(self, x):\n        return x + self.k + offset\n"
        "s = Shift(2)\n")
    said, result = restore_in_fresh_process(directory, (
        "result = [s.apply(0)]\n"
        "offset = 100\n"
        "result += [s.apply(0), type(s) is Shift, Shift.apply.__globals__ is globals()]\n"))
    assert said == "" and result == [3, 102, True, True]


def test_functions_and_names_that_refer_to_each_other_come_back_linked(saved):
    directory, report = saved(
        "def is_even(n):\n    return True if n == 0 else is_odd(n - 1)\n"
        "def is_odd(n):\n    return False if n == 0 else is_even(n - 1)\n"
        "table = {'even': is_even, 'odd': is_odd}\n"
        "holder = [table, is_odd]\n"
        "me = []\nme.append(me)\n"
        "ring_a = []\nring_b = [ring_a]\nring_a.append(ring_b)\n")
    assert not report["unsaved"], report
    said, result = restore_in_fresh_process(directory, (
        "result = [is_even(10), is_odd(7), table['even'] is is_even, holder[0] is table, holder[1] is is_odd,\n"
        "          me[0] is me, ring_b[0][0] is ring_b, ring_a[0] is ring_b,\n"
        "          ring_b[0] is ring_a, ring_b[0] == [ring_b]]\n"
        "def is_odd(n):\n    return 'redefined'\n"
        "result.append(is_even(1))\n"))  # is_even calls the is_odd the namespace holds now
    assert said == ""
    assert result[:8] == [True] * 8
    # Two names whose values hold each other (ring_a, ring_b): the second saved holds the first
    # by value (a reference each way would be a cycle no file can load first), so after the
    # restore ring_b[0] is a copy of ring_a (holding ring_b itself), not ring_a.
    assert result[8:10] == [False, True]
    assert result[10] == "redefined"


def test_a_name_that_cannot_be_saved_or_loaded_costs_only_itself_and_what_holds_it(saved):
    from xcuda import _restart
    directory, report = saved(
        "gen = (i for i in range(3))\n"
        "def first():\n    return next(gen)\n"
        "wrapped = {'g': gen}\n"
        "def explode():\n    raise RuntimeError('cannot be built here')\n"
        "class Fragile:\n    def __reduce__(self):\n        return (explode, ())\n"
        "fragile = Fragile()\n"
        "box = [fragile]\n"
        "def use(x=fragile):\n    return x\n"
        "keep = 5\n")
    assert set(report["unsaved"]) == {"gen", "wrapped"}, report
    assert "generator" in report["unsaved"]["gen"] and "generator" in report["unsaved"]["wrapped"], report
    assert report["saved"] == ["first", "explode", "Fragile", "fragile", "box", "use", "keep"], report
    text = _restart.describe_save(report)
    assert "  gen: generator" in text and "  wrapped: dict" in text, text
    said, result = restore_in_fresh_process(directory, (
        "result = [keep, first.__name__, 'gen' in globals(), 'wrapped' in globals(),\n"
        "          'fragile' in globals(), 'box' in globals(), 'use' in globals()]\n"
        "try:\n    first()\nexcept NameError as e:\n    result.append(str(e))\n"))
    # first() was saved (it reads gen from the namespace when called, not when saved); gen was not.
    assert result == [5, "first", False, False, False, False, False, "name 'gen' is not defined"]
    lines = said.splitlines()
    assert lines[0].startswith("xcuda: after %cuda_restart") and len(lines) == 4, said
    assert lines[1] == "  fragile: RuntimeError: cannot be built here", said
    assert lines[2] == "  box: refers to fragile, which could not be loaded", said
    assert lines[3] == "  use: refers to fragile, which could not be loaded", said


def test_files_that_refer_to_each_other_are_listed_not_loaded_forever(tmp_path, monkeypatch):
    """save() writes no cycle of references; restore() meets one only in files written otherwise,
    and says so for each name of the cycle, loading the others."""
    import pickle
    import types
    from xcuda import _restart

    class Referring(pickle.Pickler):
        def __init__(self, f, target):
            super().__init__(f)
            self.target = target

        def persistent_id(self, obj):
            return ("name", self.target) if obj == "here" else None

    directory = tmp_path / "state"  # restore() removes it
    directory.mkdir()
    for name, target in (("x", "y"), ("y", "x")):
        with open(directory / f"{name}.pickle", "wb") as f:
            Referring(f, target).dump(["here"])
    with open(directory / "z.pickle", "wb") as f:
        pickle.dump(7, f)
    state = {"saved": ["x", "y", "z"], "files": {n: f"{n}.pickle" for n in "xyz"}, "modules": {}, "unsaved": {},
             "execution_count": 3, "cwd": str(tmp_path), "sys_path": []}
    with open(directory / _restart.INDEX, "wb") as f:
        pickle.dump(state, f)
    monkeypatch.setenv(_restart.STATE_ENV, str(directory))
    monkeypatch.chdir(tmp_path)  # restore() goes to the saved working directory; this comes back
    shell = types.SimpleNamespace(user_ns={}, execution_count=0)
    said = _restart.restore(shell).splitlines()
    assert said[1:] == ["  x: refers to y, which could not be loaded",
                        "  y: UnpicklingError: a cycle of references: x -> y -> x"], said
    assert shell.user_ns == {"z": 7}

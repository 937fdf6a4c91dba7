"""`import xcuda`'s stated surface: __all__ is what `from xcuda import *` binds, every public name
of the package is in it (IPython's extension hooks aside), docs/DESIGN.md's Python contract names
each one, and no private helper of the package's own wiring is left in its namespace. The
package's private modules import xcuda._core, not the package that is still loading them."""
import ast
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import types

import xcuda

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "magics" / "python" / "xcuda"
KERNEL_PACKAGE = ROOT / "kernel" / "python" / "xcuda"
IPYTHON_HOOKS = {"load_ipython_extension", "unload_ipython_extension"}
# The package itself, `python -m xcuda`, and the program compute-sanitizer runs (a process of its
# own, which imports the package whole).
NOT_LOADED_WITH_THE_PACKAGE = {"__init__.py", "__main__.py", "_sanitizer_child.py"}


def fresh_python(code):
    """What `code` prints as JSON on its last line, run in a new Python."""
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_import_star_binds_exactly_all():
    got = fresh_python("""
        import json
        namespace = {}
        exec("from xcuda import *", namespace)
        import xcuda
        print(json.dumps({"bound": sorted(set(namespace) - {"__builtins__"}), "all": sorted(xcuda.__all__)}))
    """)
    assert got["bound"] == got["all"]


def test_every_public_name_is_in_all_and_every_name_of_all_exists():
    assert len(xcuda.__all__) == len(set(xcuda.__all__)), "a name listed twice"
    public = {name for name, value in vars(xcuda).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert sorted(public - set(xcuda.__all__) - IPYTHON_HOOKS) == []
    assert [name for name in xcuda.__all__ if not hasattr(xcuda, name)] == []
    assert IPYTHON_HOOKS <= set(dir(xcuda))  # %load_ext xcuda finds them


def test_no_private_helper_is_left_in_the_namespace():
    # What may start with an underscore: the package's submodules (the import system binds them)
    # and the list of names __getattr__ loads lazily.
    private = {name for name, value in vars(xcuda).items()
               if name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
               and not isinstance(value, types.ModuleType)}
    assert private == {"_EXERCISE_NAMES"}
    for helper in ("_kernel_check", "_kernel_autotune", "_debug_one_thread", "_value"):
        assert helper not in vars(xcuda)


def test_the_methods_written_in_python_are_on_the_kernel_class():
    for method in ("check", "autotune", "debug"):
        assert callable(getattr(xcuda.Kernel, method)), method


def test_the_exercise_names_stay_lazy_and_are_in_all():
    got = fresh_python("""
        import json, sys
        import xcuda
        before = "numpy" in sys.modules
        listed = "grade" in xcuda.__all__ and "exercise" in dir(xcuda)
        xcuda.grade
        print(json.dumps({"numpy_at_import": before, "listed": listed, "numpy_after": "numpy" in sys.modules}))
    """)
    assert got == {"numpy_at_import": False, "listed": True, "numpy_after": True}


def contract_text():
    text = (ROOT / "docs" / "DESIGN.md").read_text()
    start = text.index("## The Python contract")
    return text[start:text.index("\n## ", start + 1)]


def documented(name, contract):
    """`name`, `xcuda.name...`, or a line of the error tree that starts with it."""
    return (f"`{name}`" in contract or f"`xcuda.{name}" in contract
            or re.search(rf"^\s+{name}\s", contract, re.M) is not None)


def test_the_design_documents_every_name_of_all():
    contract = contract_text()
    assert [name for name in xcuda.__all__ if not documented(name, contract)] == []
    assert not documented("NotAnXcudaName", contract)


def imported_package_modules(path):
    """The names of `import xcuda` / `from xcuda import NAME` statements anywhere in the file
    ('xcuda' for the package itself, else the module named)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name == "xcuda"]
        elif isinstance(node, ast.ImportFrom) and node.module == "xcuda" and node.level == 0:
            found += [f"xcuda.{alias.name}" for alias in node.names]
    return found


def test_private_modules_import_the_core_not_the_package():
    # The package imports them while it loads: `import xcuda` there would see it half built.
    offenders = []
    for folder in (PACKAGE, KERNEL_PACKAGE):
        for path in sorted(folder.rglob("*.py")):
            inside = path.relative_to(folder)
            if not inside.parts[0].startswith("_") or inside.as_posix() in NOT_LOADED_WITH_THE_PACKAGE:
                continue
            if "xcuda" in imported_package_modules(path):
                offenders.append(path.relative_to(ROOT).as_posix())
    assert offenders == []


def test_an_import_of_the_package_in_a_private_module_is_found(tmp_path):
    (tmp_path / "_example.py").write_text("def f():\n    import xcuda\n    return xcuda.compile\n")
    assert imported_package_modules(tmp_path / "_example.py") == ["xcuda"]


def test_a_kernel_says_its_cell_and_options_so_the_cell_compiles_again(saxpy):
    # What Kernel.autotune compiles with other -D values and %%cuda_check's findings quote.
    kernel = xcuda.compile(saxpy.source, defines=["UNUSED=1"]).kernels["saxpy"]
    assert kernel.source == saxpy.source
    assert kernel.compile_options["defines"] == ["UNUSED=1"]
    again = xcuda.compile(kernel.source, **kernel.compile_options).kernels["saxpy"]
    assert again.signature == kernel.signature and again.compile_options == kernel.compile_options

"""What help() and IPython's `?` show for the launch calls: a docstring beyond pybind11's
generated signature line, naming the launch parameters a user has to pass."""
import inspect

import pytest

import xcuda


def written_doc(attr):
    """The docstring less pybind11's generated `name(self: ..., ...) -> ...` line."""
    doc = inspect.getdoc(attr) or ""
    lines = doc.splitlines()
    if lines and lines[0].startswith(attr.__name__ + "(self"):
        lines = lines[1:]
    return "\n".join(lines).strip()


@pytest.mark.parametrize(
    "attr, words",
    [
        (xcuda.Kernel.__call__, ["grid", "block", "shared_mem", "stream", "cooperative", "cluster"]),
        (xcuda.Kernel.__getitem__, ["grid", "block", "shared_mem", "stream", "Launcher"]),
        (xcuda.Launcher.__call__, ["grid", "block", "shared_mem", "stream", "args"]),
        (xcuda.Launcher.with_options, ["cooperative", "cluster"]),
        (xcuda.KernelTemplate.__getitem__, ["template"]),
    ],
    ids=["Kernel.__call__", "Kernel.__getitem__", "Launcher.__call__", "Launcher.with_options",
         "KernelTemplate.__getitem__"],
)
def test_launch_calls_have_docstrings_naming_the_launch_parameters(attr, words):
    doc = written_doc(attr)
    assert doc, f"{attr.__qualname__} has no docstring beyond its signature"
    missing = [w for w in words if w not in doc]
    assert not missing, f"{attr.__qualname__}'s docstring does not mention {missing}"


def test_every_public_function_and_method_has_a_docstring():
    undocumented = []
    for name in dir(xcuda._core):
        obj = getattr(xcuda._core, name)
        if name.startswith("_") or not callable(obj):
            continue
        if not inspect.isclass(obj):
            if not written_doc(obj):
                undocumented.append(name)
            continue
        # A read-only mapping's methods (KernelAttributes, ModuleGlobals) mean what dict's do.
        mapping = "keys" in vars(obj)
        for attr_name, attr in vars(obj).items():
            # Dunders other than the call and indexing ones are Python's protocols (len, iter).
            if attr_name.startswith("_") and attr_name not in ("__call__", "__getitem__", "__getattr__"):
                continue
            if mapping and attr_name in ("__getitem__", "keys", "values", "items", "get"):
                continue
            function = getattr(attr, "__func__", attr)
            if isinstance(attr, property) or not callable(function):
                continue
            if not written_doc(function):
                undocumented.append(f"{name}.{attr_name}")
    assert not undocumented, f"no docstring: {undocumented}"

"""The xcuda package is built from two halves: magics/python/xcuda (with xcuda._core) and the
kernel's, kernel/python/xcuda (with xcuda._kernel). The kernel is built on the magics, never the
reverse: nothing in magics/ imports a module of the kernel's half, whether in Python (an import
statement, or importlib.import_module) or from C++ (py::module_::import). Run as a script it
prints each such import; test_package_halves.py runs it in ctest."""
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
CPP_IMPORT = re.compile(r'py::module_::import\(\s*"xcuda\.(\w+)')


def kernel_modules(kernel_package):
    """The module names of the kernel's half: its Python files and its extension module."""
    return {path.stem for path in pathlib.Path(kernel_package).glob("*.py")} | {"_kernel"}


def _python_imports(tree):
    """(line, module under xcuda) for each import of an xcuda module in a Python file."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("xcuda."):
                    yield node.lineno, alias.name.split(".")[1]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "xcuda":
                for alias in node.names:
                    yield node.lineno, alias.name
            elif node.module.startswith("xcuda."):
                yield node.lineno, node.module.split(".")[1]
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and node.args[0].value.startswith("xcuda.")):
            yield node.lineno, node.args[0].value.split(".")[1]


def upward_imports(magics_root, kernel_package):
    """(file:line, module) for every import in `magics_root` of a module of the kernel's half."""
    magics_root = pathlib.Path(magics_root)
    kernel = kernel_modules(kernel_package)
    problems = []
    for path in sorted(magics_root.rglob("*")):
        where = path.relative_to(magics_root).as_posix()
        if path.suffix == ".py":
            found = _python_imports(ast.parse(path.read_text(), str(path)))
        elif path.suffix in (".cpp", ".hpp"):
            text = path.read_text()
            found = ((text.count("\n", 0, m.start()) + 1, m.group(1)) for m in CPP_IMPORT.finditer(text))
        else:
            continue
        problems += [(f"{where}:{line}", module) for line, module in found if module in kernel]
    return problems


def main(argv):
    magics_root = argv[1] if len(argv) > 1 else ROOT / "magics"
    kernel_package = argv[2] if len(argv) > 2 else ROOT / "kernel" / "python" / "xcuda"
    problems = upward_imports(magics_root, kernel_package)
    for where, module in problems:
        print(f"{where}: imports xcuda.{module}, a module of the kernel's half (kernel/ is above magics/)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

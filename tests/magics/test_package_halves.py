"""magics/ imports nothing of the kernel's half of the package (check_package_halves.py)."""
from check_package_halves import ROOT, upward_imports


def test_magics_import_nothing_of_the_kernels_half():
    assert upward_imports(ROOT / "magics", ROOT / "kernel" / "python" / "xcuda") == []


def test_each_way_of_importing_a_kernel_module_is_reported(tmp_path):
    kernel = tmp_path / "kernel"
    kernel.mkdir()
    (kernel / "_restart.py").write_text("")
    magics = tmp_path / "magics"
    (magics / "xcuda").mkdir(parents=True)
    (magics / "ipython").mkdir()
    (magics / "xcuda" / "_a.py").write_text(
        "import os\nfrom xcuda import _core, _restart\n"
        "def f():\n    from xcuda._kernel import serving\n    import xcuda._restart\n"
        "    import importlib\n    return importlib.import_module('xcuda._restart')\n")
    (magics / "ipython" / "extension.cpp").write_text(
        '#include "x.hpp"\nvoid f() {\n    py::module_::import("xcuda._core");\n'
        '    py::module_::import("xcuda._restart").attr("save");\n}\n')
    assert upward_imports(magics, kernel) == [
        ("ipython/extension.cpp:4", "_restart"),
        ("xcuda/_a.py:2", "_restart"),
        ("xcuda/_a.py:4", "_kernel"),
        ("xcuda/_a.py:5", "_restart"),
        ("xcuda/_a.py:7", "_restart"),
    ]

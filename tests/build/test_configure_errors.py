"""What configuring the project says when the machine lacks something it needs: one error that
names the package to install (pip shows CMake's message when `pip install .` fails)."""

import glob
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def configure(tmp_path, *args, env=None):
    result = subprocess.run(["cmake", "-S", ROOT, "-B", str(tmp_path / "build"), "-DXCUDA_BUILD_TESTS=OFF", *args],
                            capture_output=True, text=True, timeout=300, env=env)
    return result.returncode, result.stdout + result.stderr


def test_no_cxx_compiler_names_the_package(tmp_path):
    code, output = configure(tmp_path, env=dict(os.environ, CXX="/nonexistent/bin/c++"))
    assert code != 0
    assert "xcuda needs a C++17 compiler" in output
    assert "apt install g++" in output and "cxx-compiler" in output


def test_no_xeus_names_the_package(tmp_path):
    code, output = configure(tmp_path, "-DCMAKE_DISABLE_FIND_PACKAGE_xeus=TRUE")
    assert code != 0
    assert "apt install xeus-dev" in output and "conda install" in output
    assert "-DXCUDA_BUILD_KERNEL=OFF" in output  # the way to build the magics alone


def test_a_python_older_than_3_10_is_refused(tmp_path):
    old = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[89]*/bin/python3.[89]")))
    if not old:
        pytest.skip("no Python 3.8 or 3.9 on this machine (pyenv's would do)")
    code, output = configure(tmp_path, f"-DPython_EXECUTABLE={old[-1]}")
    assert code != 0
    assert "xcuda needs CPython 3.10 or newer" in output

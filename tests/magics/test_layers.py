"""magics/python's folders stay layers (check_layers.py)."""
import pathlib

from check_layers import upward_includes

ROOT = pathlib.Path(__file__).resolve().parents[2] / "magics" / "python"


def test_binding_includes_only_downward():
    assert upward_includes(ROOT) == []


def test_an_upward_include_is_reported(tmp_path):
    (tmp_path / "session").mkdir()
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "kernel_object.hpp").write_text("#pragma once\n")
    (tmp_path / "session" / "session.cpp").write_text('#include "kernels/kernel_object.hpp"\n')
    (tmp_path / "kernels" / "kernel_object.cpp").write_text(
        '#include "kernels/kernel_object.hpp"\n#include "session/session.hpp"\n#include <xcuda/rt/launch.hpp>\n')
    assert upward_includes(tmp_path) == [
        ("session/session.cpp", "kernels/kernel_object.hpp", "kernels/ is above session/")]


def test_a_bare_include_of_a_neighbour_and_an_unknown_folder_are_reported(tmp_path):
    (tmp_path / "launch").mkdir()
    (tmp_path / "extra").mkdir()
    (tmp_path / "launch" / "a.hpp").write_text("#pragma once\n")
    (tmp_path / "launch" / "b.cpp").write_text('#include "a.hpp"\n')
    (tmp_path / "extra" / "c.cpp").write_text("\n")
    assert upward_includes(tmp_path) == [
        ("extra/c.cpp", "", "folder 'extra' is not a layer"),
        ("launch/b.cpp", "a.hpp", "include by folder/name"),
    ]

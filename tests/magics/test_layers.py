"""magics/python's folders and the CPU device's stay layers (check_layers.py)."""
import pathlib

from check_layers import CPU_DEVICE_LAYERS, upward_includes

ROOT = pathlib.Path(__file__).resolve().parents[2] / "magics" / "python"
CPU_DEVICE = pathlib.Path(__file__).resolve().parents[2] / "cuda-runtime" / "cpu-device"


def test_binding_includes_only_downward():
    assert upward_includes(ROOT) == []


def test_cpu_device_includes_only_downward():
    # ptx < check < exec < driver; exec's decode/, ops/ and run/ are all exec.
    assert upward_includes(CPU_DEVICE, CPU_DEVICE_LAYERS, by_top_folder=True) == []


def test_an_upward_include_from_a_sub_folder_is_reported_by_its_top_folder(tmp_path):
    (tmp_path / "check").mkdir()
    (tmp_path / "exec" / "ops").mkdir(parents=True)
    (tmp_path / "exec" / "ops" / "lanes.hpp").write_text("#pragma once\n")
    (tmp_path / "exec" / "ops" / "ops_move.cpp").write_text('#include "exec/ops/lanes.hpp"\n')
    (tmp_path / "check" / "shadow.cpp").write_text('#include "exec/ops/lanes.hpp"\n')
    assert upward_includes(tmp_path, CPU_DEVICE_LAYERS, by_top_folder=True) == [
        ("check/shadow.cpp", "exec/ops/lanes.hpp", "exec/ is above check/")]


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

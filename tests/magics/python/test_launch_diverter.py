"""The seams %%cuda_check's GPU path stands on, checked where no GPU is: the launch diverter
(a launch handed to Python instead of made), the kernel compiled again with line information for
the checking process, the DeviceArray's "nothing wrote it yet" flag that initcheck relies on, and
how compute-sanitizer is found or said missing."""
import pickle

import numpy as np
import pytest

import xcuda
from xcuda import _sanitizer, _toolkit

needs_a_device = pytest.mark.skipif(not xcuda.device_available() and not xcuda.gpu_available(),
                                    reason="no device in this run (XCUDA_DEVICE=none)")

SOURCE = r'''
extern "C" __global__ void fill(float* p, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}'''


@needs_a_device
def test_a_diverted_launch_is_handed_over_with_its_configuration_and_not_made():
    fill = xcuda.compile(SOURCE).fill
    seen = []
    previous = xcuda._core._divert_launches(lambda *launch: seen.append(launch))
    try:
        a = np.zeros(8, np.float32)
        fill[(2, 1), 4, 16](a, 3.0, 8)
        fill(a, 5.0, 8, grid=1, block=(8, 1, 1))
    finally:
        assert xcuda._core._divert_launches(previous) is not None
    assert a.tolist() == [0.0] * 8  # neither launch ran
    kernel, args, grid, block, shared, stream, options = seen[0]
    assert kernel.name == "fill" and args[0] is a and args[1:] == (3.0, 8)
    assert (grid, block, shared, options) == ((2, 1, 1), (4, 1, 1), 16, {})
    assert seen[1][2:4] == ((1, 1, 1), (8, 1, 1))
    fill[1, 8](a, 1.0, 8)  # with the diverter gone, launches run again
    assert a.tolist() == [1.0] * 8


@needs_a_device
def test_the_kernel_for_the_checking_process_has_the_cells_lines_and_pickles():
    fill = xcuda.compile(SOURCE).fill
    lined = fill._with_line_info()
    assert lined.name == "fill" and lined.source == SOURCE
    back = pickle.loads(pickle.dumps(lined))
    assert back.name == "fill"
    already = xcuda.compile(SOURCE, lineinfo=True).fill
    assert already._with_line_info() is already  # compiled with -lineinfo: itself, no second compile


@needs_a_device
def test_only_an_empty_array_nothing_wrote_counts_as_uninitialised():
    fill = xcuda.compile(SOURCE).fill
    assert xcuda.zeros(4, np.float32)._contents_defined
    assert xcuda.to_device(np.ones(4, np.float32))._contents_defined
    e = xcuda.empty(4, np.float32)
    assert not e._contents_defined
    fill[1, 4](e, 1.0, 4)  # a launch may write it
    assert e._contents_defined
    for hand_out in (lambda a: a.set(np.ones(4, np.float32)), lambda a: a.ptr,
                     lambda a: a.__cuda_array_interface__ if a.device != "cpu" else a.set(0.0)):
        e = xcuda.empty(4, np.float32)
        hand_out(e)
        assert e._contents_defined


def test_compute_sanitizer_named_by_the_environment_must_exist(monkeypatch, tmp_path):
    monkeypatch.setenv(_sanitizer.TOOL_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="XCUDA_COMPUTE_SANITIZER=.*nowhere.*unset it"):
        _sanitizer.find_tool()
    tool = tmp_path / "compute-sanitizer"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv(_sanitizer.TOOL_ENV, str(tool))
    assert _sanitizer.find_tool() == str(tool)


def test_without_compute_sanitizer_the_message_says_where_it_comes_from(monkeypatch, tmp_path):
    monkeypatch.delenv(_sanitizer.TOOL_ENV, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    for name in ("CUDA_HOME", "CUDA_PATH"):
        monkeypatch.setenv(name, str(tmp_path))
    installed = _toolkit.find_compute_sanitizer()  # a toolkit's, or one of NVIDIA's wheels in sys.path
    if installed:
        pytest.skip(f"this machine has {installed[0]} ({installed[1]})")
    assert _sanitizer.find_tool() is None
    assert "CUDA Toolkit" in _sanitizer.HOW_TO_GET and _sanitizer.TOOL_ENV in _sanitizer.HOW_TO_GET
    assert "pip install nvidia-cuda-sanitizer-api " in _sanitizer.HOW_TO_GET

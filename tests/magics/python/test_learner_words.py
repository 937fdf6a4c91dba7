"""What a learner on a machine without a GPU reads: one line, once, saying kernels run on the CPU
device; the CPU device's times called "device time (emulated)", not GPU time; compile errors with
their notes in order under the cell's one name, as nvcc prints them."""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import CPU_DEVICE, LOADED

on_cpu_device = pytest.mark.skipif(LOADED is not CPU_DEVICE, reason=(
    "reads what the CPU device reports; this run launches on " + ("nothing" if LOADED is None else LOADED.name)))

LAUNCHES = '''
import numpy as np, xcuda
k = xcuda.compile('extern "C" __global__ void twice(float* y) { y[threadIdx.x] *= 2; }').kernels["twice"]
y = np.ones(32, np.float32)
for _ in range(3):
    k[1, 32](y)
print("result", y[0])
'''


def test_the_first_launch_without_a_gpu_says_where_kernels_run_in_one_line_once():
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(LAUNCHES)], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, XCUDA_CUDA_DRIVER="/nonexistent/libcuda.so.1",
                                             XCUDA_DEVICE="auto"))
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    said = [line for line in lines if line.startswith("xcuda:")]
    assert said == ["xcuda: no NVIDIA GPU here: kernels run on the CPU device (emulated sm_90, slower than a GPU, "
                    "every access checked; %cuda_info says more)"], p.stdout
    assert lines[-1] == "result 8.0"
    assert "install the NVIDIA driver" not in p.stdout + p.stderr


@on_cpu_device
def test_a_profile_on_the_cpu_device_calls_its_times_emulated_device_time(ip, capsys):
    r = ip.run_cell('%%cuda\nextern "C" __global__ void words_k(float* y) { y[blockIdx.x * blockDim.x + threadIdx.x] += 1; }\n')
    assert r.success, r.error_in_exec
    capsys.readouterr()
    r = ip.run_cell("%%cuda_profile\nimport numpy as np\nwords_y = np.zeros(64, np.float32)\n"
                    "words_k[2, 32](words_y)\n")
    assert r.success, r.error_in_exec
    out = capsys.readouterr().out
    assert "Device time (emulated) per kernel: 1 launch" in out, out
    assert "GPU time" not in out and "CTA" not in out, out


@on_cpu_device
def test_timeit_on_the_cpu_device_says_its_time_is_emulated(ip, capsys):
    r = ip.run_cell('%%cuda\nextern "C" __global__ void words_t(float* y) { y[threadIdx.x] += 1; }\n')
    assert r.success, r.error_in_exec
    ip.run_cell("import numpy as np\nimport xcuda\nwords_d = xcuda.to_device(np.zeros(32, np.float32))")
    capsys.readouterr()
    r = ip.run_cell("%cuda_timeit -n 3 -r 2 words_t[1, 32](words_d)")
    assert r.success, r.error_in_exec
    out = capsys.readouterr().out
    assert "device time (emulated) on the CPU device)" in out and "CUDA events" not in out, out


def test_a_compile_error_shows_its_notes_after_it_under_the_cells_name(ip):
    r = ip.run_cell('%%cuda\nextern "C" __global__ void words_e(float* y) {\n    int i = blockIdx.x;\n'
                    '    unsigned j = i + threadIdx;\n    y[j] = 1;\n}\n')
    assert type(r.error_in_exec).__name__ == "CompileError"
    text = str(r.error_in_exec)
    lines = text.splitlines()
    assert lines[0].endswith(': error: no operator "+" matches these operands'), text
    assert lines[1] == "    operand types are: int + const uint3", text
    where = lines[0].split(": error")[0]  # cell_N:3:20
    notes = [line for line in lines if ": note #" in line]
    assert len(notes) == 3 and all(line.startswith(where + ": note #") for line in notes), text
    assert text.index("operand types") < text.index(": note #")
    assert "cell.cu" not in text, text

"""The user's own GPU stack inside the kernel: the kernel runs in the Python its kernelspec
names, so that Python's PyTorch and CuPy import in cells, and one %%cuda kernel launches on
both in one cell. Skips where the kernel sees no GPU or that Python has neither package; with
XCUDA_REQUIRE_INTEROP=1 (the GPU machine's run) a missing package fails instead."""

import os

import pytest

from conftest import execute, stream_text

SAXPY = ('%%cuda\nextern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {\n'
         '    int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
         '    if (i < n) y[i] = a * x[i] + y[i];\n}\n')

BOTH_IN_ONE_CELL = """
import torch, cupy, numpy as np
n = 1 << 20
xt = torch.rand(n, device="cuda"); yt = torch.ones(n, device="cuda")
xc = cupy.random.rand(n, dtype=cupy.float32); yc = cupy.ones(n, dtype=cupy.float32)
expected_t = (2.0 * xt + yt).cpu().numpy(); expected_c = (3.0 * xc + yc).get()
saxpy[(n + 255) // 256, 256](2.0, xt, yt, n)
saxpy[(n + 255) // 256, 256](3.0, xc, yc, n)
torch.cuda.synchronize(); cupy.cuda.runtime.deviceSynchronize()
print(np.allclose(yt.cpu().numpy(), expected_t, rtol=1e-6), np.allclose(yc.get(), expected_c, rtol=1e-6))
"""


def run(kc, code):
    reply, messages = execute(kc, code, timeout=120)
    errors = [m["content"] for m in messages if m["msg_type"] == "error"]
    assert reply["content"]["status"] == "ok", errors
    return stream_text(messages)


def test_torch_and_cupy_of_the_kernels_python_take_one_cell_kernel(kernel):
    km, kc = kernel
    if run(kc, "import xcuda; print(xcuda.driver_available())").strip() != "True":
        pytest.skip("no CUDA device: xcuda.driver_available() is False in the kernel; runs on the GPU machine")
    missing = run(kc, "import importlib.util as u; print(*[m for m in ('torch', 'cupy') if u.find_spec(m) is None])").split()
    if missing:
        message = f"{' and '.join(missing)} not installed in the kernel's Python"
        if os.environ.get("XCUDA_REQUIRE_INTEROP") == "1":
            pytest.fail(message + ", but XCUDA_REQUIRE_INTEROP=1")
        pytest.skip(message)
    run(kc, SAXPY)
    assert run(kc, BOTH_IN_ONE_CELL).strip() == "True True"

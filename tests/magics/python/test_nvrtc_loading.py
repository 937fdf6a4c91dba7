"""NVRTC is loaded on the first compile, not at import: a kernel that never compiles does not
carry it (it was 27 MiB of an idle kernel's resident memory), and a machine without it gets a
clear error from the compile, not an import failure."""
import os
import subprocess
import sys
import textwrap


def run_child(code, **env):
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, **env))
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_nvrtc_is_mapped_only_once_something_compiles():
    out = run_child('''
        import xcuda
        maps = lambda: "libnvrtc" in open("/proc/self/maps").read()
        print("after import", maps())
        xcuda.compile('extern "C" __global__ void k() {}', arch="sm_90")
        print("after compile", maps())
    ''')
    assert "after import False" in out and "after compile True" in out, out


def test_a_missing_nvrtc_is_a_clear_error_and_the_module_stays_usable():
    out = run_child('''
        import xcuda
        for attempt in range(2):
            try:
                xcuda.compile('extern "C" __global__ void k() {}', arch="sm_90")
            except xcuda.CudaError as e:
                print("error:", e)
        print("still usable:", xcuda.DeviceArray.__name__)
    ''', XCUDA_NVRTC="/nonexistent/libnvrtc.so.13")
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 2, out
    assert "NVRTC, CUDA's runtime compiler, was not found: tried /nonexistent/libnvrtc.so.13" in errors[0]
    assert 'pip install "xcuda[cuda13]"' in errors[0] and "pip install nvidia-cuda-nvrtc " in errors[0], errors[0]
    assert "set XCUDA_NVRTC to a libnvrtc.so's full path" in errors[0]
    assert "lib64" not in errors[0]
    assert "still usable: DeviceArray" in out


def test_an_nvrtc_without_cccl_beside_it_still_compiles_cuda_std_headers(tmp_path):
    # A pip wheel's NVRTC (site-packages/nvidia/cu13: lib/ and include/ without cccl/, as in
    # PyTorch's venvs) with a CUDA toolkit installed too: <cuda/std/...> comes from the toolkit.
    import glob

    real = next((p for p in sorted(glob.glob("/usr/local/cuda/lib64/libnvrtc.so.*"))
                 if os.path.basename(p).count(".") == 2), None)
    if real is None or not os.path.isdir("/usr/local/cuda/include/cccl"):
        import pytest

        pytest.skip("needs the CUDA 13 toolkit at /usr/local/cuda (NVRTC and include/cccl)")
    (tmp_path / "lib").mkdir()
    (tmp_path / "include").mkdir()
    with open(real, "rb") as src, open(tmp_path / "lib" / os.path.basename(real), "wb") as dst:
        dst.write(src.read())   # a copy: its realpath must not lead back to the toolkit
    for header in ("cuda_fp16.h", "cuda_fp16.hpp"):
        with open(f"/usr/local/cuda/include/{header}", "rb") as src, open(tmp_path / "include" / header, "wb") as dst:
            dst.write(src.read())
    out = run_child('''
        import xcuda
        m = xcuda.compile("#include <cuda/std/cmath>\\n"
                          'extern "C" __global__ void k(float* y) { y[0] = cuda::std::sqrt(y[0]); }', arch="sm_90")
        print("compiled", sorted(m.kernels))
    ''', XCUDA_NVRTC=str(tmp_path / "lib" / os.path.basename(real)), CUDA_HOME="", CUDA_PATH="")
    assert "compiled ['k']" in out, out

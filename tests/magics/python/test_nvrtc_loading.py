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
    assert "NVRTC, CUDA's runtime compiler, could not be loaded: tried /nonexistent/libnvrtc.so.13" in errors[0]
    assert "set XCUDA_NVRTC to the library's path" in errors[0]
    assert "still usable: DeviceArray" in out

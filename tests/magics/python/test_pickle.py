"""Pickling xcuda.Module, Kernel and KernelTemplate, as Dask does to a function that launches a
notebook's kernel: the round trip into a fresh Python process, without a GPU; then, against the
simulated driver, unpickling where a device is: a CUBIN for another arch is compiled again for the
device through the process's cache, an unpickled kernel launches, a DeviceArray travels by value,
streams and events refuse."""
import json
import os
import pickle
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xcuda
from conftest import SAXPY, requires_sim

TEMPLATE = r'''
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


def in_child(code, blob, env=None):
    """What `code` prints as JSON in a fresh Python given `blob` (pickled bytes) as `blob`."""
    program = "import json, pickle, sys\nimport xcuda\nblob = sys.stdin.buffer.read()\n" + textwrap.dedent(code)
    r = subprocess.run([sys.executable, "-c", program], input=blob, capture_output=True, timeout=120,
                       env=env if env is not None else dict(os.environ))
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout.decode().strip().splitlines()[-1])


def child_has_device():
    return subprocess.run([sys.executable, "-c", "import xcuda, sys; sys.exit(0 if xcuda.device_available() else 1)"],
                          timeout=60).returncode == 0


def test_a_kernel_unpickled_in_another_process_has_its_signature_resources_and_layout(saxpy):
    got = in_child('''
        k = pickle.loads(blob)
        print(json.dumps({"type": type(k).__name__, "signature": k.signature, "lowered": k.lowered_name,
                          "resources": k.resources, "layout": k.parameter_layout}))
    ''', pickle.dumps(saxpy))
    assert got == {"type": "Kernel", "signature": saxpy.signature, "lowered": "saxpy",
                   "resources": saxpy.resources, "layout": saxpy.parameter_layout}


def test_an_unpickled_kernel_runs_on_the_cpu_device_with_the_same_result(saxpy):
    if xcuda.gpu_available() or not child_has_device():
        pytest.skip("checks the CPU device, which runs here only without a GPU")
    got = in_child('''
        import numpy as np
        k = pickle.loads(blob)
        x = np.arange(8, dtype=np.float32); y = np.ones(8, np.float32)
        k[1, 8](2.0, x, y, 8)
        print(json.dumps({"y": y.tolist(), "device": xcuda.get_device()}))
    ''', pickle.dumps(saxpy))
    assert got == {"y": [2.0 * i + 1 for i in range(8)], "device": "cpu"}


def test_a_module_unpickled_without_a_gpu_keeps_its_cubin_ptx_and_arch():
    m = xcuda.compile(SAXPY + "__global__ void cpp_kernel(int* p) { p[0] = 1; }\n", name="twokernels")
    got = in_child('''
        m = pickle.loads(blob)
        print(json.dumps({"kernels": sorted(m.kernels), "arch": m.arch, "cubin": m.cubin.hex(), "ptx": m.ptx,
                          "name": m.name, "cache": m.cache, "options": m.options,
                          "cpp": m.cpp_kernel.lowered_name, "gpu": xcuda.driver_available()}))
    ''', pickle.dumps(m))
    assert got["kernels"] == ["cpp_kernel", "saxpy"]
    assert got["name"] == "twokernels"
    assert got["cpp"] == m.cpp_kernel.lowered_name
    assert got["options"] == m.options
    if not got["gpu"]:
        assert (got["arch"], got["cache"]) == (m.arch, "pickle")
        assert bytes.fromhex(got["cubin"]) == m.cubin and got["ptx"] == m.ptx


def test_a_template_and_one_instantiation_round_trip():
    m = xcuda.compile(TEMPLATE, instantiate=["axpy<float>", "axpy<double>"])
    template, double = m.kernels["axpy"], m.kernels["axpy"]["double"]
    got = in_child('''
        t, k = pickle.loads(blob)
        print(json.dumps({"instantiations": t.instantiations, "float": t["float"].signature,
                          "double": k.signature, "type": type(t).__name__}))
    ''', pickle.dumps((template, double)))
    assert got == {"instantiations": ["float", "double"], "float": template["float"].signature,
                   "double": double.signature, "type": "KernelTemplate"}


def test_a_header_cell_travels_with_the_kernel_that_includes_it(ip):
    assert ip.run_cell("%%cuda_header real_pickle.h\ntypedef float real_p;\n").success
    assert ip.run_cell('%%cuda\n#include "real_pickle.h"\n'
                       'extern "C" __global__ void fill_p(real_p* x, real_p v) { x[0] = v; }\n').success
    fill = ip.user_ns["fill_p"]
    # Without the header's typedef the child could not tell what `v` takes.
    got = in_child('''
        import numpy as np
        k = pickle.loads(blob)
        packed = k._packed_arguments(np.zeros(1, np.float32), 1.5)
        print(json.dumps({"v": packed[1].hex(), "kind": k.parameter_layout[1]["kind"]}))
    ''', pickle.dumps(fill))
    assert got == {"v": struct.pack("<f", 1.5).hex(), "kind": "scalar"}


def test_a_launch_of_an_unpickled_kernel_without_a_gpu_raises_no_device_error(saxpy):
    if child_has_device():
        pytest.skip("kernels launch here, on a GPU or the CPU device (test_dask.py checks the result); ctest's "
                    "magics.python.no-device runs this with XCUDA_DEVICE=none")
    got = in_child('''
        import numpy as np
        k = pickle.loads(blob)
        x = np.ones(8, np.float32)
        try:
            k[1, 8](2.0, x, x.copy(), 8)
        except xcuda.NoDeviceError as e:
            print(json.dumps({"error": "NoDeviceError", "message": str(e)}))
    ''', pickle.dumps(saxpy))
    assert got["error"] == "NoDeviceError" and got["message"]


def test_unpickling_in_the_same_process_gives_an_equal_kernel(saxpy):
    again = pickle.loads(pickle.dumps(saxpy))
    assert again.signature == saxpy.signature and again.resources == saxpy.resources
    assert pickle.loads(pickle.dumps(again)).lowered_name == "saxpy"


def test_a_state_from_another_xcuda_version_says_to_install_the_same_version(saxpy):
    m = xcuda.compile(SAXPY)
    state = m.__getstate__()
    state["version"] = 999
    with pytest.raises(ValueError, match=r"format 999.*same xcuda version"):
        xcuda.Module.__new__(xcuda.Module).__setstate__(state)


# ---- on the simulated driver: unpickling where a device is --------------------------------------

def device_env(compute_capability, tmp_path):
    return dict(os.environ, XCUDA_SIM_COMPUTE_CAPABILITY=compute_capability, XDG_CACHE_HOME=str(tmp_path))


DESCRIBE = '''
    m = pickle.loads(blob)
    print(json.dumps({"arch": m.arch, "cache": m.cache, "resources_arch": m.saxpy.resources["arch"],
                      "signature": m.saxpy.signature}))
'''


@requires_sim
def test_a_cubin_for_another_arch_is_compiled_again_for_the_device_through_the_cache(tmp_path):
    m = xcuda.compile(SAXPY + "// for sm_90\n", arch="sm_90")
    blob = pickle.dumps(m)
    first = in_child(DESCRIBE, blob, device_env("80", tmp_path))
    assert first == {"arch": "sm_80", "cache": "none", "resources_arch": "sm_80", "signature": m.saxpy.signature}
    again = in_child(DESCRIBE, blob, device_env("80", tmp_path))
    assert again["cache"] == "disk"


@requires_sim
def test_a_cubin_for_the_devices_arch_is_loaded_as_it_is(tmp_path):
    m = xcuda.compile(SAXPY, arch="sm_90")
    got = in_child(DESCRIBE, pickle.dumps(m), device_env("90", tmp_path))
    assert (got["arch"], got["cache"]) == ("sm_90", "pickle")


@requires_sim
def test_an_unpickled_kernel_launches_in_the_other_process(tmp_path):
    m = xcuda.compile('extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}\n',
                      arch="compute_90")
    got = in_child('''
        import ctypes, os
        import numpy as np
        k = pickle.loads(blob)
        x = np.ones(64, np.float32)
        k[2, 32](2.0, x, x.copy(), 64)
        last = ctypes.CDLL(os.environ["XCUDA_CUDA_DRIVER"]).xcuda_sim_last_launch
        last.restype = ctypes.c_char_p
        print(json.dumps({"launch": last().decode()}))
    ''', pickle.dumps(m.plain), device_env("90", tmp_path))
    assert got["launch"] == "cuLaunchKernel plain grid=(2,1,1) block=(32,1,1) shared=0"


@requires_sim
def test_a_device_array_pickles_by_value():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = xcuda.to_device(host)
    copy = pickle.loads(pickle.dumps(d))
    assert isinstance(copy, xcuda.DeviceArray) and copy.ptr != d.ptr
    assert copy.shape == (3, 4) and copy.dtype == np.float32
    assert np.array_equal(copy.get(), host)


@pytest.mark.parametrize("make, fix", [(lambda: xcuda.Stream(), r"xcuda\.Stream\(\)"),
                                       (lambda: xcuda.Event(), r"xcuda\.Event\(\)")])
@requires_sim
def test_streams_and_events_refuse_to_pickle_and_say_what_to_do(make, fix):
    with pytest.raises(TypeError, match=r"cannot pickle an xcuda\.(Stream|Event).*" + fix):
        pickle.dumps(make())

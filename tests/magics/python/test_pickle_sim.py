"""Unpickling where a GPU is, against the runtime's simulated libcuda (XCUDA_CUDA_DRIVER; ctest
sets it): a CUBIN for another arch is compiled again for the device through the process's cache,
an unpickled kernel launches, a DeviceArray travels by value, streams and events refuse."""
import os
import pickle

import numpy as np
import pytest

import xcuda
from conftest import SAXPY
from test_pickle import in_child
from test_sim_driver import simulator_loaded

pytestmark = pytest.mark.skipif(not simulator_loaded(),
                                reason="XCUDA_CUDA_DRIVER does not name the simulated driver (ctest sets it)")


def device_env(compute_capability, tmp_path):
    return dict(os.environ, XCUDA_SIM_COMPUTE_CAPABILITY=compute_capability, XDG_CACHE_HOME=str(tmp_path))


DESCRIBE = '''
    m = pickle.loads(blob)
    print(json.dumps({"arch": m.arch, "cache": m.cache, "resources_arch": m.saxpy.resources["arch"],
                      "signature": m.saxpy.signature}))
'''


def test_a_cubin_for_another_arch_is_compiled_again_for_the_device_through_the_cache(tmp_path):
    m = xcuda.compile(SAXPY + "// for sm_90\n", arch="sm_90")
    blob = pickle.dumps(m)
    first = in_child(DESCRIBE, blob, device_env("80", tmp_path))
    assert first == {"arch": "sm_80", "cache": "none", "resources_arch": "sm_80", "signature": m.saxpy.signature}
    again = in_child(DESCRIBE, blob, device_env("80", tmp_path))
    assert again["cache"] == "disk"


def test_a_cubin_for_the_devices_arch_is_loaded_as_it_is(tmp_path):
    m = xcuda.compile(SAXPY, arch="sm_90")
    got = in_child(DESCRIBE, pickle.dumps(m), device_env("90", tmp_path))
    assert (got["arch"], got["cache"]) == ("sm_90", "pickle")


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


def test_a_device_array_pickles_by_value():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = xcuda.to_device(host)
    copy = pickle.loads(pickle.dumps(d))
    assert isinstance(copy, xcuda.DeviceArray) and copy.ptr != d.ptr
    assert copy.shape == (3, 4) and copy.dtype == np.float32
    assert np.array_equal(copy.get(), host)


@pytest.mark.parametrize("make, fix", [(lambda: xcuda.Stream(), r"xcuda\.Stream\(\)"),
                                       (lambda: xcuda.Event(), r"xcuda\.Event\(\)")])
def test_streams_and_events_refuse_to_pickle_and_say_what_to_do(make, fix):
    with pytest.raises(TypeError, match=r"cannot pickle an xcuda\.(Stream|Event).*" + fix):
        pickle.dumps(make())

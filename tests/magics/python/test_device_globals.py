"""Module.get_global and Module.globals: a cell's __constant__/__device__ variables by C++ name.
The names and declarations need no GPU; the values are DeviceArray views of the loaded module
(GPU tests below, simulated-driver tests in test_sim_driver.py)."""
import gc

import numpy as np
import pytest

import xcuda
from conftest import requires_gpu

SOURCE = r'''
__constant__ float coeffs[16];
__device__ int counter;
namespace tables { __device__ float scale[4]; }
template <typename T> __device__ T offset;
extern "C" __global__ void apply(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * coeffs[i % 16] * tables::scale[i % 4] + offset<float>;
        atomicAdd(&counter, 1);
    }
}
'''


@pytest.fixture(scope="module")
def module():
    return xcuda.compile(SOURCE, instantiate=["offset<float>"])


def test_the_globals_are_named_as_the_cell_writes_them(module):
    assert list(module.globals) == ["coeffs", "counter", "tables::scale", "offset<float>"]
    assert module.globals.declarations() == {
        "coeffs": "__constant__ float coeffs[16]",
        "counter": "__device__ int counter",
        "tables::scale": "__device__ float tables::scale[4]",
        "offset<float>": "__device__ float offset<float>",
    }
    assert "tables::scale" in module.globals and "scale" not in module.globals


def test_an_unknown_name_is_a_key_error_listing_the_globals(module):
    with pytest.raises(KeyError, match=r"no __constant__ or __device__ variable `scale`; its variables: coeffs, counter, "
                                       r"tables::scale, offset<float>"):
        module.get_global("scale")


def test_a_template_variable_without_instantiate_gets_a_note_saying_how():
    m = xcuda.compile("template <typename T> __device__ T lut[8];\n")
    assert len(m.globals) == 0
    assert any("--instantiate 'lut<float>'" in note for note in m.notes)
    with pytest.raises(KeyError, match="the cell defines none at namespace scope"):
        m.get_global("lut<float>")


@pytest.mark.skipif(xcuda.driver_available(), reason="a CUDA device is present: the values are readable")
def test_without_gpu_reading_a_global_is_a_no_device_error(module):
    with pytest.raises(xcuda.NoDeviceError):
        module.get_global("coeffs")


@requires_gpu
def test_constant_and_namespaced_and_template_globals_set_before_a_launch_are_what_it_reads(module):
    n = 1 << 12
    x = np.random.default_rng(3).random(n, dtype=np.float32)
    coeffs, scale = np.arange(1, 17, dtype=np.float32), np.float32([0.5, 1, 2, 4])
    module.get_global("coeffs").set(coeffs)
    module.globals["tables::scale"].set(scale)
    offset = module.get_global("offset<float>")
    assert offset.shape == () and offset.dtype == np.float32
    offset.set(0.25)
    module.get_global("counter").set(0)
    y = np.zeros_like(x)
    module.apply[(n + 255) // 256, 256](x, y, n)
    i = np.arange(n)
    assert np.allclose(y, x * coeffs[i % 16] * scale[i % 4] + np.float32(0.25))
    assert np.array_equal(module.get_global("coeffs").get(), coeffs)


@requires_gpu
def test_a_device_counter_incremented_by_a_kernel_is_read_back(module):
    counter = module.get_global("counter")
    assert counter.shape == () and counter.dtype == np.int32
    counter.set(0)
    x, y = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    module.apply[4, 256](x, y, 1000)
    module.apply[4, 256](x, y, 1000)
    assert int(counter.get()) == 2000


@requires_gpu
def test_a_view_keeps_its_module_loaded_after_the_module_object_is_gone():
    m = xcuda.compile(SOURCE.replace("counter", "kept_counter"), instantiate=["offset<float>"], no_cache=True)
    counter = m.get_global("kept_counter")
    counter.set(7)
    apply = m.apply
    del m
    gc.collect()
    x = np.ones(10, np.float32)
    apply[1, 32](x, np.zeros_like(x), 10)
    assert int(counter.get()) == 17


@requires_gpu
def test_vector_and_struct_globals_have_component_axes_and_bytes():
    m = xcuda.compile(r'''
struct P { int a; float b; double c; };
__device__ float2 points[4];
__device__ P params;
extern "C" __global__ void read(float* out) {
    out[0] = points[3].y;
    out[1] = params.b;
}
''')
    points = m.get_global("points")
    assert points.shape == (4, 2) and points.dtype == np.float32
    points.set(np.arange(8, dtype=np.float32).reshape(4, 2))
    params = m.get_global("params")
    assert params.dtype == np.uint8 and params.shape == (16,)
    params.set(np.frombuffer(np.array([(1, 2.5, 0.0)], dtype=[("a", "<i4"), ("b", "<f4"), ("c", "<f8")]).tobytes(),
                             np.uint8))
    out = np.zeros(2, np.float32)
    m.read[1, 1](out)
    assert out.tolist() == [7.0, 2.5]

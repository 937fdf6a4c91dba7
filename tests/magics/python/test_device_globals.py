"""Module.get_global and Module.globals: a cell's __constant__/__device__ variables by C++ name.
The names and declarations need no GPU; the values are DeviceArray views of the loaded module
(GPU tests below, then the simulated driver's, which checks shapes, copies and lifetimes on CI)."""
import collections.abc
import ctypes
import gc

import numpy as np
import pytest

import xcuda
from conftest import SIM, requires_sim, requires_no_device, requires_kernels

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


@requires_no_device
def test_without_gpu_reading_a_global_is_a_no_device_error(module):
    with pytest.raises(xcuda.NoDeviceError):
        module.get_global("coeffs")


@requires_kernels
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


@requires_kernels
def test_a_device_counter_incremented_by_a_kernel_is_read_back(module):
    counter = module.get_global("counter")
    assert counter.shape == () and counter.dtype == np.int32
    counter.set(0)
    x, y = np.ones(1000, np.float32), np.zeros(1000, np.float32)
    module.apply[4, 256](x, y, 1000)
    module.apply[4, 256](x, y, 1000)
    assert int(counter.get()) == 2000


@requires_kernels
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


@requires_kernels
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


# ---- on the simulated driver ----------------------------------------------------------------------

SIM_GLOBALS = r'''
#define N 5
__constant__ float coeffs[16];
__device__ int counter;
__device__ float2 v[4];
__device__ int by_macro[N];
__device__ float* where;
struct P { int a; float b; };
__device__ P params;
namespace ns { __device__ double table[3]; }
template <typename T> __device__ T lut[8];
extern "C" __global__ void use(float* y) { y[0] = coeffs[0] + counter + ns::table[0] + lut<float>[0]; }
'''


@pytest.fixture(scope="module")
def with_globals():
    return xcuda.compile(SIM_GLOBALS, arch="compute_90", instantiate=["lut<float>"])


@requires_sim
def test_globals_are_device_arrays_shaped_from_their_declarations(with_globals):
    m = with_globals
    expected = {"coeffs": ((16,), np.float32), "counter": ((), np.int32), "v": ((4, 2), np.float32),
                "by_macro": ((5,), np.int32), "where": ((), np.uint64), "params": ((8,), np.uint8),
                "ns::table": ((3,), np.float64), "lut<float>": ((8,), np.float32)}
    assert list(m.globals) == list(expected)
    for name, (shape, dtype) in expected.items():
        g = m.get_global(name)
        assert isinstance(g, xcuda.DeviceArray)
        assert (g.shape, g.dtype) == (shape, np.dtype(dtype)), name
    assert m.get_global("lut< float >").shape == (8,)
    assert m.globals.declarations()["v"] == "__device__ float2 v[4]"


@requires_sim
def test_a_global_is_written_with_set_and_read_with_get_in_place(with_globals):
    coeffs = with_globals.get_global("coeffs")
    coeffs.set(np.arange(16, dtype=np.float32))
    assert np.array_equal(with_globals.globals["coeffs"].get(), np.arange(16, dtype=np.float32))
    assert with_globals.globals["coeffs"].ptr == coeffs.ptr   # a view, not a copy
    counter = with_globals.get_global("counter")
    counter.set(41)
    assert int(counter.get()) == 41
    v = with_globals.get_global("v")
    v.set([1.5, 2.5])   # broadcast over the 4 float2s
    assert np.array_equal(v.get(), np.tile(np.float32([1.5, 2.5]), (4, 1)))
    with pytest.raises(TypeError, match=r"cannot store float64 values in a int32 DeviceArray; pass int32 data"):
        counter.set(1.5)
    with pytest.raises(ValueError, match=r"an array of shape \(3,\) cannot fill this DeviceArray of shape \(16,\)"):
        coeffs.set(np.ones(3, np.float32))


@requires_sim
def test_an_unknown_global_is_a_key_error_listing_the_ones_there_are(with_globals):
    with pytest.raises(KeyError, match=r"no __constant__ or __device__ variable `table`; its variables: coeffs, "
                                       r"counter, v, by_macro, where, params, ns::table, lut<float>"):
        with_globals.get_global("table")
    with pytest.raises(KeyError, match="`lut<double>`"):
        with_globals.globals["lut<double>"]
    assert "table" not in with_globals.globals and "ns::table" in with_globals.globals
    assert with_globals.globals.get("table") is None


@requires_sim
def test_the_globals_mapping_lists_names_and_values(with_globals):
    g = with_globals.globals
    assert isinstance(g, collections.abc.Mapping) and len(g) == 8
    assert [k for k, _ in g.items()] == g.keys()
    assert all(isinstance(a, xcuda.DeviceArray) for a in g.values())
    assert repr(g).startswith("<xcuda.ModuleGlobals: __constant__ float coeffs[16], __device__ int counter")


@requires_sim
def test_a_global_view_keeps_its_module_loaded():
    loaded = ctypes.CDLL(SIM).xcuda_sim_modules_loaded
    m = xcuda.compile('__device__ int kept_alive[4];\nextern "C" __global__ void plain(float* y) {}\n',
                      arch="compute_90", no_cache=True)
    g = m.get_global("kept_alive")
    before = loaded()
    g.set([1, 2, 3, 4])
    del m
    gc.collect()
    assert loaded() == before, "the module was unloaded while a view of its memory was alive"
    assert np.array_equal(g.get(), [1, 2, 3, 4])
    del g
    gc.collect()
    assert loaded() == before - 1

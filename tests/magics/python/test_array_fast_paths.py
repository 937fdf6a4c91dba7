"""The launch path's shortcut for CuPy arrays and torch tensors (array_protocols'
read_known_array): it must give what __cuda_array_interface__ gives, and every refusal must
stay the generic path's TypeError naming the parameter.

Without a GPU the dispatch is checked in a child process against the simulated libcuda, with
stand-in `cupy`/`torch` modules laid out as the real ones (the child keeps them out of this
process's sys.modules, where other tests look for the real libraries). With a GPU and the real
CuPy/PyTorch installed, the GPU tests check results."""
import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xcuda

from conftest import requires_kernels


def simulator_path():
    """XCUDA_CUDA_DRIVER when ctest sets it, else the simulator of the build tree whose xcuda
    package (BUILD/python/xcuda) this is."""
    env = os.environ.get("XCUDA_CUDA_DRIVER", "")
    if env:
        return env
    built = pathlib.Path(xcuda.__file__).resolve().parents[2] / "tests" / "cuda-runtime" / "libxcuda-sim-cuda.so"
    return str(built) if built.exists() else ""


SIM = simulator_path()
needs_sim = pytest.mark.skipif(not SIM, reason="the simulated libcuda (libxcuda-sim-cuda.so) is not built")

# Stand-ins shaped like CuPy 13+/PyTorch where xcuda reads them; each counts CAI reads so a test
# can tell the shortcut from the generic path.
FAKES = r'''
import sys, types
import numpy as np
import xcuda

cai_reads = {"cupy": 0, "torch": 0}

def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m

class MemoryPointer:
    def __init__(self, ptr):
        self.ptr = ptr

class CupyStream:
    def __init__(self, ptr):
        self.ptr = ptr

current = {"stream": CupyStream(0)}

class _ndarray_base:
    """A 1-d view of an xcuda.DeviceArray, `step` elements apart."""
    def __init__(self, dev, step=1):
        self._dev, self._step = dev, step
    data = property(lambda self: MemoryPointer(self._dev.ptr))
    dtype = property(lambda self: self._dev.dtype)
    size = property(lambda self: len(range(0, self._dev.size, self._step)))
    _c_contiguous = property(lambda self: self._step == 1 or self.size <= 1)

    @property
    def __cuda_array_interface__(self):
        cai_reads["cupy"] += 1
        s = current["stream"].ptr or 1
        return {"shape": (self.size,), "typestr": self.dtype.str, "version": 3, "stream": s,
                "strides": None if self._c_contiguous else (self._step * self.dtype.itemsize,),
                "data": (self.data.ptr if self.size else 0, False)}

class ndarray(_ndarray_base):
    pass
ndarray.__module__ = "cupy"

module("cupy", ndarray=ndarray)
module("cupy._core")
module("cupy._core.core", _ndarray_base=_ndarray_base, ndarray=ndarray)
module("cupy._util", CUDA_ARRAY_INTERFACE_EXPORT_VERSION=3)
module("cupy.cuda")
module("cupy.cuda.stream", get_current_stream=lambda: current["stream"])
module("cupy_backends")
module("cupy_backends.cuda")
module("cupy_backends.cuda.stream", get_default_stream_ptr=lambda: 1)

class dtype:
    def __init__(self, name, typestr):
        self.name, self.typestr = name, typestr
torch_dtypes = {n: dtype(n, t) for n, t in [("float32", "<f4"), ("float64", "<f8"), ("int32", "<i4"),
                                             ("bfloat16", None)]}
strided = object()

class Tensor:
    def __init__(self, dev, dt, cuda=True, contiguous=True, requires_grad=False):
        self._dev, self.dtype, self.is_cuda = dev, torch_dtypes[dt], cuda
        self._contiguous, self.requires_grad, self.layout = contiguous, requires_grad, strided
    def is_contiguous(self):
        return self._contiguous
    def data_ptr(self):
        return self._dev.ptr
    @property
    def __cuda_array_interface__(self):
        cai_reads["torch"] += 1
        if not self.is_cuda:
            raise AttributeError("Can't get __cuda_array_interface__ on non-CUDA tensor type")
        if self.requires_grad:
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad")
        if self.dtype.typestr is None:
            raise TypeError("dtype bfloat16 is not supported by __cuda_array_interface__")
        n = self._dev.size
        return {"typestr": self.dtype.typestr, "shape": (n,), "data": (self._dev.ptr, False), "version": 2,
                "strides": None if self._contiguous else (2 * int(self.dtype.typestr[2:]),)}
    def __dlpack_device__(self):
        return (2, 0) if self.is_cuda else (1, 0)
    def __dlpack__(self, stream=None):
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")

Tensor.__module__ = "torch"
module("torch", Tensor=Tensor, strided=strided, **torch_dtypes)

k = xcuda.compile(r"""
extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}
""", arch="compute_90").kernels["plain"]

def message(*args):
    """The TypeError a launch of `k` with `args` raises."""
    try:
        k[1, 32](*args)
    except TypeError as e:
        return str(e)
    raise AssertionError("no TypeError")
'''


def run_with_fakes(body):
    env = dict(os.environ, XCUDA_CUDA_DRIVER=SIM)
    code = FAKES + textwrap.dedent(body)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@needs_sim
def test_cupy_array_skips_the_cai_dict_and_launches():
    out = run_with_fakes('''
        x = ndarray(xcuda.zeros(8, np.float32))
        for _ in range(3):
            k[1, 32](2.0, x, x, 8)
        xcuda.synchronize()
        print("reads", cai_reads["cupy"])
    ''')
    assert "reads 0" in out


@needs_sim
def test_cupy_refusals_are_the_generic_paths_type_errors():
    out = run_with_fakes('''
        f32 = xcuda.zeros(8, np.float32)
        m = message(2.0, ndarray(xcuda.zeros(8, np.float64)), f32, 8)
        assert m == "argument `x` expects const float*: got a float64 array; pass x.astype(cupy.float32)", m
        m = message(2.0, f32, ndarray(f32, step=2), 8)
        assert m.startswith("argument `y` (float*) got a non-contiguous device array: pass a contiguous copy"), m
        assert cai_reads["cupy"] == 0
        print("ok")
    ''')
    assert "ok" in out


@needs_sim
def test_cupy_stream_is_waited_for_like_the_cai_stream():
    # A current CuPy stream other than the launch stream: the launch waits for it, as the CAI's
    # v3 stream makes the generic path do; a bogus handle therefore reaches the driver.
    out = run_with_fakes('''
        s = xcuda.Stream()
        current["stream"] = CupyStream(s.handle)
        x = ndarray(xcuda.zeros(8, np.float32))
        k[1, 32](2.0, x, x, 8)
        k[1, 32, 0, s](2.0, x, x, 8)
        xcuda.synchronize()
        print("reads", cai_reads["cupy"])
    ''')
    assert "reads 0" in out


# cupy.cuda.stream's Cython C-API table, as CuPy exports it: capsules named by C signature.
CAPI = r'''
import ctypes
python_calls = {"n": 0}
capi_calls = {"n": 0}
def python_get_current_stream():
    python_calls["n"] += 1
    return current["stream"]
sys.modules["cupy.cuda.stream"].get_current_stream = python_get_current_stream
def capi_get_current_stream_ptr():
    capi_calls["n"] += 1
    return current["stream"].ptr
callback = ctypes.CFUNCTYPE(ctypes.c_ssize_t)(capi_get_current_stream_ptr)
new_capsule = ctypes.pythonapi.PyCapsule_New
new_capsule.restype, new_capsule.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
def export(signature):  # the capsule keeps a pointer to its name: `signature` must outlive it
    capsule = new_capsule(ctypes.cast(callback, ctypes.c_void_p), signature, None)
    sys.modules["cupy.cuda.stream"].__pyx_capi__ = {"get_current_stream_ptr": capsule}
'''


@needs_sim
@pytest.mark.parametrize("signature, expect", [(b"intptr_t (void)", "capi"), (b"int (void)", "python")])
def test_cupy_current_stream_comes_from_its_c_api_when_the_signature_matches(signature, expect):
    # What CuPy's own CAI calls, without a Python call and a Stream object per launch; any other
    # signature is not trusted and the Python function is called as before.
    out = run_with_fakes(CAPI + textwrap.dedent(f'''
        NAME = {signature!r}
        export(NAME)
        s = xcuda.Stream()
        current["stream"] = CupyStream(s.handle)
        x = ndarray(xcuda.zeros(8, np.float32))
        for _ in range(3):
            k[1, 32](2.0, x, x, 8)
        xcuda.synchronize()
        print("capi", capi_calls["n"], "python", python_calls["n"], "reads", cai_reads["cupy"])
    '''))
    want = "capi 3 python 0" if expect == "capi" else "capi 0 python 3"
    assert f"{want} reads 0" in out, out


@needs_sim
def test_cupy_subclass_overriding_the_cai_keeps_it():
    out = run_with_fakes('''
        class Odd(ndarray):
            @property
            def __cuda_array_interface__(self):
                cai_reads["cupy"] += 100
                return _ndarray_base.__cuda_array_interface__.fget(self)
        k[1, 32](2.0, Odd(xcuda.zeros(8, np.float32)), ndarray(xcuda.zeros(8, np.float32)), 8)
        print("reads", cai_reads["cupy"])
    ''')
    assert "reads 101" in out  # the override, and the base property it calls; none for the plain array


@needs_sim
def test_torch_tensor_skips_the_cai_and_refusals_are_unchanged():
    out = run_with_fakes('''
        f32 = xcuda.zeros(8, np.float32)
        t = Tensor(f32, "float32")
        k[1, 32](2.0, t, t, 8)
        xcuda.synchronize()
        assert cai_reads["torch"] == 0, cai_reads
        m = message(2.0, Tensor(xcuda.zeros(8, np.int32), "int32"), t, 8)
        assert m == "argument `x` expects const float*: got a int32 array; pass x.to(torch.float32)", m
        m = message(2.0, t, Tensor(f32, "float32", contiguous=False), 8)
        assert "non-contiguous device array" in m and m.startswith("argument `y` (float*)"), m
        assert cai_reads["torch"] == 0, cai_reads
        m = message(2.0, Tensor(f32, "float32", cuda=False), t, 8)
        assert m.startswith("argument `x` (const float*) got a tensor in host memory (DLPack device type 1)"), m
        try:
            k[1, 32](2.0, Tensor(f32, "float32", requires_grad=True), t, 8)
        except RuntimeError as e:
            assert "require gradient" in str(e), e
        else:
            raise AssertionError("requires_grad accepted")
        print("ok")
    ''')
    assert "ok" in out


@needs_sim
def test_kernel_config_is_read_again_when_it_can_have_changed():
    # kernel[config] reuses the last launcher for identical immutable configs only.
    out = run_with_fakes('''
        b = xcuda.compile('extern "C" __global__ void bounded(float* y) {}', arch="compute_90").kernels["bounded"]
        y = xcuda.zeros(4, np.float32)
        block = [256]
        b[1, block](y)
        block[0] = 512
        try:
            b[1, block](y)
        except xcuda.LaunchError:
            pass
        else:
            raise AssertionError("the changed block list was not read again")
        config = (1, 256)
        assert "bounded" in repr(b[config]) and "plain" in repr(k[config])
        s1, s2 = xcuda.Stream(), xcuda.Stream()
        b[1, 256, 0, s1](y)
        b[1, 256, 0, s2](y)
        b[1, 256, 0, s1](y)
        xcuda.synchronize()
        print("ok")
    ''')
    assert "ok" in out


def test_unknown_objects_still_get_the_generic_type_error(saxpy):
    class Nothing:
        pass
    with pytest.raises(TypeError, match=r"argument `x` \(const float\*\) got Nothing: pass a numpy array"):
        saxpy[1, 32](2.0, Nothing(), np.zeros(4, np.float32), 4)


# ---- GPU: the real CuPy and PyTorch (the bench machine's Python 3.12 venv)

SAXPY3 = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + y[i];
}
'''
N = 1000


def need(name):
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed in this Python")
    return __import__(name)


@pytest.fixture(scope="module")
def saxpy3():
    return xcuda.compile(SAXPY3).kernels["saxpy"]


def host_inputs():
    rng = np.random.default_rng(1)
    return rng.standard_normal(N, dtype=np.float32), rng.standard_normal(N, dtype=np.float32)


def message(call):
    with pytest.raises(TypeError) as info:
        call()
    return str(info.value)


@requires_kernels
def test_cupy_saxpy_through_the_fast_path(saxpy3):
    cp = need("cupy")
    xh, yh = host_inputs()
    x, y, out = cp.asarray(xh), cp.asarray(yh), cp.full(N, cp.nan, cp.float32)
    saxpy3[(N + 255) // 256, 256](x, y, out, N)
    np.testing.assert_allclose(cp.asnumpy(out), 2 * xh + yh, rtol=1e-6)
    m = message(lambda: saxpy3[4, 256](x.astype(cp.float64), y, out, N))
    assert m.startswith("argument `x` expects const float*: got a float64 array; pass x.astype(cupy.float32)")
    m = message(lambda: saxpy3[4, 256](x, y, cp.zeros(2 * N, cp.float32)[::2], N))
    assert m.startswith("argument `out` (float*) got a non-contiguous device array")


@requires_kernels
def test_cupy_array_on_a_non_default_stream(saxpy3):
    cp = need("cupy")
    xh, yh = host_inputs()
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        x, y = cp.asarray(xh), cp.asarray(yh)
        out = cp.full(N, cp.nan, cp.float32)
        # launched on xcuda's default stream: it must wait for `s`, where the inputs are written
        saxpy3[(N + 255) // 256, 256](x, y, out, N)
    xcuda.synchronize()
    np.testing.assert_allclose(cp.asnumpy(out), 2 * xh + yh, rtol=1e-6)


@requires_kernels
def test_torch_saxpy_through_the_fast_path(saxpy3):
    torch = need("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    xh, yh = host_inputs()
    x, y = torch.from_numpy(xh).cuda(), torch.from_numpy(yh).cuda()
    out = torch.full((N,), float("nan"), device="cuda")
    torch.cuda.synchronize()
    saxpy3[(N + 255) // 256, 256](x, y, out, N)
    xcuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), 2 * xh + yh, rtol=1e-6)
    m = message(lambda: saxpy3[4, 256](x.to(torch.int32), y, out, N))
    assert m.startswith("argument `x` expects const float*: got a int32 array; pass x.to(torch.float32)")
    m = message(lambda: saxpy3[4, 256](x, torch.zeros(2 * N, device="cuda")[::2], out, N))
    assert m.startswith("argument `y` (const float*) got a non-contiguous device array")
    m = message(lambda: saxpy3[4, 256](x.cpu(), y, out, N))
    assert m.startswith("argument `x` (const float*) got a tensor in host memory")


def test_installed_cupy_exports_the_current_stream_function_xcuda_calls():
    # When this fails, CuPy changed the C function its own CAI calls: launches still work (the
    # Python get_current_stream is called instead) but pay for it; see array_protocols.cpp.
    cp = need("cupy")
    import ctypes
    capsule = cp.cuda.stream.__pyx_capi__["get_current_stream_ptr"]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    assert get_name(capsule) == b"intptr_t (void)"

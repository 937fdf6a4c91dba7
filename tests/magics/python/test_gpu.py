"""GPU tests: skipped, with the reason, where no CUDA device is usable. They need numpy only;
CuPy and PyTorch tests skip when those are not installed."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import xcuda
from conftest import SAXPY, requires_gpu

pytestmark = requires_gpu

HERE = os.path.dirname(os.path.abspath(__file__))


def run_child(code, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [env.get("PYTHONPATH", ""), HERE] if p)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env)


def data(n=1 << 16):
    rng = np.random.default_rng(7)
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


def test_saxpy_on_numpy_copies_the_result_back(saxpy):
    x, y = data()
    expected = 2.0 * x + y
    x_before = x.copy()
    saxpy[(x.size + 255) // 256, 256](2.0, x, y, x.size)
    assert np.allclose(y, expected)
    assert np.array_equal(x, x_before)


@pytest.mark.parametrize("n", [(1 << 18) + 1, (1 << 20) + 3, 5 * (1 << 20) + 7])
def test_large_numpy_arguments_round_trip_through_the_pinned_pipeline(saxpy, n):
    # Over 1 MiB an array is staged through pinned chunks on several threads: odd sizes end in a
    # partial chunk, and the same arguments again reuse the kept pinned memory.
    x, y = data(n)
    x_before = x.copy()
    for a in (2.0, 3.0):
        expected = a * x + y
        saxpy[(n + 255) // 256, 256](a, x, y, n)
        assert np.allclose(y, expected)
    assert np.array_equal(x, x_before)


def test_const_pointer_is_not_copied_back(saxpy):
    x, y = data()
    x.flags.writeable = False  # a copy back into x would fail
    saxpy[(x.size + 255) // 256, 256](2.0, x, y, x.size)


def test_keyword_launch(saxpy):
    x, y = data()
    expected = 3.0 * x + y
    saxpy(3.0, x, y, x.size, grid=(x.size + 127) // 128, block=(128, 1, 1))
    assert np.allclose(y, expected)


def test_saxpy_on_device_arrays(saxpy):
    x, y = data()
    dx, dy = xcuda.to_device(x), xcuda.to_device(y)
    assert dx.shape == x.shape and dx.dtype == np.float32 and dx.nbytes == x.nbytes
    saxpy[(x.size + 255) // 256, 256](2.0, dx, dy, x.size)
    assert np.allclose(dy.get(), 2.0 * x + y)
    assert np.array_equal(xcuda.zeros((3, 4), np.int32).get(), np.zeros((3, 4), np.int32))
    assert xcuda.empty(10, "float64").size == 10


def test_saxpy_on_cupy_arrays(saxpy):
    cp = pytest.importorskip("cupy")
    x, y = data()
    cx, cy = cp.asarray(x), cp.asarray(y)
    saxpy[(x.size + 255) // 256, 256](2.0, cx, cy, x.size)
    assert np.allclose(cp.asnumpy(cy), 2.0 * x + y)
    with pytest.raises(TypeError, match=r"astype\(cupy.float32\)"):
        saxpy[1, 32](2.0, cx.astype(cp.float64), cy, 4)
    # DeviceArray through CAI into CuPy, zero-copy.
    d = xcuda.to_device(x)
    assert np.array_equal(cp.asnumpy(cp.asarray(d)), x)


def test_saxpy_on_torch_tensors_through_cai_and_dlpack(saxpy):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    x, y = data()
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    saxpy[(x.size + 255) // 256, 256](2.0, tx, ty, x.size)
    assert np.allclose(ty.cpu().numpy(), 2.0 * x + y)

    class DLPackOnly:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    ty2 = torch.from_numpy(y).cuda()
    saxpy[(x.size + 255) // 256, 256](2.0, DLPackOnly(tx), DLPackOnly(ty2), x.size)
    assert np.allclose(ty2.cpu().numpy(), 2.0 * x + y)
    with pytest.raises(TypeError, match=r"to\(torch.float32\)"):
        saxpy[1, 32](2.0, tx.double(), ty, 4)
    # Both directions of DLPack with DeviceArray.
    d = xcuda.from_dlpack(tx)
    assert d.shape == (x.size,) and np.array_equal(d.get(), x)
    back = torch.from_dlpack(xcuda.to_device(y))
    assert np.array_equal(back.cpu().numpy(), y)


def test_streams_and_events(saxpy):
    x, y = data()
    dx, dy = xcuda.to_device(x), xcuda.to_device(y)
    s = xcuda.Stream()
    start, end = xcuda.Event(), xcuda.Event()
    start.record(s)
    saxpy[(x.size + 255) // 256, 256, 0, s](2.0, dx, dy, x.size)
    end.record(s)
    end.synchronize()
    s.synchronize()
    assert s.query() and end.query()
    assert start.elapsed_time(end) >= 0.0
    assert np.allclose(dy.get(), 2.0 * x + y)


def test_attributes_and_occupancy_come_from_the_driver(saxpy):
    a = saxpy.attributes
    assert a["num_regs"] == saxpy.resources["registers"]
    assert a["max_threads_per_block"] >= 256
    occ = saxpy.occupancy(256)
    assert 1 <= occ["active_blocks_per_sm"] <= 32
    assert 0 < occ["occupancy"] <= 1.0
    assert xcuda.Device(0).properties["multiprocessor_count"] > 0


def test_too_large_block_is_a_launch_error_that_is_not_sticky(saxpy):
    x, y = data()
    with pytest.raises(xcuda.LaunchError):
        saxpy[1, 2048](2.0, x, y, x.size)
    saxpy[(x.size + 255) // 256, 256](2.0, x, y, x.size)  # the context still works
    xcuda.synchronize()


def test_out_of_memory_recovers():
    with pytest.raises(xcuda.OutOfMemoryError) as info:
        xcuda.empty((1 << 50,), np.uint8)
    assert isinstance(info.value, MemoryError)
    assert xcuda.empty((1 << 20,), np.uint8).nbytes == 1 << 20


def test_invalid_device_index_names_the_range():
    n = xcuda.device_count()
    with pytest.raises(ValueError, match="valid"):
        xcuda.Device(n)
    with pytest.raises(ValueError, match="valid"):
        xcuda.set_device(n)


def test_device_printf_appears_after_synchronize():
    r = run_child('''
        import xcuda
        m = xcuda.compile('extern "C" __global__ void hello(int n) { printf("hello %d from %d\\\\n", n, threadIdx.x); }')
        m.hello[1, 4](7)
        xcuda.synchronize()
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("hello 7 from") == 4


def test_standard_headers_printf_assert_and_cmath_on_the_device():
    # A kernel written as the CUDA samples write it: <cstdio>, <cassert>, <cmath>, <cstdint>,
    # <limits> from the kernel's built-in headers. The failing assert is last: it loses the context.
    r = run_child(r'''
        import numpy as np, xcuda
        m = xcuda.compile(r"""
        #include <cassert>
        #include <cmath>
        #include <cstdint>
        #include <cstdio>
        #include <limits>
        extern "C" __global__ void roots(const float* x, float* y, std::uint32_t n) {
            std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
            assert(i < n + 64);
            if (i >= n) return;
            y[i] = std::sqrt(x[i]) + sqrtf(fabs(x[i])) + std::pow(x[i], 2.0f)
                 + (x[i] < std::numeric_limits<float>::max() ? 1.0f : 0.0f);
            if (i == 3) printf("roots: y[%u] = %.3f\n", i, y[i]);
        }
        extern "C" __global__ void checked(int n) { int i = threadIdx.x; assert(i < n); }
        """)
        x = np.arange(100, dtype=np.float32)
        y = np.zeros_like(x)
        m.roots[1, 128](x, y, x.size)
        xcuda.synchronize()
        expected = 2 * np.sqrt(x) + x * x + 1
        print("VALUES", np.allclose(y, expected, rtol=1e-5), flush=True)
        m.checked[1, 4](2)
        try:
            xcuda.synchronize()
            print("NO ERROR")
        except xcuda.ContextLostError as e:
            print("LOST", "checked" in str(e))
    ''')
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "VALUES True" in r.stdout
    assert "roots: y[3] = %.3f" % (2 * 3 ** 0.5 + 9 + 1) in r.stdout
    assert "LOST True" in r.stdout
    assert "Assertion `i < n` failed" in out


def test_out_of_bounds_is_context_lost_once_then_fails_fast():
    r = run_child('''
        import time, numpy as np, xcuda
        keep = {"state": 42}
        m = xcuda.compile('extern "C" __global__ void oob(float* p) { p[1ull << 40] = 1.0f; }')
        d = xcuda.zeros(4, np.float32)
        m.oob[1, 1](d)
        try:
            xcuda.synchronize()
            print("NO ERROR")
        except xcuda.ContextLostError as e:
            print("LOST", "restart" in str(e), "oob" in str(e))
        t = time.perf_counter()
        try:
            xcuda.zeros(4, np.float32)
        except xcuda.ContextLostError:
            print("FAST", time.perf_counter() - t < 0.1)
        print("STATE", keep["state"])
    ''')
    assert r.returncode == 0, r.stderr
    assert "LOST True True" in r.stdout
    assert "FAST True" in r.stdout
    assert "STATE 42" in r.stdout


def test_ctrl_c_while_waiting_on_a_spinning_kernel_raises_keyboard_interrupt():
    r = run_child('''
        import os, signal, threading, time, xcuda
        m = xcuda.compile('extern "C" __global__ void spin(long long cycles) {'
                          ' long long t = clock64(); while (clock64() - t < cycles) {} }')
        m.spin[1, 1](4_000_000_000)   # a few seconds
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.perf_counter()
        try:
            xcuda.synchronize()
            print("NOT INTERRUPTED")
        except KeyboardInterrupt:
            print("INTERRUPTED", round(time.perf_counter() - t, 2))
    ''')
    assert "INTERRUPTED" in r.stdout, r.stdout + r.stderr
    assert float(r.stdout.split("INTERRUPTED")[1].split()[0]) < 1.5


def test_host_time_per_launch(saxpy, capsys):
    x, y = data(1024)
    dx, dy = xcuda.to_device(x), xcuda.to_device(y)
    launch = saxpy[4, 256]
    for _ in range(300):
        launch(2.0, dx, dy, 1024)
    xcuda.synchronize()
    runs = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(5000):
            launch(2.0, dx, dy, 1024)
        runs.append((time.perf_counter() - t) / 5000)
        xcuda.synchronize()
    median = sorted(runs)[len(runs) // 2]
    with capsys.disabled():
        print(f"\nxcuda host time per launch (float, 2 DeviceArrays, int): median {median * 1e6:.2f} us")
    assert median < 50e-6


def test_post_cell_sync_reports_errors_in_the_cell():
    pytest.importorskip("IPython")
    r = run_child('''
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_line_magic("load_ext", "xcuda")
        ip.run_cell('%%cuda\\nextern "C" __global__ void hello_c(int n) { printf("cell printf %d\\\\n", n); }\\n')
        r = ip.run_cell("hello_c[1, 2](5)")
        # Device printf sits in C stdio's buffer once the GPU has run it: flushing it here puts
        # it before the marker only if the cell synchronised before it ended.
        import ctypes, sys
        sys.stdout.flush()
        ctypes.CDLL(None).fflush(None)
        print("SUCCESS", r.success, flush=True)
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("cell printf 5") == 2
    # The printf lines come before the cell ends (the post_run_cell sync), not at exit.
    assert r.stdout.index("cell printf 5") < r.stdout.index("SUCCESS True")


def test_device_array_repr_names_shape_dtype_and_device():
    # It crashed the GPU machine's Python 3.12 build once (ostream in the module): printing an
    # array is the first thing a notebook does with it.
    d = xcuda.to_device(np.ones((2, 3), np.float32))
    assert repr(d) == "xcuda.DeviceArray(shape=(2, 3), dtype=float32, device=0)"
    assert str(xcuda.to_device(np.ones(4, np.int32))) == "xcuda.DeviceArray(shape=(4,), dtype=int32, device=0)"


def test_devices_and_device_arrays_show_as_html_tables():
    html = xcuda.Device(0)._repr_html_()
    assert "<table" in html and "compute capability" in html and xcuda.Device(0).name in html
    a = xcuda.to_device(np.zeros((4, 3), np.float32))
    html = a._repr_html_()
    assert "(4, 3)" in html and "float32" in html and "48 B" in html

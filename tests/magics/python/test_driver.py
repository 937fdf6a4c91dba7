"""Launches, memory, streams and faults through the driver this process loaded (conftest.py):
a GPU's libcuda, or the runtime's simulated one on CI (ctest's magics.python.sim-driver sets
XCUDA_CUDA_DRIVER). A check both can make is written once over the `driver` fixture; what only a
GPU shows (results, CuPy/PyTorch, device printf) is marked requires_gpu, what only the simulator
records (its last launch, its allocation counts) requires_sim.

The simulator runs no kernel code: it recognises kernels by name ("spin" keeps its stream busy
until released, "wild" faults with an illegal address, "bounded" allows 256 threads per block,
"add_bytes" does y += x) and its device memory is host memory. Modules for it are compiled to PTX
(driver.arch) because it finds kernels by name in the image text. The kernels below have real
bodies too, so a GPU does what the simulator stands in for. CuPy and PyTorch tests skip when
those are not installed."""
import ctypes
import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import xcuda
from conftest import SAXPY, SIM, requires_gpu, requires_sim, requires_kernels

HERE = os.path.dirname(os.path.abspath(__file__))

SOURCE = SAXPY + r'''
extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}
extern "C" __global__ void __launch_bounds__(256) bounded(float* y) {}
extern "C" __global__ void spin(long long cycles) { long long t = clock64(); while (clock64() - t < cycles) {} }
extern "C" __global__ void wild(float* y) { y[1ull << 40] = 1.0f; }
'''
# On the simulator: what lets a spinning kernel end; a GPU's ends by itself.
# What ends a spinning kernel after the interrupt: the simulator's release; a GPU's ends by
# itself; the CPU device stops its kernels on the interrupt.
# What ends the spinning kernel after the interrupt: the simulator's spin is released; a GPU cannot
# stop a kernel, and what needs the GPU fails at once (KernelStillRunningError) until it has run to
# its end, which xcuda.gpu_work_left_running() returning None says.
RELEASE = {"sim": "ctypes.CDLL(os.environ['XCUDA_CUDA_DRIVER']).xcuda_sim_release()",
           "gpu": "while xcuda.gpu_work_left_running() is not None: time.sleep(0.05)",
           "cpu": ""}


@pytest.fixture(scope="module")
def m(driver):
    return xcuda.compile(SOURCE, arch=driver.arch)


def run_child(code, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [env.get("PYTHONPATH", ""), HERE] if p)
    # SIGINT as a fresh process has it: a child inherits an ignored or blocked SIGINT (and
    # Python then raises no KeyboardInterrupt). In .ci/hosted's one pytest process something
    # run before left it so: the Ctrl-C test's wait ran its whole 20 s, SIGINT sent at 0.3 s.
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env=env, preexec_fn=deliver_sigint)


def deliver_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def data(n=1 << 16):
    rng = np.random.default_rng(7)
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)


# ---- on either driver ---------------------------------------------------------------------------

def test_streams_and_events(driver, m):
    x, y = data()
    dx, dy = xcuda.to_device(x), xcuda.to_device(y)
    s = xcuda.Stream()
    start, end = xcuda.Event(), xcuda.Event()
    start.record(s)
    m.saxpy[(x.size + 255) // 256, 256, 0, s](2.0, dx, dy, x.size)
    end.record(s)
    end.synchronize()
    s.synchronize()
    assert s.query() and end.query()
    assert start.elapsed_time(end) >= 0.0
    if driver.runs_kernels:
        assert np.allclose(dy.get(), 2.0 * x + y)


def test_attributes_and_occupancy_come_from_the_driver(driver, m):
    a = m.saxpy.attributes
    # the simulator reports 10 registers for every kernel; a GPU what ptxas gave the kernel
    assert a["num_regs"] == (driver.registers or m.saxpy.resources["registers"])
    assert a["max_threads_per_block"] >= 256
    occ = m.saxpy.occupancy(256)
    assert 1 <= occ["active_blocks_per_sm"] <= 32
    assert 0 < occ["occupancy"] <= 1.0
    assert xcuda.Device(xcuda.get_device()).properties["multiprocessor_count"] > 0


def test_block_over_the_kernels_limit_is_a_launch_error_and_not_sticky(driver, m):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(xcuda.LaunchError, match="256"):
        m.bounded[1, 512](d)
    m.bounded[1, 256](d)   # the context still works
    xcuda.synchronize()


def test_out_of_memory_is_a_memory_error_and_recovers(driver):
    with pytest.raises(xcuda.OutOfMemoryError) as info:
        xcuda.empty((1 << 50,), np.uint8)
    assert isinstance(info.value, MemoryError)
    assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY" and info.value.code == 2
    assert xcuda.empty((1 << 20,), np.uint8).nbytes == 1 << 20


def test_device_selection_checks_the_index(driver):
    if driver.name == "cpu":
        # No GPU here: a GPU index is refused naming the CPU device, which is selectable by name.
        with pytest.raises(xcuda.NoDeviceError, match="no GPU 0.*CPU device"):
            xcuda.set_device(0)
        with pytest.raises(ValueError, match="'gpu0': pass a GPU's index"):
            xcuda.Device("gpu0")
        xcuda.set_device("cpu")
        assert xcuda.get_device() == "cpu" and xcuda.Device("cpu").is_cpu
        return
    n = xcuda.device_count()
    assert n == driver.devices or driver.devices is None
    assert xcuda.Device(n - 1).properties["name"]
    valid = "0" if n == 1 else f"0..{n - 1}"
    with pytest.raises(ValueError, match="valid"):
        xcuda.Device(n)
    with pytest.raises(ValueError, match=rf"valid: {valid}\)"):
        xcuda.set_device(n + 2)


BYTES = r'''
extern "C" __global__ void add_bytes(const unsigned char* x, unsigned char* y, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}
'''
PIPELINE_MIN = 1 << 20   # rt::staged_copy_min_bytes: larger arrays go through pinned chunks
CHUNK = 1 << 20          # rt::staged_copy_chunk_bytes


def add_bytes_case(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, n, dtype=np.uint8)
    y = rng.integers(0, 256, n, dtype=np.uint8)
    return x, y, (x.astype(np.uint16) + y).astype(np.uint8)


@pytest.mark.parametrize("n", [1000, PIPELINE_MIN, PIPELINE_MIN + 1, 2 * CHUNK + 3, 5 * CHUNK + 7, 12 * CHUNK + 1])
def test_numpy_arguments_arrive_and_come_back_intact_on_either_side_of_the_pinned_pipeline(driver, n):
    # Over 1 MiB an array is staged through pinned chunks on several threads: odd sizes end in a
    # partial chunk, and the same arguments again reuse the kept pinned memory. The simulator's
    # add_bytes also scribbles over x on the device, and its pinned DMAs happen only when
    # something waits, so a chunk reused too early shows as wrong bytes.
    add = xcuda.compile(BYTES, arch=driver.arch).kernels["add_bytes"]
    x, y, want = add_bytes_case(n, n)
    x_before = x.copy()
    add[(n + 255) // 256, 256](x, y, n)
    assert np.array_equal(y, want)
    add[(n + 255) // 256, 256](x, y, n)
    assert np.array_equal(y, (want.astype(np.uint16) + x).astype(np.uint8))
    assert np.array_equal(x, x_before), "a const argument was copied back"


def test_ctrl_c_during_a_wait_on_a_spinning_kernel_raises_keyboard_interrupt(driver):
    # 2 s on a GPU (the kernel then runs to its end); the simulator's spins until released; the
    # CPU device's would take 20 s of wall time (its clock ticks at 2 GHz), which the interrupt
    # ends: far longer than any delay of the timer on a loaded machine.
    cycles = 40_000_000_000 if driver.name == "cpu" else 4_000_000_000
    r = run_child(f'''
        import ctypes, os, signal, threading, time, xcuda
        m = xcuda.compile('extern "C" __global__ void spin(long long cycles) {{'
                          ' long long t = clock64(); while (clock64() - t < cycles) {{}} }}', arch={driver.arch!r})
        launched = time.perf_counter()
        m.spin[1, 1]({cycles})
        sent = []
        threading.Timer(0.3, lambda: (sent.append(time.perf_counter()), os.kill(os.getpid(), signal.SIGINT))).start()
        try:
            xcuda.synchronize()
            print("NOT INTERRUPTED: the wait ended %.2f s after the launch; SIGINT sent at %s"
                  % (time.perf_counter() - launched, [round(t - launched, 2) for t in sent]))
        except KeyboardInterrupt:
            print("INTERRUPTED %.2f" % (time.perf_counter() - sent[0]))
        {RELEASE[driver.name]}
        xcuda.synchronize()
        print("ALIVE")
    ''')
    assert "INTERRUPTED" in r.stdout and "NOT INTERRUPTED" not in r.stdout, r.stdout + r.stderr
    assert float(r.stdout.split("INTERRUPTED")[1].split()[0]) < 1.0   # after the signal
    assert "ALIVE" in r.stdout


def test_sticky_fault_is_context_lost_naming_the_kernel_then_fails_fast(driver):
    if driver.name == "cpu":
        pytest.skip("the CPU device's faults are not sticky (test_cpu_device.py checks what it reports instead)")
    r = run_child(f'''
        import time, numpy as np, xcuda
        state = [1, 2, 3]
        m = xcuda.compile('extern "C" __global__ void wild(float* y) {{ y[1ull << 40] = 1.0f; }}', arch={driver.arch!r})
        d = xcuda.zeros(4, np.float32)
        m.wild[1, 1](d)
        try:
            xcuda.synchronize()
            print("NO ERROR")
        except xcuda.ContextLostError as e:
            print("LOST", "wild" in str(e), "restart" in str(e), isinstance(e, xcuda.DriverError))
        t = time.perf_counter()
        try:
            xcuda.zeros(4, np.float32)
        except xcuda.ContextLostError:
            print("FAST", time.perf_counter() - t < 0.1)
        print("STATE", state)
    ''')
    assert r.returncode == 0, r.stderr
    assert "LOST True True True" in r.stdout, r.stdout + r.stderr
    assert "FAST True" in r.stdout
    assert "STATE [1, 2, 3]" in r.stdout


@pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython is not installed")
def test_a_cell_that_launched_synchronises_and_reports_a_fault_in_that_cell(driver):
    arch = f" --arch {driver.arch}" if driver.arch else ""
    r = run_child(f'''
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_line_magic("load_ext", "xcuda")
        ip.run_cell('%%cuda{arch}\\nextern "C" __global__ void wild(float* y) {{ y[1ull << 40] = 1.0f; }}\\n')
        ip.run_cell("import numpy as np, xcuda\\nd = xcuda.zeros(4, np.float32)")
        r = ip.run_cell("wild[1, 1](d)")
        print("CELL", r.success, type(r.error_in_exec).__name__)
        r = ip.run_cell("x = 1 + 1")
        print("NEXT", r.success)
    ''')
    # A GPU's fault is sticky; the CPU device reports it as a failed check and stays usable.
    expected = "KernelCheckError" if driver.name == "cpu" else "ContextLostError"
    assert f"CELL False {expected}" in r.stdout, r.stdout + r.stderr
    # Reported once: the next cell, which launches nothing, does not repeat the fault.
    assert "NEXT True" in r.stdout


def test_devices_and_device_arrays_show_as_html_tables_with_the_drivers_values(driver):
    device = xcuda.Device(xcuda.get_device())
    major, minor = device.properties["compute_capability"]
    html = device._repr_html_()
    assert "<table" in html and f"<td>name</td><td>{device.name}</td>" in html
    assert f"<td>compute capability</td><td>{major}.{minor} (sm_{major}{minor})</td>" in html
    assert f"<td>multiprocessors</td><td>{device.properties['multiprocessor_count']}</td>" in html
    assert "(" not in html.split("<td>memory</td>")[1][:20]
    a = xcuda.to_device(np.zeros((4, 3), np.float32))
    html = a._repr_html_()
    assert "<td>(4, 3)</td>" in html and "<td>float32</td>" in html and "<td>48 B</td>" in html


# ---- what only a GPU shows: results, CuPy and PyTorch, device printf ----------------------------


@requires_kernels
def test_saxpy_on_numpy_copies_the_result_back(saxpy):
    x, y = data()
    expected = 2.0 * x + y
    x_before = x.copy()
    saxpy[(x.size + 255) // 256, 256](2.0, x, y, x.size)
    assert np.allclose(y, expected)
    assert np.array_equal(x, x_before)


@requires_kernels
def test_const_pointer_is_not_copied_back(saxpy):
    x, y = data()
    x.flags.writeable = False  # a copy back into x would fail
    saxpy[(x.size + 255) // 256, 256](2.0, x, y, x.size)


@requires_kernels
def test_keyword_launch(saxpy):
    x, y = data()
    expected = 3.0 * x + y
    saxpy(3.0, x, y, x.size, grid=(x.size + 127) // 128, block=(128, 1, 1))
    assert np.allclose(y, expected)


@requires_kernels
def test_saxpy_on_device_arrays(saxpy):
    x, y = data()
    dx, dy = xcuda.to_device(x), xcuda.to_device(y)
    assert dx.shape == x.shape and dx.dtype == np.float32 and dx.nbytes == x.nbytes
    saxpy[(x.size + 255) // 256, 256](2.0, dx, dy, x.size)
    assert np.allclose(dy.get(), 2.0 * x + y)
    assert np.array_equal(xcuda.zeros((3, 4), np.int32).get(), np.zeros((3, 4), np.int32))
    assert xcuda.empty(10, "float64").size == 10


@requires_kernels
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


@requires_kernels
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


@requires_kernels
def test_device_printf_appears_after_synchronize():
    r = run_child('''
        import xcuda
        m = xcuda.compile('extern "C" __global__ void hello(int n) { printf("hello %d from %d\\\\n", n, threadIdx.x); }')
        m.hello[1, 4](7)
        xcuda.synchronize()
    ''')
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("hello 7 from") == 4


@requires_kernels
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
        except xcuda.KernelCheckError as e:  # the CPU device: the assert is a finding, not sticky
            print("LOST", "checked" in str(e))
            print(e)
    ''')
    out = r.stdout + r.stderr
    assert r.returncode == 0, out
    assert "VALUES True" in r.stdout
    assert "roots: y[3] = %.3f" % (2 * 3 ** 0.5 + 9 + 1) in r.stdout
    assert "LOST True" in r.stdout
    assert "Assertion `i < n` failed" in out


@requires_kernels
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


@requires_kernels
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


@requires_kernels
def test_device_array_repr_names_shape_dtype_and_device():
    # It crashed the GPU machine's Python 3.12 build once (ostream in the module): printing an
    # array is the first thing a notebook does with it.
    d = xcuda.to_device(np.ones((2, 3), np.float32))
    device = repr(xcuda.get_device())
    assert repr(d) == f"xcuda.DeviceArray(shape=(2, 3), dtype=float32, device={device})"
    assert str(xcuda.to_device(np.ones(4, np.int32))) == f"xcuda.DeviceArray(shape=(4,), dtype=int32, device={device})"


# ---- what only the simulator records: its launches and allocations ------------------------------


@requires_sim
def test_device_array_round_trip():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = xcuda.to_device(x)
    assert d.shape == (3, 4) and d.dtype == np.float32 and d.size == 12 and d.nbytes == 48
    assert np.array_equal(d.get(), x)
    cai = d.__cuda_array_interface__
    assert cai["typestr"] == "<f4" and cai["shape"] == (3, 4) and cai["version"] == 3
    assert cai["data"][0] == d.ptr
    assert d.__dlpack_device__() == (2, 0)
    assert np.array_equal(xcuda.zeros(5, np.int64).get(), np.zeros(5, np.int64))
    assert "float32" in repr(d)


@requires_sim
def test_launch_with_numpy_device_array_and_cai_arguments(m):
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, np.float32)
    m.plain[1, 32](2.0, x, y, 4)
    d = xcuda.to_device(x)
    m.plain[(1, 1), (32, 1, 1)](2.0, d, d, 4)

    class CaiOnly:
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    m.plain(2.0, CaiOnly(d), CaiOnly(d), 4, grid=1, block=32, shared_mem=0, stream=None)
    with pytest.raises(TypeError, match=r"expects float\*: got a int32 array"):
        m.plain[1, 32](2.0, d, CaiOnly(xcuda.zeros(4, np.int32)), 4)


@requires_sim
def test_a_launcher_checks_its_limits_until_a_launch_passes_them(m):
    # A launcher skips the limit checks once its grid and block passed them for a function:
    # a refused launch must not count as passed.
    d = xcuda.zeros(4, np.float32)
    too_big = m.bounded[1, 512]
    for _ in range(2):
        with pytest.raises(xcuda.LaunchError, match="256"):
            too_big(d)


@requires_sim
def test_get_into_a_given_array_after_a_given_stream():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = xcuda.to_device(x)
    host = np.empty((3, 4), np.float32)
    assert d.get(stream=xcuda.Stream(), out=host) is host
    assert np.array_equal(host, x)
    assert np.array_equal(d.get(stream=0), x)
    with pytest.raises(ValueError, match=r"shape \(12,\) and dtype float32; this DeviceArray has shape \(3, 4\).*"
                                         r"pass np.empty\(\(3, 4\), np.float32\)"):
        d.get(out=np.empty(12, np.float32))
    with pytest.raises(ValueError, match="writable C-contiguous"):
        d.get(out=np.empty((4, 3), np.float32).T)
    with pytest.raises(TypeError, match="needs a numpy array, got list"):
        d.get(out=[0] * 12)


@requires_sim
def test_numpy_arguments_reuse_staging_memory_and_never_see_old_data(m):
    allocations = ctypes.CDLL(SIM).xcuda_sim_device_allocations
    x = np.arange(1 << 16, dtype=np.float32)
    m.plain[1, 32](2.0, x, np.zeros_like(x), x.size)   # fills the pool
    before = allocations()
    for value in range(1, 6):
        y = np.full_like(x, value)
        m.plain[1, 32](2.0, x, y, x.size)
        # the simulator runs no kernel code: y comes back as it went in, not as the last launch left it
        assert np.array_equal(y, np.full_like(x, value))
    assert allocations() == before, "a launch loop on same-sized numpy arrays allocated device memory again"


@requires_sim
def test_large_numpy_arguments_reuse_pinned_and_device_memory():
    host_allocations = ctypes.CDLL(SIM).xcuda_sim_host_allocations
    device_allocations = ctypes.CDLL(SIM).xcuda_sim_device_allocations
    add = xcuda.compile(BYTES, arch="compute_90").kernels["add_bytes"]
    n = 3 * CHUNK + 1
    add[1, 32](*add_bytes_case(n, 0)[:2], n)
    pinned, device = host_allocations(), device_allocations()
    for seed in range(1, 4):
        x, y, want = add_bytes_case(n, seed)
        add[1, 32](x, y, n)
        assert np.array_equal(y, want)
    assert host_allocations() == pinned, "a launch on large numpy arrays allocated pinned memory again"
    assert device_allocations() == device


@requires_sim
def test_large_numpy_arguments_are_copied_the_plain_way_when_pinned_memory_is_out():
    r = run_child(f'''
        import ctypes, os, numpy as np, xcuda
        sim = ctypes.CDLL(os.environ["XCUDA_CUDA_DRIVER"])
        sim.xcuda_sim_fail_host_allocations(1)
        add = xcuda.compile({BYTES!r}, arch="compute_90").kernels["add_bytes"]
        n = {2 * CHUNK + 3}
        x = np.arange(n, dtype=np.uint64).astype(np.uint8)
        y = np.full(n, 3, np.uint8)
        add[1, 32](x, y, n)
        assert np.array_equal(y, (x.astype(np.uint16) + 3).astype(np.uint8)), "wrong result"
        assert np.array_equal(x, np.arange(n, dtype=np.uint64).astype(np.uint8)), "x came back"
        assert sim.xcuda_sim_host_allocations() == 0
        print("ok")
    ''')
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


@requires_sim
def test_a_forked_child_stages_large_arguments_without_the_parents_helper_threads():
    # The pipeline's memcpy helpers are threads of the process that made them; a fork has none.
    r = run_child(f'''
        import os, numpy as np, xcuda
        add = xcuda.compile({BYTES!r}, arch="compute_90").kernels["add_bytes"]
        n = {4 * CHUNK + 1}
        def launch():
            y = np.zeros(n, np.uint8)
            add[1, 32](np.ones(n, np.uint8), y, n)
            return bool((y == 1).all())
        assert launch()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if launch() else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        assert launch()
        print("ok")
    ''')
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr

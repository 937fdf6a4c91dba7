"""The driver side of the binding on CI, against the runtime's simulated libcuda
(XCUDA_CUDA_DRIVER=libxcuda-sim-cuda.so; ctest sets it). The simulator runs no kernel code: it
recognises kernels by name ("spin" keeps its stream busy until released, "wild" faults with an
illegal address, "bounded" allows 256 threads per block) and its device memory is host memory.
Modules are compiled to PTX (--arch compute_90) because the simulator finds kernels by name in
the image text."""
import collections.abc
import ctypes
import gc
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import xcuda

SIM = os.environ.get("XCUDA_CUDA_DRIVER", "")


def simulator_loaded():
    try:
        return hasattr(ctypes.CDLL(SIM), "xcuda_sim_release") if SIM else False
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not simulator_loaded(),
                                reason="XCUDA_CUDA_DRIVER does not name the simulated driver (ctest sets it)")

SOURCE = r'''
extern "C" __global__ void plain(float a, const float* x, float* y, int n) {}
extern "C" __global__ void bounded(float* y) {}
extern "C" __global__ void spin() {}
extern "C" __global__ void wild(float* y) {}
'''


@pytest.fixture(scope="module")
def sim():
    return xcuda.compile(SOURCE, arch="compute_90")


def run_child(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


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


def test_launch_with_numpy_device_array_and_cai_arguments(sim):
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, np.float32)
    sim.plain[1, 32](2.0, x, y, 4)
    d = xcuda.to_device(x)
    sim.plain[(1, 1), (32, 1, 1)](2.0, d, d, 4)

    class CaiOnly:
        def __init__(self, array):
            self.__cuda_array_interface__ = array.__cuda_array_interface__

    sim.plain(2.0, CaiOnly(d), CaiOnly(d), 4, grid=1, block=32, shared_mem=0, stream=None)
    with pytest.raises(TypeError, match=r"expects float\*: got a int32 array"):
        sim.plain[1, 32](2.0, d, CaiOnly(xcuda.zeros(4, np.int32)), 4)


def test_attributes_and_occupancy(sim):
    assert sim.plain.attributes["num_regs"] == 10
    occ = sim.plain.occupancy(256)
    assert occ["active_blocks_per_sm"] > 0 and 0 < occ["occupancy"] <= 1


def test_block_over_the_kernels_limit_is_a_launch_error_and_not_sticky(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(xcuda.LaunchError, match="256"):
        sim.bounded[1, 512](d)
    sim.bounded[1, 256](d)
    xcuda.synchronize()


def test_a_launcher_checks_its_limits_until_a_launch_passes_them(sim):
    # A launcher skips the limit checks once its grid and block passed them for a function:
    # a refused launch must not count as passed.
    d = xcuda.zeros(4, np.float32)
    too_big = sim.bounded[1, 512]
    for _ in range(2):
        with pytest.raises(xcuda.LaunchError, match="256"):
            too_big(d)


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


def test_numpy_arguments_reuse_staging_memory_and_never_see_old_data(sim):
    allocations = ctypes.CDLL(SIM).xcuda_sim_device_allocations
    x = np.arange(1 << 16, dtype=np.float32)
    sim.plain[1, 32](2.0, x, np.zeros_like(x), x.size)   # fills the pool
    before = allocations()
    for value in range(1, 6):
        y = np.full_like(x, value)
        sim.plain[1, 32](2.0, x, y, x.size)
        # the simulator runs no kernel code: y comes back as it went in, not as the last launch left it
        assert np.array_equal(y, np.full_like(x, value))
    assert allocations() == before, "a launch loop on same-sized numpy arrays allocated device memory again"


BYTES = r'''
extern "C" __global__ void add_bytes(const unsigned char* x, unsigned char* y, unsigned long long n) {}
'''
PIPELINE_MIN = 1 << 20   # rt::staged_copy_min_bytes: larger arrays go through pinned chunks
CHUNK = 1 << 20          # rt::staged_copy_chunk_bytes


def add_bytes_case(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, n, dtype=np.uint8)
    y = rng.integers(0, 256, n, dtype=np.uint8)
    return x, y, (x.astype(np.uint16) + y).astype(np.uint8)


@pytest.mark.parametrize("n", [1000, PIPELINE_MIN, PIPELINE_MIN + 1, 2 * CHUNK + 3, 5 * CHUNK + 7, 12 * CHUNK + 1])
def test_numpy_arguments_arrive_and_come_back_intact_on_either_side_of_the_pinned_pipeline(n):
    # The simulator's add_bytes does y += x on the device and scribbles over x there; its pinned
    # DMAs happen only when something waits, so a chunk reused too early shows as wrong bytes.
    add = xcuda.compile(BYTES, arch="compute_90").kernels["add_bytes"]
    x, y, want = add_bytes_case(n, n)
    x_before = x.copy()
    add[1, 32](x, y, n)
    assert np.array_equal(y, want)
    assert np.array_equal(x, x_before), "a const argument was copied back"


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


def test_out_of_memory_is_a_memory_error_and_recovers():
    with pytest.raises(xcuda.OutOfMemoryError) as info:
        xcuda.empty(1 << 41, np.uint8)
    assert isinstance(info.value, MemoryError)
    assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY" and info.value.code == 2
    assert xcuda.empty(1 << 10, np.uint8).nbytes == 1 << 10


def test_streams_and_events(sim):
    d = xcuda.zeros(4, np.float32)
    s = xcuda.Stream()
    start, end = xcuda.Event(), xcuda.Event()
    start.record(s)
    sim.plain[1, 32, 0, s](1.0, d, d, 4)
    end.record(s)
    s.synchronize()
    assert s.query() and end.query()
    assert start.elapsed_time(end) >= 0


def test_device_selection_checks_the_index():
    assert xcuda.device_count() == 1
    assert xcuda.Device(0).properties["name"]
    with pytest.raises(ValueError, match=r"valid"):
        xcuda.Device(1)
    with pytest.raises(ValueError, match=r"valid: 0\)"):
        xcuda.set_device(3)


def test_ctrl_c_during_a_wait_on_a_spinning_kernel_raises_keyboard_interrupt():
    r = run_child('''
        import ctypes, os, signal, threading, time, xcuda
        m = xcuda.compile('extern "C" __global__ void spin() {}', arch="compute_90")
        m.spin[1, 1]()
        threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t = time.perf_counter()
        try:
            xcuda.synchronize()
            print("NOT INTERRUPTED")
        except KeyboardInterrupt:
            print("INTERRUPTED %.2f" % (time.perf_counter() - t))
        ctypes.CDLL(os.environ["XCUDA_CUDA_DRIVER"]).xcuda_sim_release()
        xcuda.synchronize()
        print("ALIVE")
    ''')
    assert "INTERRUPTED" in r.stdout, r.stdout + r.stderr
    assert float(r.stdout.split("INTERRUPTED")[1].split()[0]) < 1.0
    assert "ALIVE" in r.stdout


def test_sticky_fault_is_context_lost_naming_the_kernel_then_fails_fast():
    r = run_child('''
        import time, numpy as np, xcuda
        state = [1, 2, 3]
        m = xcuda.compile('extern "C" __global__ void wild(float* y) {}', arch="compute_90")
        d = xcuda.zeros(4, np.float32)
        m.wild[1, 1](d)
        try:
            xcuda.synchronize()
        except xcuda.ContextLostError as e:
            print("LOST", "wild" in str(e), "restart" in str(e), isinstance(e, xcuda.DriverError))
        t = time.perf_counter()
        try:
            xcuda.zeros(4, np.float32)
        except xcuda.ContextLostError:
            print("FAST", time.perf_counter() - t < 0.1)
        print("STATE", state)
    ''')
    assert "LOST True True True" in r.stdout, r.stdout + r.stderr
    assert "FAST True" in r.stdout
    assert "STATE [1, 2, 3]" in r.stdout


@pytest.mark.skipif(importlib.util.find_spec("IPython") is None, reason="IPython is not installed")
def test_a_cell_that_launched_synchronises_and_reports_a_fault_in_that_cell():
    r = run_child('''
        from IPython.testing.globalipapp import start_ipython
        ip = start_ipython()
        ip.run_line_magic("load_ext", "xcuda")
        ip.run_cell('%%cuda --arch compute_90\\nextern "C" __global__ void wild(float* y) {}\\n')
        ip.run_cell("import numpy as np, xcuda\\nd = xcuda.zeros(4, np.float32)")
        r = ip.run_cell("wild[1, 1](d)")
        print("CELL", r.success, type(r.error_in_exec).__name__)
        r = ip.run_cell("x = 1 + 1")
        print("NEXT", r.success)
    ''')
    assert "CELL False ContextLostError" in r.stdout, r.stdout + r.stderr
    # Reported once: the next cell, which launches nothing, does not repeat the fault.
    assert "NEXT True" in r.stdout


# ---- launch options: cooperative, clusters, dynamic shared memory, kernel attributes ----------

def last_launch():
    f = ctypes.CDLL(SIM).xcuda_sim_last_launch
    f.restype = ctypes.c_char_p
    return f().decode()


def test_plain_launches_take_cu_launch_kernel_and_options_cu_launch_kernel_ex(sim):
    d = xcuda.zeros(4, np.float32)
    sim.plain[2, 32](1.0, d, d, 4)
    assert last_launch() == "cuLaunchKernel plain grid=(2,1,1) block=(32,1,1) shared=0"
    sim.plain(1.0, d, d, 4, grid=4, block=64, cooperative=True)
    assert last_launch() == "cuLaunchKernelEx plain grid=(4,1,1) block=(64,1,1) shared=0 cooperative=1"
    sim.plain(1.0, d, d, 4, grid=(8, 2), block=32, cluster=(2, 2))
    assert last_launch() == "cuLaunchKernelEx plain grid=(8,2,1) block=(32,1,1) shared=0 cluster=(2,2,1)"
    launcher = sim.plain[8, 32].with_options(cooperative=True, cluster=4)
    assert launcher.cooperative and launcher.cluster == (4, 1, 1)
    assert "cooperative cluster=(4,1,1)" in repr(launcher)
    for _ in range(2):  # the second call takes the launcher's validated path
        launcher(1.0, d, d, 4)
        assert last_launch() == "cuLaunchKernelEx plain grid=(8,1,1) block=(32,1,1) shared=0 cooperative=1 cluster=(4,1,1)"
    sim.plain[8, 32](1.0, d, d, 4)   # the launcher it came from has no options
    assert last_launch().startswith("cuLaunchKernel plain")


def test_a_cooperative_grid_larger_than_the_device_holds_is_refused_naming_the_maximum(sim):
    d = xcuda.zeros(4, np.float32)
    # The simulator holds 8 blocks of 256 threads per SM and has 132 SMs.
    sim.plain(1.0, d, d, 4, grid=1056, block=256, cooperative=True)
    with pytest.raises(xcuda.LaunchError, match=r"grid \(1057,1,1\) has 1057 blocks but at most 1056 can be resident "
                                                r"at once \(8 per SM x 132 SMs.*use a grid of at most 1056 blocks"):
        sim.plain(1.0, d, d, 4, grid=1057, block=256, cooperative=True)
    with pytest.raises(xcuda.LaunchError, match="at most 1056"):
        sim.plain[1057, 256].with_options(cooperative=True)(1.0, d, d, 4)


def test_dynamic_shared_memory_above_48_kib_raises_the_kernel_limit_and_above_the_opt_in_maximum_is_refused():
    m = xcuda.compile('extern "C" __global__ void bigshared(float* y) {}', arch="compute_90")
    d = xcuda.zeros(4, np.float32)
    assert m.bigshared.attributes["max_dynamic_shared_size_bytes"] == 49152
    m.bigshared[1, 32, 100 * 1024, None](d)
    assert last_launch() == "cuLaunchKernel bigshared grid=(1,1,1) block=(32,1,1) shared=102400"
    assert m.bigshared.attributes["max_dynamic_shared_size_bytes"] == 100 * 1024
    with pytest.raises(xcuda.LaunchError, match=r"at most 232448 bytes \(the device's opt-in maximum of 232448 bytes "
                                                r"per block, less the 0 bytes of static shared memory.*"
                                                r"pass shared_mem <= 232448"):
        m.bigshared(d, grid=1, block=32, shared_mem=232449)


def test_clusters_need_a_grid_that_is_a_whole_number_of_them(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(xcuda.LaunchError, match=r"grid \(10,1,1\) is not a whole number of clusters \(4,1,1\): x = 10 "
                                                r"is not a multiple of 4; use a grid of 12 in x"):
        sim.plain(1.0, d, d, 4, grid=10, block=32, cluster=4)
    with pytest.raises(xcuda.LaunchError, match="cannot run clusters of 16 blocks.*non_portable_cluster_size_allowed"):
        sim.plain(1.0, d, d, 4, grid=16, block=32, cluster=16)


def test_a_cluster_launch_on_an_sm_80_device_is_refused_before_the_driver():
    env = dict(os.environ, XCUDA_SIM_COMPUTE_CAPABILITY="80")
    r = subprocess.run([sys.executable, "-c", textwrap.dedent('''
        import numpy as np, xcuda
        m = xcuda.compile('extern "C" __global__ void plain(float* y) {}', arch="compute_80")
        d = xcuda.zeros(4, np.float32)
        try:
            m.plain(d, grid=4, block=32, cluster=2)
        except xcuda.LaunchError as e:
            print("REFUSED", e)
        m.plain(d, grid=4, block=32, cooperative=True)
        print("COOPERATIVE OK")
    ''')], capture_output=True, text=True, timeout=120, env=env)
    assert "REFUSED cluster=(2,1,1) needs thread block clusters (compute capability 9.0 or newer); this device " \
           "(xcuda simulated device) is sm_80: launch plain without cluster=" in r.stdout, r.stdout + r.stderr
    assert "COOPERATIVE OK" in r.stdout


def test_launch_option_values_are_checked(sim):
    d = xcuda.zeros(4, np.float32)
    with pytest.raises(TypeError, match="cooperative must be True or False, got 1"):
        sim.plain(1.0, d, d, 4, grid=1, block=32, cooperative=1)
    with pytest.raises(ValueError, match=r"cluster \(0, 1\): every dimension must be a positive int"):
        sim.plain(1.0, d, d, 4, grid=1, block=32, cluster=(0, 1))
    with pytest.raises(TypeError, match="launch options are grid=, block=, shared_mem=, stream=, cooperative=, cluster="):
        sim.plain(1.0, d, d, 4, grid=1, block=32, clusters=2)
    with pytest.raises(TypeError, match="the launch options are cooperative= and cluster="):
        sim.plain[1, 32].with_options(coop=True)
    assert sim.plain[1, 32].with_options(cluster=None).cluster is None


def test_kernel_attributes_read_and_write_through_the_driver(sim):
    a = sim.plain.attributes
    assert isinstance(a, collections.abc.Mapping)
    assert a["num_regs"] == 10 and a["max_threads_per_block"] == 1024 and a["binary_version"] == 90
    assert "cluster_scheduling_policy_preference" in a and "bogus" not in a and len(a) == len(list(a))
    assert dict(a)["max_dynamic_shared_size_bytes"] == a["max_dynamic_shared_size_bytes"]
    a["preferred_shared_memory_carveout"] = 50
    assert sim.plain.attributes["preferred_shared_memory_carveout"] == 50
    a["non_portable_cluster_size_allowed"] = True
    assert a["non_portable_cluster_size_allowed"] == 1
    d = xcuda.zeros(4, np.float32)
    sim.plain(1.0, d, d, 4, grid=16, block=32, cluster=16)   # allowed now
    assert "cluster=(16,1,1)" in last_launch()
    assert "required_cluster_width" in xcuda.KernelAttributes.settable
    assert "num_regs=10" in repr(a)


def test_kernel_attribute_errors_name_the_names_and_the_limit(sim):
    a = sim.plain.attributes
    with pytest.raises(KeyError, match="no kernel attribute 'regs'; the attributes are max_threads_per_block, "
                                       "shared_size_bytes, .*cluster_scheduling_policy_preference"):
        a["regs"]
    with pytest.raises(KeyError, match="no kernel attribute"):
        a["regs"] = 1
    with pytest.raises(TypeError, match="kernel attribute 'num_regs' is read-only; the settable ones are "
                                        "max_dynamic_shared_size_bytes, preferred_shared_memory_carveout"):
        a["num_regs"] = 32
    with pytest.raises(ValueError, match=r"max_dynamic_shared_size_bytes = 300000 is more than kernel plain can have "
                                         r"on this device: at most 232448"):
        a["max_dynamic_shared_size_bytes"] = 300000
    with pytest.raises(TypeError, match="takes an int, got 1.5"):
        a["preferred_shared_memory_carveout"] = 1.5


# ---- module variables ---------------------------------------------------------------------------

GLOBALS = r'''
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
    return xcuda.compile(GLOBALS, arch="compute_90", instantiate=["lut<float>"])


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


def test_an_unknown_global_is_a_key_error_listing_the_ones_there_are(with_globals):
    with pytest.raises(KeyError, match=r"no __constant__ or __device__ variable `table`; its variables: coeffs, "
                                       r"counter, v, by_macro, where, params, ns::table, lut<float>"):
        with_globals.get_global("table")
    with pytest.raises(KeyError, match="`lut<double>`"):
        with_globals.globals["lut<double>"]
    assert "table" not in with_globals.globals and "ns::table" in with_globals.globals
    assert with_globals.globals.get("table") is None


def test_the_globals_mapping_lists_names_and_values(with_globals):
    g = with_globals.globals
    assert isinstance(g, collections.abc.Mapping) and len(g) == 8
    assert [k for k, _ in g.items()] == g.keys()
    assert all(isinstance(a, xcuda.DeviceArray) for a in g.values())
    assert repr(g).startswith("<xcuda.ModuleGlobals: __constant__ float coeffs[16], __device__ int counter")


def test_a_global_view_keeps_its_module_loaded():
    loaded = ctypes.CDLL(SIM).xcuda_sim_modules_loaded
    m = xcuda.compile("__device__ int kept_alive[4];\n" + SOURCE, arch="compute_90", no_cache=True)
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


def test_devices_and_device_arrays_show_as_html_tables_with_the_drivers_values():
    html = xcuda.Device(0)._repr_html_()
    assert "<table" in html and "<td>compute capability</td><td>9.0 (sm_90)</td>" in html
    assert "<td>multiprocessors</td><td>132</td>" in html and "(" not in html.split("<td>memory</td>")[1][:20]
    a = xcuda.to_device(np.zeros((4, 3), np.float32))
    html = a._repr_html_()
    assert "<td>(4, 3)</td>" in html and "<td>float32</td>" in html and "<td>48 B</td>" in html

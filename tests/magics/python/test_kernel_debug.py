"""Kernel.debug and the debugger underneath it: one thread of a launch stepped line by line on the
CPU device, its variables read by their C++ names from the -G DWARF, expressions and conditions
evaluated in its frame, the launch's results and checks as without the debugger. They need the
CPU device (the launch runs there on a GPU machine too, on copies of the arrays)."""
import gc
import io

import numpy as np
import pytest

import xcuda
from xcuda import _kernel_debug, _ptx_dwarf

needs_cpu_device = pytest.mark.skipif(
    not xcuda.device_available() and not xcuda.gpu_available(),
    reason="no CPU device in this run (XCUDA_DEVICE=none); ctest's magics.python runs these")

# As a %%cuda cell compiles it: "\n" + the cell's body, so that line N is the cell's line N.
SAXPY = "\n" + r'''__device__ float scale(float a, float v) {
    float r = a * v;
    return r;
}
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float t = scale(a, x[i]);
        y[i] = t + y[i];
    }
}'''
LINE_I, LINE_IF, LINE_T, LINE_Y = 7, 8, 9, 10
LINE_R = 3

STRUCTS = "\n" + r'''struct Pair { int first; float second; };
__device__ int twice(int v) { return 2 * v; }
extern "C" __global__ void fill(int* out) {
    int local[4];
    Pair p = {(int)threadIdx.x, 0.5f};
    for (int k = 0; k < 4; ++k) local[k] = twice(k + p.first);
    out[threadIdx.x] = local[3] + (int)p.second;
}'''


@pytest.fixture(scope="module")
def saxpy():
    return xcuda.compile(SAXPY).kernels["saxpy"]


def arrays(n=64):
    return np.arange(n, dtype=np.float32), np.ones(n, np.float32)


def trace(kernel, *args, **kw):
    out = io.StringIO()
    lines = kernel.debug(*args, file=out, **kw)
    return lines, out.getvalue()


@needs_cpu_device
def test_debug_prints_the_chosen_threads_lines_with_its_variables_by_their_cpp_names(saxpy):
    x, y = arrays()
    lines, text = trace(saxpy, np.float32(2.0), x, y, np.int32(64), grid=2, block=32, thread=(5, 1))
    assert "thread (5,0,0) of block (1,0,0)" in text
    seen = [line for line, _, _ in lines]
    # Its lines in order, into scale() and back: 7, 8, 9, then scale's, then 10.
    assert seen[:3] == [LINE_I, LINE_IF, LINE_T]
    assert LINE_R in seen and seen.index(LINE_R) > seen.index(LINE_T)
    assert LINE_Y in seen[seen.index(LINE_R):]
    at = {line: values for line, _, values in lines}
    assert at[LINE_IF]["i"] == "37"  # before line 8 runs, i = 1 * 32 + 5
    assert at[LINE_IF]["a"] == "2.0" and at[LINE_IF]["n"] == "64"
    assert at[LINE_R]["a"] == "2.0" and at[LINE_R]["v"] == "37.0"  # scale(a, x[37])
    assert at[LINE_Y]["t"] == "74.0"
    # x as the elements it points into
    assert "-> 64 const float: {0.0, 1.0, 2.0, 3.0, ...}" in at[LINE_IF]["x"]
    # the launch's results are the kernel's, as without the debugger
    np.testing.assert_array_equal(y, 2.0 * np.arange(64, dtype=np.float32) + 1.0)


@needs_cpu_device
def test_debug_from_a_line_and_within_a_number_of_steps(saxpy):
    x, y = arrays()
    lines, text = trace(saxpy, np.float32(3.0), x, y, np.int32(64), grid=2, block=32, thread=7, line=LINE_Y,
                        steps=1)
    assert [line for line, _, _ in lines] == [LINE_Y]
    assert lines[0][2]["t"] == "21.0" and lines[0][2]["i"] == "7"
    assert "1 lines printed (steps=1)" in text
    np.testing.assert_array_equal(y, 3.0 * np.arange(64, dtype=np.float32) + 1.0)


@needs_cpu_device
def test_a_thread_that_never_reaches_the_line_says_so(saxpy):
    x, y = arrays(16)
    lines, text = trace(saxpy, np.float32(1.0), x, y, np.int32(16), grid=1, block=32, thread=20, line=LINE_T)
    assert lines == [] and f"never reached line {LINE_T}" in text


@needs_cpu_device
def test_debug_refuses_a_thread_outside_the_launch_naming_it(saxpy):
    x, y = arrays()
    with pytest.raises(ValueError, match=r"threadIdx.x = 40 is outside the block"):
        saxpy.debug(np.float32(1), x, y, np.int32(64), grid=2, block=32, thread=(40, 0))
    with pytest.raises(ValueError, match=r"blockIdx.x = 2 is outside the grid"):
        saxpy.debug(np.float32(1), x, y, np.int32(64), grid=2, block=32, thread=(0, 2))
    with pytest.raises(ValueError, match="line=99"):
        saxpy.debug(np.float32(1), x, y, np.int32(64), grid=2, block=32, line=99)


@needs_cpu_device
def test_checks_stay_on_under_the_debugger():
    k = xcuda.compile("\n" + r'''extern "C" __global__ void past(float* v, int n) {
    int i = threadIdx.x;
    v[i + n] = 1.0f;
}''').kernels["past"]
    v = np.zeros(8, np.float32)
    with pytest.raises(xcuda.KernelCheckError) as e:
        k.debug(v, np.int32(8), grid=1, block=8, thread=0, file=io.StringIO())
    assert e.value.line == 4


@needs_cpu_device
def test_locals_arrays_and_structs_are_read_from_the_threads_local_memory():
    k = xcuda.compile(STRUCTS).kernels["fill"]
    out = np.zeros(4, np.int32)
    lines, _ = trace(k, out, grid=1, block=4, thread=2, line=8)
    values = lines[0][2]
    assert values["p"] == "{first = 2, second = 0.5}"
    assert values["local"] == "{4, 6, 8, 10}"  # twice(k + 2) for k = 0..3
    np.testing.assert_array_equal(out, 2 * (3 + np.arange(4)))


def test_the_dwarf_names_each_variables_register_and_type(saxpy):
    info = _ptx_dwarf.read(saxpy._with_debug_info()._ptx)
    kernel = info.function("saxpy")
    assert kernel.name == "saxpy" and kernel.line == 6
    by_name = {v.name: v for v in kernel.variables}
    assert by_name["i"].type.c_name() == "int" and by_name["i"].location.kind == "reg"
    assert by_name["i"].location.name.startswith("%r")
    assert by_name["x"].type.c_name() == "const float *" and by_name["x"].is_parameter
    assert by_name["t"].type.c_name() == "float" and by_name["t"].scope is not None
    assert info.function("_Z5scaleff").name == "scale"
    assert _ptx_dwarf.register_name(0x256632) == "%f2"


def test_ptx_without_debug_sections_has_no_debug_information(saxpy):
    assert _ptx_dwarf.read(saxpy._ptx) is None


def test_expressions_parse_as_cpp_reads_them():
    p = _kernel_debug.parse_expression
    assert p("x[i] + 1") == ("binary", "+", ("index", ("name", "x"), ("name", "i")), ("num", 1))
    assert p("threadIdx.x == 5 && blockIdx.x == 1")[1] == "&&"
    assert p("a * (b - 2.5f)")[3] == ("binary", "-", ("name", "b"), ("num", 2.5))
    for bad in ("x[", "a +", "foo(1)", "a = 1"):
        with pytest.raises(_kernel_debug.DebugError):
            p(bad)


def test_a_conditions_thread_terms_choose_the_threads_and_the_rest_is_evaluated():
    b = _kernel_debug.Breakpoint(9, "threadIdx.x == 5 && blockIdx.x == 1 && i > 3")
    assert b.thread == [5, -1, -1] and b.block == [1, -1, -1] and len(b.rest) == 1
    assert _kernel_debug.Breakpoint(9, "1 == blockIdx.y").block == [-1, 1, -1]
    with pytest.raises(_kernel_debug.DebugError, match="hit count"):
        _kernel_debug.Breakpoint(9, None, "often")
    hits = _kernel_debug.Breakpoint(9, None, "% 2")
    assert [hits.count_hit() for _ in range(4)] == [False, True, False, True]


@needs_cpu_device
def test_a_launch_under_the_debugger_stops_where_a_condition_holds_and_evaluates_in_the_frame(saxpy):
    x, y = arrays()
    launch = _kernel_debug.DebugLaunch(saxpy, [np.float32(2.0), x, y, np.int32(64)], (2, 1, 1), (32, 1, 1))
    launch.add_breakpoint(_kernel_debug.Breakpoint(LINE_Y, "i % 10 == 3", ">= 2"))  # the 2nd thread with i % 10 == 3
    stops = []

    def on_stop(stop):
        frame = stop.frames[0]
        ev = lambda text: _kernel_debug.value_text(_kernel_debug.evaluate(_kernel_debug.parse_expression(text), frame))
        stops.append((stop.thread["thread"], stop.thread["block"], ev("i"), ev("x[i]"), ev("t * 2"),
                      ev("threadIdx.x + blockIdx.x * blockDim.x"), ev("y[i]")))
        return "run"

    launch.run(on_stop)
    # i = 3 is the first hit, i = 13 the second: it stops. A warp's lanes arrive together, so the
    # condition stops one thread per arrival: the next stop is block 1's first match, i = 33.
    assert stops == [((13, 0, 0), (0, 0, 0), "13", "13.0", "52.0", "13", "1.0"),
                     ((1, 0, 0), (1, 0, 0), "33", "33.0", "132.0", "33", "1.0")]
    np.testing.assert_array_equal(y, 2.0 * np.arange(64, dtype=np.float32) + 1.0)


@needs_cpu_device
def test_memory_and_modules_freed_while_a_thread_is_stopped_do_not_wait_for_the_stopped_launch(saxpy):
    # Python's garbage collector may free a module or an array while the notebook shows a stop:
    # the CPU device's wait for idle streams must not wait for the launch the debugger holds.
    x, y = arrays(32)
    launch = _kernel_debug.DebugLaunch(saxpy, [np.float32(2.0), x, y, np.int32(32)], 1, 32)
    launch.add_breakpoint(_kernel_debug.Breakpoint(LINE_Y))
    held = {"module": xcuda.compile('extern "C" __global__ void unused_k(int* p) { *p = 1; }', no_cache=True),
            "array": xcuda.to_device(np.zeros(16, np.float32))}
    stops = []

    def on_stop(stop):
        held.clear()
        gc.collect()  # the module unloaded and the array freed here, with the launch parked
        stops.append(stop.thread["thread"])
        return "run"

    launch.run(on_stop)
    assert stops == [(0, 0, 0)]
    np.testing.assert_array_equal(y, 2.0 * np.arange(32, dtype=np.float32) + 1.0)


@needs_cpu_device
def test_evaluate_names_what_is_not_in_scope(saxpy):
    x, y = arrays(32)
    launch = _kernel_debug.DebugLaunch(saxpy, [np.float32(2.0), x, y, np.int32(32)], 1, 32)
    launch.add_breakpoint(_kernel_debug.Breakpoint(LINE_I))
    errors = []

    def on_stop(stop):
        for text in ("t", "nothing", "x[64]", "i / 0"):
            try:
                _kernel_debug.evaluate(_kernel_debug.parse_expression(text), stop.frames[0])
            except _kernel_debug.DebugError as e:
                errors.append(str(e))
        return "run"

    launch.run(on_stop)
    assert "t is not a variable in scope" in errors[0]  # t's block starts at line 9
    assert "nothing is not a variable in scope" in errors[1] and "threadIdx" in errors[1]
    assert "element 64 is outside the memory" in errors[2]
    assert "division by zero" in errors[3]


@pytest.mark.skipif(not xcuda.device_available() or xcuda.get_device() == "cpu", reason=(
    "needs a GPU selected (the launch moves to the CPU device with its arrays copied): ctest's "
    "magics.python.sim-driver runs it against the simulated driver, the GPU machine on its GPU"))
def test_on_a_gpu_the_launch_runs_on_the_cpu_device_with_its_arrays_copied_and_back(saxpy):
    gpu = xcuda.get_device()
    x = xcuda.to_device(np.arange(64, dtype=np.float32))
    y = xcuda.to_device(np.ones(64, np.float32))
    assert y.device == gpu
    lines, text = trace(saxpy, np.float32(2.0), x, y, np.int32(64), grid=2, block=32, thread=(5, 1), line=LINE_Y,
                        steps=1)
    assert lines[0][2]["t"] == "74.0"
    np.testing.assert_array_equal(y.get(), 2.0 * np.arange(64, dtype=np.float32) + 1.0)
    assert xcuda.get_device() == gpu  # the notebook's device again


def test_the_note_on_a_gpu_says_where_the_launch_runs(saxpy, capsys):
    launch = _kernel_debug.DebugLaunch(saxpy, [], 1, 1)
    if xcuda.get_device() == "cpu" or not xcuda.device_available():
        assert launch.note is None, (xcuda.get_device(), xcuda.device_available())
    else:
        assert "on the CPU device" in launch.note and "copied back" in launch.note


def test_debug_thread_sets_the_condition_of_breakpoints_without_one():
    try:
        assert xcuda.debug_thread(thread=5, block=(1, 2)) == (
            "threadIdx.x == 5 && threadIdx.y == 0 && threadIdx.z == 0 && blockIdx.x == 1 && blockIdx.y == 2 && "
            "blockIdx.z == 0")
        b = _kernel_debug.Breakpoint(9, _kernel_debug.chosen_thread())
        assert b.thread == [5, 0, 0] and b.block == [1, 2, 0] and not b.rest
        with pytest.raises(TypeError, match="threadIdx must be an int"):
            xcuda.debug_thread(thread=-1)
    finally:
        assert xcuda.debug_thread() is None
    assert _kernel_debug.chosen_thread() is None

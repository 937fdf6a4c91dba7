"""The GPU fault cases, through the real kernel process: an interrupt while
a kernel spins, sticky faults, out of memory, bad launch configurations, a printf flood, shutdown
while the GPU spins. Each case ends by checking that the kernel still answers kernel_info within a
second. A sticky GPU fault poisons its process, so each case gets a kernel of its own.

Every case is written once and runs against each driver the kernel can load (the `gpu_kernel`
fixture): the machine's libcuda, skipped with the reason where the kernel finds no usable CUDA
device (on CI: no driver), and the runtime's simulated libcuda (XCUDA_SIM_DRIVER, set by ctest,
.ci/hosted and tests/gpu/run-on-device.sh), which recognises kernels by name ("spin" runs until
released, "wild" and "trap" are sticky faults) and runs no kernel code. What differs between the
two is data in DRIVERS.

GPU machine: JUPYTER_PATH=<build>/tests/kernel/jupyter python3 -m pytest -rs tests/kernel/test_faults_gpu.py
"""

import dataclasses
import os
import time

import pytest

from conftest import (assert_answers_kernel_info, collect, connect, errors, execute, kernel_env, run_ok,
                      shell_reply, start_kernel, stop_kernel, stream_text, wait_for_death, wait_for_stdout)

SHUTDOWN_BUDGET_S = 2.5

# `spin` runs `cycles` clock ticks (4e9: ~2 s at H200 clocks), then stores to `out`.
SPIN = ('extern "C" __global__ void spin(long long cycles) '
        '{ long long t = clock64(); while (clock64() - t < cycles) {} }\n')
SPIN_FILL = ('extern "C" __global__ void spin(long long cycles, float* out) '
             '{ long long t = clock64(); while (clock64() - t < cycles) {} out[0] = 1.0f; }\n')
# `spin` waits for a flag nobody sets: on a GPU it never ends (on the H200 such a kernel once left
# the kernel unable to answer: see the interrupt test below).
SPIN_FOREVER = ('extern "C" __global__ void spin(float* flag) '
                '{ while (atomicAdd(flag, 0.0f) == 0.0f) {} }\n')

# Where the cell waits for the spinning kernel: numpy's copy-back inside the launch call, the
# cell's closing synchronisation for a DeviceArray and for a CuPy array. After the interrupt the
# closing synchronisation must not wait again for the kernel the user just stopped.
ARGUMENTS = {
    "numpy": "arg = np.zeros(4, np.float32)",
    "DeviceArray": "arg = xcuda.zeros((4,), np.float32)",
    "cupy": "import cupy; arg = cupy.zeros(4, dtype=cupy.float32)",
}

# Each launches as name[1, 1](d) and loses the context.
STICKY = {
    "out_of_bounds_store": 'extern "C" __global__ void wild(float* p) { p[1ull << 40] = 1.0f; }',
    "trap": 'extern "C" __global__ void trap(float* p) { __trap(); }',
    "failed_assert": 'extern "C" __global__ void assert_fails(float* p) { assert(p == nullptr); }',
}


@dataclasses.dataclass(frozen=True)
class Driver:
    """What a fault case needs to know of the driver its kernel loads."""
    env: dict          # added to the kernel's environment
    setup: str         # run in the kernel before the case
    arch: str          # %%cuda options: the simulator finds kernels by name in PTX text
    release: str       # what lets a spinning kernel end: a GPU's ends by itself, the simulator's when told
    arguments: tuple   # the ARGUMENTS a launch can take on it: CuPy drives NVIDIA's libcuda only
    sticky: tuple      # the STICKY cases it can fault with: the simulator has no device assert


SIM_DRIVER = os.environ.get("XCUDA_SIM_DRIVER", "")
DRIVERS = {
    # A GPU's spin ends by itself; until then, what needs the GPU says it still runs.
    "gpu": Driver(env={}, setup="", arch="", release="while xcuda.gpu_work_left_running(): time.sleep(0.05)\n",
                  arguments=tuple(sorted(ARGUMENTS)), sticky=tuple(sorted(STICKY))),
    "sim": Driver(env={"XCUDA_CUDA_DRIVER": SIM_DRIVER},
                  setup="import ctypes\nsim = ctypes.CDLL(os.environ['XCUDA_CUDA_DRIVER'])",
                  arch=" --arch compute_90", release="sim.xcuda_sim_release()\n",
                  arguments=("DeviceArray", "numpy"), sticky=("out_of_bounds_store", "trap")),
}


def each_driver_and(cases):
    """(driver name, case) for every case a driver has (`cases` picks them from its Driver)."""
    return [(name, case) for name, driver in DRIVERS.items() for case in cases(driver)]


@pytest.fixture(scope="module")
def gpu_present(isolated_kernel):
    km, kc = isolated_kernel
    reply, messages = execute(kc, "import xcuda; print(xcuda.driver_available())")
    assert reply["content"]["status"] == "ok", errors(messages)
    return stream_text(messages, "stdout").strip() == "True"


@pytest.fixture(params=sorted(DRIVERS))
def gpu_kernel(request, tmp_path):
    """(km, kc, Driver): a kernel of the case's own on one driver, or a skip saying why it cannot run."""
    if request.param == "gpu" and not request.getfixturevalue("gpu_present"):
        pytest.skip("no CUDA device: xcuda.driver_available() is False in the kernel (no libcuda "
                    "or no device); the GPU fault cases run on the GPU machine")
    if request.param == "sim" and not os.path.exists(SIM_DRIVER):
        pytest.skip("XCUDA_SIM_DRIVER does not name the simulated driver library (ctest sets it)")
    driver = DRIVERS[request.param]
    km, kc = start_kernel(env=dict(kernel_env(tmp_path), **driver.env))
    try:
        run_ok(kc, "import os, time, numpy as np, xcuda\n" + driver.setup)
        yield km, kc, driver
    finally:
        stop_kernel(km, kc)


def compile_cell(kc, driver, source):
    run_ok(kc, f"%%cuda{driver.arch}\n{source}")


def assert_interrupt_stops_it_within_1_s(km, kc, code, settle=0.2):
    """Runs code (which prints 'launched' first), interrupts it once that is out, and expects
    its reply, KeyboardInterrupt, within 1 s; the kernel answers after."""
    msg_id = kc.execute(code)
    wait_for_stdout(kc, msg_id, "launched")
    time.sleep(settle)
    start = time.monotonic()
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=10)
    elapsed = time.monotonic() - start
    assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
    assert elapsed < 1.0, f"interrupt took {elapsed:.2f} s"
    collect(kc, msg_id)
    assert_answers_kernel_info(kc)


def test_interrupt_while_waiting_on_a_spinning_kernel_is_keyboardinterrupt_within_1_s(gpu_kernel):
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, SPIN)
    # The interrupt comes well before the kernel ends.
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](4_000_000_000)\nxcuda.synchronize()")
    run_ok(kc, driver.release + "xcuda.synchronize()", timeout=30)   # the spin ends; the context still works


@pytest.mark.parametrize("gpu_kernel, argument", each_driver_and(lambda d: d.arguments), indirect=["gpu_kernel"])
def test_interrupt_of_every_wait_a_launch_makes_is_keyboardinterrupt_within_1_s(gpu_kernel, argument):
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, SPIN_FILL)
    reply, messages = execute(kc, "import importlib.util as u\nprint(u.find_spec('cupy') is not None)")
    if argument == "cupy" and stream_text(messages, "stdout").strip() != "True":
        if os.environ.get("XCUDA_REQUIRE_INTEROP") == "1":
            pytest.fail("CuPy is not installed in the kernel's Python, but XCUDA_REQUIRE_INTEROP=1")
        pytest.skip("CuPy is not installed in the kernel's Python")
    run_ok(kc, ARGUMENTS[argument])
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](4_000_000_000, arg)", 0.3)
    run_ok(kc, driver.release + "xcuda.synchronize()", timeout=30)   # the spin ends; the context still works


def answered_within(kc, code, seconds):
    """Runs `code`; its reply and the time it took (a kernel that no longer answers fails here)."""
    start = time.monotonic()
    reply, messages = execute(kc, code, timeout=seconds + 10)
    elapsed = time.monotonic() - start
    assert elapsed < seconds, f"{code!r} answered after {elapsed:.2f} s"
    return reply, messages


@pytest.mark.parametrize("gpu_kernel, argument", each_driver_and(lambda d: d.arguments), indirect=["gpu_kernel"])
def test_after_interrupting_a_kernel_that_never_ends_every_request_is_answered_within_2_s(gpu_kernel, argument):
    # Measured on the H200: the next cell's closing synchronisation and the frees of the
    # interrupted launch's buffers waited for the kernel, forever; the kernel stopped answering.
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, SPIN_FOREVER)
    reply, messages = execute(kc, "import importlib.util as u\nprint(u.find_spec('cupy') is not None)")
    if argument == "cupy" and stream_text(messages, "stdout").strip() != "True":
        if os.environ.get("XCUDA_REQUIRE_INTEROP") == "1":
            pytest.fail("CuPy is not installed in the kernel's Python, but XCUDA_REQUIRE_INTEROP=1")
        pytest.skip("CuPy is not installed in the kernel's Python")
    run_ok(kc, ARGUMENTS[argument])
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](arg)", 0.5)

    reply, messages = answered_within(kc, "print('still here')", 2)
    assert reply["content"]["status"] == "ok" and stream_text(messages, "stdout").strip() == "still here"

    reply, messages = answered_within(kc, "print(xcuda.gpu_work_left_running())", 2)
    running = stream_text(messages, "stdout").strip()
    assert "kernel `spin`" in running and "cell [" in running, running

    # What needs the GPU fails at once, saying what runs and what to do.
    for code in ("spin[1, 1](arg)", "xcuda.synchronize()", "xcuda.zeros(4, np.float32)"):
        reply, messages = answered_within(kc, code, 2)
        content = reply["content"]
        assert content["status"] == "error" and content["ename"] == "KernelStillRunningError", (code, content)
        assert "kernel `spin`" in content["evalue"] and "restart" in content["evalue"].lower(), content["evalue"]

    # Dropping the interrupted launch's array frees nothing yet (cuMemFree would wait): no wait.
    reply, _ = answered_within(kc, "del arg\nimport gc; gc.collect()\nprint('freed')", 2)
    assert reply["content"]["status"] == "ok"
    assert_answers_kernel_info(kc)

    if driver.release.startswith("sim."):
        # Once the kernel ends, the GPU works again and the kept releases happen.
        run_ok(kc, driver.release + "assert xcuda.gpu_work_left_running() is None\n"
                   "d = xcuda.zeros(4, np.float32)\nxcuda.synchronize()", timeout=30)
    else:
        # On a GPU the kernel never ends: a shutdown must still end the process, and the kernel with it.
        start = time.monotonic()
        kc.shutdown()
        assert kc.get_control_msg(timeout=SHUTDOWN_BUDGET_S)["msg_type"] == "shutdown_reply"
        assert wait_for_death(km, SHUTDOWN_BUDGET_S), "kernel process still alive"
        assert time.monotonic() - start < SHUTDOWN_BUDGET_S


@pytest.mark.parametrize("gpu_kernel", sorted(DRIVERS), indirect=True)
def test_cuda_restart_after_a_kernel_that_never_ends_gives_back_the_gpu_and_the_variables(gpu_kernel):
    # A GPU cannot stop a running kernel: only the old process's end ends it; the new one, in
    # its place, has a working GPU and the notebook's variables.
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, SPIN_FOREVER)
    run_ok(kc, "keep = {'state': 42}\narg = xcuda.zeros(4, np.float32)")
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](arg)\nxcuda.synchronize()")
    start = time.monotonic()
    reply, messages = execute(kc, "%cuda_restart", timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]
    reply, messages = execute(kc, "d = xcuda.zeros(4, np.float32)\nxcuda.synchronize()\n"
                                  "print(xcuda.gpu_work_left_running(), keep['state'])", timeout=60)
    usable_after = time.monotonic() - start
    assert reply["content"]["status"] == "ok", reply["content"]
    assert stream_text(messages).split()[-2:] == ["None", "42"], stream_text(messages)
    print(f"%cuda_restart to a usable GPU: {usable_after:.2f} s")  # for the GPU machine's log
    assert_answers_kernel_info(kc)


def check_context_lost_once_then_fails_fast(kc, name):
    """`name`[1, 1](d) faults: ContextLostError naming the kernel and saying restart, reported
    once (a cell that touches no CUDA does not repeat it, and Python state, `keep`, is kept); a
    later launch fails at once the same way."""
    reply, messages = execute(kc, f"{name}[1, 1](d)", timeout=30)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "ContextLostError"
    assert name in reply["content"]["evalue"]
    assert "restart" in reply["content"]["evalue"].lower()
    assert len(errors(messages)) == 1
    messages = run_ok(kc, "print(keep['state'])")
    assert stream_text(messages, "stdout").strip() == "42"
    messages = run_ok(kc, "\n".join([
        "t = time.perf_counter()",
        "try:",
        f"    {name}[1, 1](d)",
        "    print('LAUNCHED')",
        "except xcuda.ContextLostError as e:",
        "    print('FAILED', round(time.perf_counter() - t, 3), 'restart' in str(e).lower())",
    ]))
    out = stream_text(messages, "stdout").split()
    assert out[0] == "FAILED", out
    assert float(out[1]) < 0.1 and out[2] == "True", out


@pytest.mark.parametrize("gpu_kernel, case", each_driver_and(lambda d: d.sticky), indirect=["gpu_kernel"])
def test_sticky_fault_is_context_lost_once_naming_the_kernel_then_fails_fast(gpu_kernel, case):
    km, kc, driver = gpu_kernel
    source = STICKY[case]
    name = source.split("void ")[1].split("(")[0]
    run_ok(kc, "keep = {'state': 42}")
    compile_cell(kc, driver, source + "\n")
    run_ok(kc, "d = xcuda.zeros(4, np.float32)")
    check_context_lost_once_then_fails_fast(kc, name)
    # A new %%cuda cell compiles (NVRTC needs no context) but its launch fails the same way.
    compile_cell(kc, driver, 'extern "C" __global__ void after_loss() {}\n')
    reply, _ = execute(kc, "after_loss[1, 1]()")
    assert reply["content"]["ename"] == "ContextLostError"
    assert "restart" in reply["content"]["evalue"].lower()
    assert_answers_kernel_info(kc)


def test_out_of_memory_is_outofmemoryerror_then_allocations_work(gpu_kernel):
    km, kc, driver = gpu_kernel
    reply, messages = execute(kc, "xcuda.empty((1 << 50,), np.uint8)")
    assert reply["content"]["ename"] == "OutOfMemoryError"
    assert len(errors(messages)) == 1
    messages = run_ok(kc, "print(xcuda.empty((1 << 20,), np.uint8).nbytes)")
    assert stream_text(messages, "stdout").strip() == str(1 << 20)
    assert_answers_kernel_info(kc)


@pytest.mark.parametrize("launch,limit", [
    ("noop[1, 2048]()", "1024"),
    ("noop[(1, 1 << 17), 1]()", "65535"),
], ids=["2048_threads_per_block", "grid_y_too_large"])
def test_bad_launch_configuration_is_a_launch_error_naming_the_limit_and_not_sticky(gpu_kernel, launch, limit):
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, 'extern "C" __global__ void noop() {}\n')
    reply, _ = execute(kc, launch)
    assert reply["content"]["ename"] == "LaunchError"
    assert limit in reply["content"]["evalue"]
    run_ok(kc, "noop[1, 256]()\nxcuda.synchronize()")
    assert_answers_kernel_info(kc)


@pytest.mark.parametrize("gpu_kernel", ["gpu"], indirect=True)  # the simulator runs no printf
def test_printf_flood_arrives_whole_or_says_how_much_was_lost(gpu_kernel):
    km, kc, driver = gpu_kernel
    lines = 262_144
    compile_cell(kc, driver, 'extern "C" __global__ void flood() '
                             '{ printf("flood %d\\n", blockIdx.x * blockDim.x + threadIdx.x); }\n')
    reply, messages = execute(kc, "flood[1024, 256]()\nxcuda.synchronize()", timeout=120)
    assert reply["content"]["status"] == "ok", errors(messages)
    out = stream_text(messages, "stdout")
    got = {int(line.split()[1]) for line in out.splitlines() if line.startswith("flood ")}
    if len(got) != lines:
        warning = stream_text(messages, "stderr")
        assert "printf" in warning and ("lost" in warning or "dropped" in warning), (
            f"{lines - len(got)} of {lines} printf lines lost without a warning")
    assert_answers_kernel_info(kc)


@pytest.mark.parametrize("restart", [False, True], ids=["shutdown", "restart"])
def test_shutdown_while_a_kernel_spins_ends_the_process_within_2_5_s(gpu_kernel, restart):
    km, kc, driver = gpu_kernel
    compile_cell(kc, driver, SPIN)
    msg_id = kc.execute("print('launched', flush=True)\nspin[1, 1](60_000_000_000)\nxcuda.synchronize()")
    wait_for_stdout(kc, msg_id, "launched")
    time.sleep(0.3)
    start = time.monotonic()
    kc.shutdown(restart=restart)
    reply = kc.get_control_msg(timeout=SHUTDOWN_BUDGET_S)
    assert reply["msg_type"] == "shutdown_reply"
    assert wait_for_death(km, SHUTDOWN_BUDGET_S), "kernel process still alive"
    elapsed = time.monotonic() - start
    assert elapsed < SHUTDOWN_BUDGET_S, f"process gone after {elapsed:.2f} s"
    if restart:
        kc.stop_channels()
        km.start_kernel()
        kc2 = connect(km)
        try:
            assert_answers_kernel_info(kc2)
        finally:
            kc2.stop_channels()

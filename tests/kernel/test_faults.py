"""The fault cases of issue 6 through the real kernel process (jupyter_client, as a frontend).

Each case ends by checking that the kernel still answers kernel_info within a second (or, for a
crash, that a restarted kernel does within 10 s). Cases covered elsewhere are not repeated:

  1  a Python cell raises ............................ test_queue.py (one reply, busy/idle) and
                                                       test_protocol.py (one error output)
  2  cells queued behind an error .................... test_queue.py
  3  interrupt during sleep, busy loop, input() ...... test_interrupt.py
  10 64 MiB from C to fd 1 ........................... test_c_output.py
  13 shutdown/restart while Python or C spins ........ test_lifecycle.py (here: while the GPU spins)

Here: 11 (malformed cells and bytes), 12 (segfault + restart), 14 (1,000 requests with injected
faults), and the GPU cases 4-9 and 13, which skip with the reason where the kernel finds no
usable CUDA device (on CI: no driver). Cases 4, 5/6 and 13 also run on CI against the runtime's
simulated libcuda (XCUDA_SIM_DRIVER, set by ctest). A sticky GPU fault poisons its process, so
each of those cases gets a kernel of its own.

GPU machine: JUPYTER_PATH=<build>/tests/kernel/jupyter python3 -m pytest -rs tests/kernel/test_faults.py
"""

import os
import random
import re
import signal
import time
from queue import Empty

import pytest

from conftest import collect, connect, execute, flush_iopub, hang_report, shell_reply, start_kernel, stop_kernel

KERNEL_INFO_BUDGET_S = 1.0
RESTART_BUDGET_S = 10.0
SHUTDOWN_BUDGET_S = 2.5


def kernel_env(state_dir):
    # Compiled modules and IPython's history go to a directory of the test's own, never the
    # user's ~/.cache and ~/.ipython.
    return dict(os.environ, XDG_CACHE_HOME=str(state_dir / "cache"), IPYTHONDIR=str(state_dir / "ipython"))


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    km, kc = start_kernel(env=kernel_env(tmp_path_factory.mktemp("kernel")))
    yield km, kc
    stop_kernel(km, kc)


@pytest.fixture
def fresh_kernel(tmp_path):
    km, kc = start_kernel(env=kernel_env(tmp_path))
    yield km, kc
    stop_kernel(km, kc)


def assert_answers_kernel_info(kc, budget=KERNEL_INFO_BUDGET_S):
    start = time.monotonic()
    msg_id = kc.kernel_info()
    reply = shell_reply(kc, msg_id, timeout=budget + 5)
    elapsed = time.monotonic() - start
    assert reply["msg_type"] == "kernel_info_reply"
    assert elapsed < budget, f"kernel_info took {elapsed:.2f} s after the fault"
    collect(kc, msg_id)


def errors(messages):
    return [m["content"] for m in messages if m["msg_type"] == "error"]


def stream_text(messages, name):
    return "".join(m["content"]["text"] for m in messages
                   if m["msg_type"] == "stream" and m["content"]["name"] == name)


# ---------------------------------------------------------------------------------------------
# 11. Malformed cells and bytes: a clear error or a clean result, never a crash.

def usage_error_text(messages):
    # IPython shows a magic's UsageError as one stderr line, without a traceback.
    text = stream_text(messages, "stderr")
    assert text.startswith("UsageError: "), text
    assert errors(messages) == []
    return text


def test_unknown_magic_option_is_a_usage_error_naming_it(kernel):
    km, kc = kernel
    reply, messages = execute(kc, '%%cuda --bogus\nextern "C" __global__ void k() {}\n')
    text = usage_error_text(messages)
    assert "--bogus" in text and "%%cuda -h" in text
    assert_answers_kernel_info(kc)


def test_a_usage_error_marks_the_cell_failed_as_ipykernel_does(kernel):
    # xeus-python alone replies "ok" (IPython never records a UsageError as last_error)
    km, kc = kernel
    reply, messages = execute(kc, '%%cuda --bogus\nextern "C" __global__ void k() {}\n')
    content = reply["content"]
    assert content["status"] == "error"
    assert content["ename"] == "UsageError" and "--bogus" in content["evalue"]
    shown = usage_error_text(messages)
    assert shown.count("UsageError") == 1 and content["evalue"] in shown  # shown once, on stderr
    reply, _ = execute(kc, "print('next')")
    assert reply["content"]["status"] == "ok"


def test_empty_cuda_cell_is_a_usage_error_saying_the_body_is_empty(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "%%cuda\n")
    assert "cell body is empty" in usage_error_text(messages)
    assert_answers_kernel_info(kc)


def test_cuda_help_alone_in_a_cell_prints_the_help(kernel):
    km, kc = kernel
    for cell in ("%%cuda -h", "%%cuda_header --help", "%%cuda_profile -h\n"):
        reply, messages = execute(kc, cell)
        assert reply["content"]["status"] == "ok", cell
        assert stream_text(messages, "stdout").startswith("Usage: " + cell.split()[0]), cell
        assert not errors(messages), cell


def test_cuda_cell_without_global_compiles_and_says_there_is_nothing_to_bind(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "%%cuda\n__device__ int helper(int x) { return x + 1; }\n")
    assert reply["content"]["status"] == "ok"
    assert "no __global__" in stream_text(messages, "stderr")
    assert_answers_kernel_info(kc)


def test_non_utf8_bytes_written_to_fd_1_arrive_replaced_with_their_neighbours(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import os; os.write(1, b'before \\xff\\xfe after\\n')")
    assert reply["content"]["status"] == "ok"
    text = stream_text(messages, "stdout")
    assert "before " in text and " after" in text
    assert "\ufffd" in text
    assert_answers_kernel_info(kc)


def test_printing_an_unencodable_string_is_a_python_error_not_a_crash(kernel):
    km, kc = kernel
    # "\\udcff" is how Python carries an undecodable byte; it cannot be sent as UTF-8.
    reply, messages = execute(kc, "print('caf\\udce9')")
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] in ("UnicodeEncodeError", "TypeError")
    assert len(errors(messages)) == 1
    assert_answers_kernel_info(kc)


def send_execute_that_is_not_utf8(kc):
    # jupyter_client packs messages with surrogateescape: U+DCFF goes out as the raw byte 0xFF,
    # so the kernel receives a request whose JSON is not valid UTF-8.
    return kc.execute("x_latin1 = 1  # caf\udcff\n", stop_on_error=False)


def test_a_request_that_is_not_utf8_does_not_stop_the_kernel(kernel):
    km, kc = kernel
    send_execute_that_is_not_utf8(kc)
    time.sleep(0.5)
    assert km.is_alive()
    assert_answers_kernel_info(kc)


@pytest.mark.xfail(strict=True, reason="the wire guard drops a message whose JSON is not UTF-8 (a line in the "
                                       "kernel's log) and sends no reply: its header cannot be trusted")
def test_a_request_that_is_not_utf8_gets_a_reply(kernel):
    km, kc = kernel
    msg_id = send_execute_that_is_not_utf8(kc)
    reply = shell_reply(kc, msg_id, timeout=5)
    assert reply["msg_type"] == "execute_reply"


def test_cuda_cell_with_latin1_characters_in_a_comment_compiles(kernel):
    km, kc = kernel
    source = '%%cuda\n// caf\u00e9, \u00ff, \u00b5s\nextern "C" __global__ void latin1_k(int* p) { p[0] = 1; }\n'
    reply, messages = execute(kc, source, timeout=60)
    assert reply["content"]["status"] == "ok", errors(messages)
    reply, messages = execute(kc, "print(type(latin1_k).__name__)")
    assert stream_text(messages, "stdout").strip() == "Kernel"
    assert_answers_kernel_info(kc)


def test_cuda_cell_holding_an_undecodable_byte_is_a_python_error_not_a_crash(kernel):
    km, kc = kernel
    code = ("get_ipython().run_cell_magic('cuda', '', "
            "'// caf\\udce9\\nextern \"C\" __global__ void raw_latin1_k() {}\\n')")
    reply, messages = execute(kc, code, timeout=60)
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] in ("UnicodeEncodeError", "TypeError")
    assert len(errors(messages)) == 1
    assert_answers_kernel_info(kc)


def test_one_megabyte_cuda_source_compiles(kernel):
    km, kc = kernel
    # 2,000 functions for the parser, comment lines for the bulk: NVRTC on 2 cores stays at seconds.
    functions = "".join(f"__device__ int filler_{i}(int x) {{ return x + {i}; }}\n" for i in range(2000))
    comments = "// " + "padding " * 12 + "\n"
    body = (functions + comments * (1_000_000 // len(comments))
            + 'extern "C" __global__ void big_k(int* p) { p[0] = filler_7(1); }\n')
    assert len(body) > 1_000_000
    reply, messages = execute(kc, "%%cuda\n" + body, timeout=120)
    assert reply["content"]["status"] == "ok", errors(messages)
    reply, messages = execute(kc, "print(type(big_k).__name__)")
    assert stream_text(messages, "stdout").strip() == "Kernel"
    assert_answers_kernel_info(kc)


# ---------------------------------------------------------------------------------------------
# 12. A segfault in native code: the process dies; a restarted kernel answers within 10 s.

def wait_for_death(km, budget):
    deadline = time.monotonic() + budget
    while km.is_alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.parametrize("code", [
    "import ctypes; ctypes.string_at(0)",
    "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)",
], ids=["null_read", "sigsegv"])
def test_segfault_kills_the_kernel_and_a_restarted_one_answers_within_10_s(fresh_kernel, code):
    km, kc = fresh_kernel
    kc.execute(code)
    assert wait_for_death(km, 10), "the kernel survived a segfault: the fault did not happen"
    # What a frontend's restarter does on seeing the process gone.
    start = time.monotonic()
    km.restart_kernel(now=True)
    kc.stop_channels()
    kc2 = connect(km)
    try:
        reply, _ = execute(kc2, "1 + 1", timeout=RESTART_BUDGET_S)
        elapsed = time.monotonic() - start
        assert reply["content"]["status"] == "ok"
        assert elapsed < RESTART_BUDGET_S, f"restarted kernel answered after {elapsed:.1f} s"
    finally:
        kc2.stop_channels()


# ---------------------------------------------------------------------------------------------
# 14. 1,000 requests with injected faults: one reply each, one busy/idle pair per shell request.

FUZZ_REQUESTS = 1000
FUZZ_SEED = 6
FUZZ_BUDGET_S = 150

FUZZ_CELLS = [
    ("ok", "fz_x = {i}"),
    ("ok", "print('out', {i})"),
    ("ok", "{i} * 2"),
    ("raises", "raise ValueError('injected {i}')"),
    ("raises", "1 / 0"),
    ("bad_option", "%%cuda --bogus-{i}\n"),
    ("usage", "%cuda"),
    ("sleeps", "import time; time.sleep(0.02)"),
    ("launch", "fz_k[1, 1]()"),            # NoDeviceError without a GPU; runs on one
    ("c_output", "import os; os.write(1, b'c {i}\\n')"),
]
COMPILE_ERROR_CELL = "%%cuda\nextern \"C\" __global__ void fz_bad_{i}() {{ undefined_name_{i}; }}\n"
COMPILE_ERRORS = 8   # NVRTC takes ~0.1-0.3 s a compile on 2 cores: a few, not hundreds


# Known gap, left visible: an interrupt that lands in IPython's bookkeeping after a cell's code
# leaves execution_count unchanged, so the next cell's history row collides; IPython's history
# thread then prints "ERROR! Session/line number was not unique..." from its own thread, into
# whichever request is current, even after its idle. Those lines (and only those) are set aside
# and printed in the summary; any other output after idle fails the test.
HISTORY_WARNING = "Session/line number was not unique"


HISTORY_WARNING_TEXT = HISTORY_WARNING + " in database. History logging moved to new session "


def _history_warning_state(text):
    """'done' when text is the whole warning, 'more' while it can still become it, else None.
    The stream coalescer cuts IPython's several writes into messages at any point."""
    fixed = HISTORY_WARNING_TEXT
    if len(text) <= len(fixed):
        return "more" if fixed.startswith(text) else None
    if not text.startswith(fixed):
        return None
    rest = text[len(fixed):]
    if re.fullmatch(r"\d+\n", rest):
        return "done"
    return "more" if re.fullmatch(r"\d*", rest) else None


def history_warning_pieces(order):
    """The iopub stream messages that make up IPython's history warnings, in whatever requests
    they landed: the one where the warning starts and the stream messages that complete it."""
    pieces = set()
    for i, msg in enumerate(order):
        if msg["msg_type"] != "stream" or HISTORY_WARNING not in msg["content"]["text"]:
            continue
        pieces.add(id(msg))
        text = msg["content"]["text"]
        text = text[text.index(HISTORY_WARNING):]
        state = _history_warning_state(text)
        for later in order[i + 1:]:
            if state != "more":
                break
            if later["msg_type"] != "stream":
                continue
            grown = text + later["content"]["text"]
            if _history_warning_state(grown) is None:
                continue
            pieces.add(id(later))
            text, state = grown, _history_warning_state(grown)
    return pieces


def send_control(kc, msg_type):
    msg = kc.session.msg(msg_type, {})
    kc.control_channel.send(msg)
    return msg["header"]["msg_id"]


def fuzz_plan(rng):
    plan = []
    compile_errors = set(rng.sample(range(FUZZ_REQUESTS), COMPILE_ERRORS))
    for i in range(FUZZ_REQUESTS):
        if i in compile_errors:
            plan.append(("execute", COMPILE_ERROR_CELL.format(i=i)))
            continue
        r = rng.random()
        if r < 0.55:
            plan.append(("execute", rng.choice(FUZZ_CELLS)[1].format(i=i)))
        elif r < 0.68:
            plan.append(("complete", rng.choice(["pri", "fz_", "import o", "xcuda.", ""])))
        elif r < 0.8:
            plan.append(("inspect", rng.choice(["print", "fz_x", "len(", "no_such_name"])))
        elif r < 0.9:
            plan.append(("is_complete", rng.choice(["for i in x:", "1 +", "x = 1", "%%cuda\n", "))"])))
        else:
            plan.append(("interrupt", None))
    return plan


def send(kc, rng, kind, arg):
    if kind == "execute":
        return "shell", kc.execute(arg, stop_on_error=rng.random() < 0.2)
    if kind == "complete":
        return "shell", kc.complete(arg, len(arg))
    if kind == "inspect":
        return "shell", kc.inspect(arg, len(arg))
    if kind == "is_complete":
        return "shell", kc.is_complete(arg)
    return "control", send_control(kc, "interrupt_request")


def test_1000_requests_with_injected_faults_each_get_one_reply_and_one_busy_idle_pair(kernel):
    km, kc = kernel
    signal.alarm(FUZZ_BUDGET_S)   # replaces conftest's per-test alarm for this one test
    reply, _ = execute(kc, '%%cuda\nextern "C" __global__ void fz_k() {}\n', timeout=60)
    assert reply["content"]["status"] == "ok"
    flush_iopub(kc)
    rng = random.Random(FUZZ_SEED)
    plan = fuzz_plan(rng)
    sent = {}            # msg_id -> (channel, kind)
    what = {}            # msg_id -> the request, for failure messages
    replies = {}         # msg_id -> [reply, ...]
    iopub = {}           # parent msg_id -> [message, ...]
    strays = []          # iopub messages with a parent we never sent

    def take_iopub(timeout):
        msg = kc.get_iopub_msg(timeout=timeout)
        order.append(msg)
        parent = msg["parent_header"].get("msg_id")
        (iopub.setdefault(parent, []) if parent in sent else strays).append(msg)

    def take_replies(get, timeout):
        msg = get(timeout=timeout)
        replies.setdefault(msg["parent_header"].get("msg_id"), []).append(msg)

    def idle_seen(msg_id):
        return any(m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                   for m in iopub.get(msg_id, []))

    order = []           # every iopub message, in arrival order
    history_warnings = []
    start = time.monotonic()
    position = 0
    while position < len(plan):
        # Bursts of 1-12 requests: enough queueing that interrupts and stop_on_error land on
        # arbitrary requests, bounded so an interrupt is never only ever aimed at an idle kernel.
        burst = plan[position:position + rng.randint(1, 12)]
        position += len(burst)
        pending = []
        for kind, arg in burst:
            channel, msg_id = send(kc, rng, kind, arg)
            sent[msg_id] = (channel, kind)
            what[msg_id] = f"{kind} {arg!r}"
            pending.append(msg_id)
        deadline = time.monotonic() + 30
        while not all(m in replies and (sent[m][0] == "control" or idle_seen(m)) for m in pending):
            assert time.monotonic() < deadline, (
                f"no reply or idle within 30 s for {[sent[m] for m in pending if m not in replies]}"
                f" (request {position} of {len(plan)}); {hang_report(km)}")
            for get in (kc.get_shell_msg, kc.get_control_msg):
                try:
                    take_replies(get, 0.001)
                except Empty:
                    pass
            try:
                take_iopub(0.01)
            except Empty:
                pass
    # Anything late (a second reply, output after idle) has this long to show up.
    for get in (kc.get_shell_msg, kc.get_control_msg):
        while True:
            try:
                take_replies(get, 0.3)
            except Empty:
                break
    while True:
        try:
            take_iopub(0.3)
        except Empty:
            break
    elapsed = time.monotonic() - start

    assert len(sent) == FUZZ_REQUESTS
    extra = {m: len(r) for m, r in replies.items() if m not in sent or len(r) != 1}
    assert not extra, f"requests with other than one reply (or replies to unknown requests): {extra}"
    warning_pieces = history_warning_pieces(order)
    expected_type = {"execute": "execute_reply", "complete": "complete_reply", "inspect": "inspect_reply",
                     "is_complete": "is_complete_reply", "interrupt": "interrupt_reply"}
    for msg_id, (channel, kind) in sent.items():
        assert replies[msg_id][0]["msg_type"] == expected_type[kind]
        if channel != "shell":
            continue
        if any(id(m) in warning_pieces for m in iopub[msg_id]):
            history_warnings.append(what[msg_id])
        seen = [(m["msg_type"], m["content"].get("execution_state") or m["content"].get("text", ""))
                for m in iopub[msg_id] if id(m) not in warning_pieces]
        states = [m["content"]["execution_state"] for m in iopub[msg_id] if m["msg_type"] == "status"]
        assert states == ["busy", "idle"], f"{what[msg_id]}: {seen}"
        assert seen[0] == ("status", "busy"), f"{what[msg_id]}: output before busy: {seen}"
        assert seen[-1] == ("status", "idle"), f"{what[msg_id]}: output after idle: {seen}"
    assert [m["msg_type"] for m in strays if m["msg_type"] != "status"] == []
    statuses = [r[0]["content"]["status"] for r in replies.values()]
    # The faults did happen: errors and (with stop_on_error) aborts are among the replies.
    assert statuses.count("error") > 20
    print(f"\n{FUZZ_REQUESTS} requests in {elapsed:.1f} s: "
          + ", ".join(f"{s} {statuses.count(s)}" for s in sorted(set(statuses)))
          + f"; IPython history warnings landed in: {history_warnings}")
    reply, _ = execute(kc, "'alive'")
    assert reply["content"]["status"] == "ok"
    assert_answers_kernel_info(kc)


# ---------------------------------------------------------------------------------------------
# GPU cases (4-9, 13): skipped where the kernel finds no usable CUDA device.

@pytest.fixture(scope="module")
def gpu_present(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import xcuda; print(xcuda.driver_available())")
    assert reply["content"]["status"] == "ok", errors(messages)
    return stream_text(messages, "stdout").strip() == "True"


@pytest.fixture
def gpu_kernel(gpu_present, tmp_path):
    if not gpu_present:
        pytest.skip("no CUDA device: xcuda.driver_available() is False in the kernel (no libcuda "
                    "or no device); the GPU fault cases run on the GPU machine")
    km, kc = start_kernel(env=kernel_env(tmp_path))
    try:
        run_ok(kc, "import xcuda")
        yield km, kc
    finally:
        stop_kernel(km, kc)


SPIN = ('%%cuda\nextern "C" __global__ void spin(long long cycles) '
        '{ long long t = clock64(); while (clock64() - t < cycles) {} }\n')


def run_ok(kc, code, timeout=60):
    reply, messages = execute(kc, code, timeout=timeout)
    assert reply["content"]["status"] == "ok", errors(messages)
    return messages


def wait_for_stdout(kc, msg_id, marker, timeout=20):
    deadline = time.monotonic() + timeout
    while True:
        msg = kc.get_iopub_msg(timeout=max(0.01, deadline - time.monotonic()))
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and marker in msg["content"]["text"]):
            return


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


def test_gpu_interrupt_while_waiting_on_a_spinning_kernel_is_keyboardinterrupt_within_1_s(gpu_kernel):
    km, kc = gpu_kernel
    run_ok(kc, SPIN)
    # ~2 s of spinning at H200 clocks: the interrupt comes well before the kernel ends.
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](4_000_000_000)\nxcuda.synchronize()")
    run_ok(kc, "xcuda.synchronize()", timeout=30)   # the spin ends; the context still works


SPIN_FILL = ('%%cuda\nextern "C" __global__ void spin_fill(long long cycles, float* out) '
             '{ long long t = clock64(); while (clock64() - t < cycles) {} out[0] = 1.0f; }\n')

# Where the cell waits for the spinning kernel: numpy's copy-back inside the launch call, the
# cell's closing synchronisation for a DeviceArray and for a CuPy array.
ARGUMENTS = {
    "numpy": "arg = np.zeros(4, np.float32)",
    "DeviceArray": "arg = xcuda.zeros((4,), np.float32)",
    "cupy": "import cupy; arg = cupy.zeros(4, dtype=cupy.float32)",
}


@pytest.mark.parametrize("argument", sorted(ARGUMENTS))
def test_gpu_interrupt_of_every_wait_a_launch_makes_is_keyboardinterrupt_within_1_s(gpu_kernel, argument):
    km, kc = gpu_kernel
    run_ok(kc, SPIN_FILL)
    reply, messages = execute(kc, "import numpy as np, importlib.util as u\nprint(u.find_spec('cupy') is not None)")
    if argument == "cupy" and stream_text(messages, "stdout").strip() != "True":
        if os.environ.get("XCUDA_REQUIRE_INTEROP") == "1":
            pytest.fail("CuPy is not installed in the kernel's Python, but XCUDA_REQUIRE_INTEROP=1")
        pytest.skip("CuPy is not installed in the kernel's Python")
    run_ok(kc, ARGUMENTS[argument])
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin_fill[1, 1](4_000_000_000, arg)", 0.3)
    run_ok(kc, "xcuda.synchronize()", timeout=30)   # the spin ends; the context still works


STICKY = {
    "out_of_bounds_store": 'extern "C" __global__ void oob_store(float* p) { p[1ull << 40] = 1.0f; }',
    "trap": 'extern "C" __global__ void trap_now(float* p) { __trap(); }',
    "failed_assert": 'extern "C" __global__ void assert_fails(float* p) { assert(p == nullptr); }',
}


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


@pytest.mark.parametrize("case", sorted(STICKY))
def test_gpu_sticky_fault_is_context_lost_once_naming_the_kernel_then_fails_fast(gpu_kernel, case):
    km, kc = gpu_kernel
    source = STICKY[case]
    name = source.split("void ")[1].split("(")[0]
    run_ok(kc, "keep = {'state': 42}\nimport numpy as np, time")
    run_ok(kc, "%%cuda\n" + source + "\n")
    run_ok(kc, "d = xcuda.zeros(4, np.float32)")
    check_context_lost_once_then_fails_fast(kc, name)
    # A new %%cuda cell compiles (NVRTC needs no context) but its launch fails the same way.
    run_ok(kc, '%%cuda\nextern "C" __global__ void after_loss() {}\n')
    reply, _ = execute(kc, "after_loss[1, 1]()")
    assert reply["content"]["ename"] == "ContextLostError"
    assert "restart" in reply["content"]["evalue"].lower()
    assert_answers_kernel_info(kc)


def check_out_of_memory_then_allocations_work(kc):
    reply, messages = execute(kc, "import numpy as np\nxcuda.empty((1 << 50,), np.uint8)")
    assert reply["content"]["ename"] == "OutOfMemoryError"
    assert len(errors(messages)) == 1
    messages = run_ok(kc, "print(xcuda.empty((1 << 20,), np.uint8).nbytes)")
    assert stream_text(messages, "stdout").strip() == str(1 << 20)
    assert_answers_kernel_info(kc)


def test_gpu_out_of_memory_is_outofmemoryerror_then_allocations_work(gpu_kernel):
    km, kc = gpu_kernel
    check_out_of_memory_then_allocations_work(kc)


BAD_LAUNCHES = pytest.mark.parametrize("launch,limit", [
    ("noop[1, 2048]()", "1024"),
    ("noop[(1, 1 << 17), 1]()", "65535"),
], ids=["2048_threads_per_block", "grid_y_too_large"])


def check_bad_launch_is_a_launch_error_naming_the_limit(kc, launch, limit):
    reply, _ = execute(kc, launch)
    assert reply["content"]["ename"] == "LaunchError"
    assert limit in reply["content"]["evalue"]
    run_ok(kc, "noop[1, 256]()\nxcuda.synchronize()")
    assert_answers_kernel_info(kc)


@BAD_LAUNCHES
def test_gpu_bad_launch_configuration_is_a_launch_error_naming_the_limit_and_not_sticky(gpu_kernel, launch, limit):
    km, kc = gpu_kernel
    run_ok(kc, '%%cuda\nextern "C" __global__ void noop() {}\n')
    check_bad_launch_is_a_launch_error_naming_the_limit(kc, launch, limit)


def test_gpu_printf_flood_arrives_whole_or_says_how_much_was_lost(gpu_kernel):
    km, kc = gpu_kernel
    lines = 262_144
    run_ok(kc, '%%cuda\nextern "C" __global__ void flood() '
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
def test_gpu_shutdown_while_a_kernel_spins_ends_the_process_within_2_5_s(gpu_kernel, restart):
    km, kc = gpu_kernel
    run_ok(kc, SPIN)
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


# ---------------------------------------------------------------------------------------------
# Cases 4, 5/6 and 13 on CI: the kernel process against the runtime's simulated libcuda, whose
# kernels are recognised by name ("spin" runs until released, "wild" and "trap" are sticky
# faults). ctest passes its path as XCUDA_SIM_DRIVER; the kernel loads it as its libcuda.

SIM_DRIVER = os.environ.get("XCUDA_SIM_DRIVER", "")
SIM_SOURCE = ('%%cuda --arch compute_90\nextern "C" __global__ void spin() {}\n'
              'extern "C" __global__ void wild(float* y) {}\nextern "C" __global__ void trap(float* y) {}\n'
              'extern "C" __global__ void noop() {}\n')


@pytest.fixture
def sim_kernel(tmp_path):
    if not os.path.exists(SIM_DRIVER):
        pytest.skip("XCUDA_SIM_DRIVER does not name the simulated driver library (ctest sets it)")
    km, kc = start_kernel(env=dict(kernel_env(tmp_path), XCUDA_CUDA_DRIVER=SIM_DRIVER))
    try:
        run_ok(kc, "import ctypes, os, time, numpy as np, xcuda\n"
                   "sim = ctypes.CDLL(os.environ['XCUDA_CUDA_DRIVER'])")
        run_ok(kc, SIM_SOURCE)
        yield km, kc
    finally:
        stop_kernel(km, kc)


def test_sim_interrupt_while_waiting_on_a_spinning_kernel_is_keyboardinterrupt_within_1_s(sim_kernel):
    km, kc = sim_kernel
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1]()\nxcuda.synchronize()")
    run_ok(kc, "sim.xcuda_sim_release()\nxcuda.synchronize()")


def test_sim_interrupt_while_a_numpy_launch_waits_to_copy_back_returns_at_once(sim_kernel):
    # The launch itself waits (numpy's copy-back); after the interrupt the cell's closing
    # synchronisation must not wait again for the kernel the user just stopped.
    km, kc = sim_kernel
    run_ok(kc, '%%cuda --arch compute_90\nextern "C" __global__ void spin(float* out) {}\n')
    assert_interrupt_stops_it_within_1_s(km, kc, "print('launched', flush=True)\nspin[1, 1](np.zeros(4, np.float32))")
    run_ok(kc, "sim.xcuda_sim_release()\nxcuda.synchronize()")


@pytest.mark.parametrize("name", ["wild", "trap"])
def test_sim_sticky_fault_is_context_lost_once_naming_the_kernel_then_fails_fast(sim_kernel, name):
    km, kc = sim_kernel
    run_ok(kc, "keep = {'state': 42}\nd = xcuda.zeros(4, np.float32)")
    check_context_lost_once_then_fails_fast(kc, name)
    assert_answers_kernel_info(kc)


def test_sim_shutdown_while_a_kernel_spins_ends_the_process_within_2_5_s(sim_kernel):
    km, kc = sim_kernel
    msg_id = kc.execute("print('launched', flush=True)\nspin[1, 1]()\nxcuda.synchronize()")
    wait_for_stdout(kc, msg_id, "launched")
    time.sleep(0.3)
    start = time.monotonic()
    kc.shutdown()
    assert kc.get_control_msg(timeout=SHUTDOWN_BUDGET_S)["msg_type"] == "shutdown_reply"
    assert wait_for_death(km, SHUTDOWN_BUDGET_S), "kernel process still alive"
    elapsed = time.monotonic() - start
    assert elapsed < SHUTDOWN_BUDGET_S, f"process gone after {elapsed:.2f} s"


def test_sim_out_of_memory_is_outofmemoryerror_then_allocations_work(sim_kernel):
    km, kc = sim_kernel
    check_out_of_memory_then_allocations_work(kc)


@BAD_LAUNCHES
def test_sim_bad_launch_configuration_is_a_launch_error_naming_the_limit_and_not_sticky(sim_kernel, launch, limit):
    km, kc = sim_kernel
    check_bad_launch_is_a_launch_error_naming_the_limit(kc, launch, limit)

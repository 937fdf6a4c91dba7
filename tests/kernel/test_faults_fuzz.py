"""Many faults in a row, through the real kernel process: 1,000 requests with injected faults
(errors, bad magics, compile errors, interrupts, completions) get one reply each and one busy/idle
pair per shell request, and the kernel still answers after."""

import random
import signal
import time
from queue import Empty

from conftest import assert_answers_kernel_info, execute, flush_iopub, hang_report

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


def test_1000_requests_with_injected_faults_each_get_one_reply_and_one_busy_idle_pair(isolated_kernel):
    km, kc = isolated_kernel
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
        parent = msg["parent_header"].get("msg_id")
        (iopub.setdefault(parent, []) if parent in sent else strays).append(msg)

    def take_replies(get, timeout):
        msg = get(timeout=timeout)
        replies.setdefault(msg["parent_header"].get("msg_id"), []).append(msg)

    def idle_seen(msg_id):
        return any(m["msg_type"] == "status" and m["content"]["execution_state"] == "idle"
                   for m in iopub.get(msg_id, []))

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
    expected_type = {"execute": "execute_reply", "complete": "complete_reply", "inspect": "inspect_reply",
                     "is_complete": "is_complete_reply", "interrupt": "interrupt_reply"}
    for msg_id, (channel, kind) in sent.items():
        assert replies[msg_id][0]["msg_type"] == expected_type[kind]
        if channel != "shell":
            continue
        seen = [(m["msg_type"], m["content"].get("execution_state") or m["content"].get("text", ""))
                for m in iopub[msg_id]]
        states = [m["content"]["execution_state"] for m in iopub[msg_id] if m["msg_type"] == "status"]
        assert states == ["busy", "idle"], f"{what[msg_id]}: {seen}"
        assert seen[0] == ("status", "busy"), f"{what[msg_id]}: output before busy: {seen}"
        assert seen[-1] == ("status", "idle"), f"{what[msg_id]}: output after idle: {seen}"
    assert [m["msg_type"] for m in strays if m["msg_type"] != "status"] == []
    # Interrupts wait for the user's code, so none skips IPython's count step: its history
    # thread never finds a duplicate row (it said so in whichever request was current).
    duplicate_rows = [m["content"]["text"] for ms in iopub.values() for m in ms
                      if m["msg_type"] == "stream" and "not unique" in m["content"]["text"]]
    assert not duplicate_rows, duplicate_rows
    statuses = [r[0]["content"]["status"] for r in replies.values()]
    # The faults did happen: errors and (with stop_on_error) aborts are among the replies.
    assert statuses.count("error") > 20
    print(f"\n{FUZZ_REQUESTS} requests in {elapsed:.1f} s: "
          + ", ".join(f"{s} {statuses.count(s)}" for s in sorted(set(statuses))))
    reply, _ = execute(kc, "'alive'")
    assert reply["content"]["status"] == "ok"
    assert_answers_kernel_info(kc)


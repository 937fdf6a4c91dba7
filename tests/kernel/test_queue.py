"""Many queued requests: order, one reply and one busy/idle pair each; stop_on_error."""

import time

from conftest import collect, execute, flush_iopub, output_types


def test_100_queued_executes_reply_in_order_with_their_own_outputs(kernel):
    km, kc = kernel
    flush_iopub(kc)
    msg_ids = [kc.execute(f"print({i})") for i in range(100)]
    replies = [kc.get_shell_msg(timeout=20) for _ in msg_ids]
    assert [r["parent_header"]["msg_id"] for r in replies] == msg_ids
    assert all(r["content"]["status"] == "ok" for r in replies)
    counts = [r["content"]["execution_count"] for r in replies]
    assert counts == list(range(counts[0], counts[0] + 100))

    # iopub: for each request, in order: busy, execute_input, its stream, idle; nothing
    # of a request after its idle.
    seen = {}
    order = []
    deadline = time.monotonic() + 30
    while len([m for m in order if m[1] == "idle"]) < 100 and time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=10)
        parent = msg["parent_header"].get("msg_id")
        if parent not in msg_ids:
            continue
        kind = msg["content"]["execution_state"] if msg["msg_type"] == "status" else msg["msg_type"]
        assert "idle" not in seen.get(parent, []), f"{kind} published after idle"
        seen.setdefault(parent, []).append(kind)
        if kind == "stream":
            assert msg["content"]["text"].strip() in ("", str(msg_ids.index(parent)))
        order.append((parent, kind))
    assert [p for p, k in order if k == "busy"] == msg_ids
    for i, msg_id in enumerate(msg_ids):
        kinds = [k for k in seen[msg_id] if k != "stream"]
        assert kinds == ["busy", "execute_input", "idle"], (i, seen[msg_id])
        assert "stream" in seen[msg_id]


def test_cells_queued_behind_an_error_are_aborted_each_with_a_reply(kernel):
    km, kc = kernel
    flush_iopub(kc)
    failing = kc.execute("import time; time.sleep(0.3); 1 / 0")
    queued = [kc.execute(f"print('must not run {i}')") for i in range(3)]
    replies = {}
    for _ in range(4):
        r = kc.get_shell_msg(timeout=20)
        replies[r["parent_header"]["msg_id"]] = r
    assert replies[failing]["content"]["status"] == "error"
    assert replies[failing]["content"]["ename"] == "ZeroDivisionError"
    for msg_id in queued:
        assert replies[msg_id]["content"]["status"] == "aborted"
        assert replies[msg_id]["msg_type"] == "execute_reply"
    # The failed cell ends (idle) before the aborted ones start; each aborted one is a
    # bare busy/idle pair: nothing ran.
    later = []
    assert "error" in output_types(collect(kc, failing, others=later))
    assert later == [], "aborted requests published before the failed cell's idle"
    for msg_id in queued:
        messages = collect(kc, msg_id)
        assert [m["content"]["execution_state"] for m in messages] == ["busy", "idle"]
    reply, _ = execute(kc, "print('runs again')")
    assert reply["content"]["status"] == "ok"


def test_cells_queued_behind_a_magic_usage_error_are_aborted(kernel):
    # Run All stops at a mistyped magic option as at any other error
    km, kc = kernel
    flush_iopub(kc)
    failing = kc.execute("%%cuda --bogus\n")
    queued = kc.execute("print('must not run')")
    first, second = kc.get_shell_msg(timeout=20), kc.get_shell_msg(timeout=20)
    assert first["parent_header"]["msg_id"] == failing and first["content"]["status"] == "error"
    assert second["parent_header"]["msg_id"] == queued and second["content"]["status"] == "aborted"


def test_without_stop_on_error_queued_cells_run(kernel):
    km, kc = kernel
    flush_iopub(kc)
    failing = kc.execute("1 / 0", stop_on_error=False)
    after = kc.execute("'ran'")
    first = kc.get_shell_msg(timeout=20)
    second = kc.get_shell_msg(timeout=20)
    assert first["parent_header"]["msg_id"] == failing
    assert first["content"]["status"] == "error"
    assert second["parent_header"]["msg_id"] == after
    assert second["content"]["status"] == "ok"


def test_a_silent_error_does_not_abort_the_queue(kernel):
    km, kc = kernel
    failing = kc.execute("1 / 0", silent=True)
    after = kc.execute("'ran'")
    assert kc.get_shell_msg(timeout=20)["content"]["status"] == "error"
    reply = kc.get_shell_msg(timeout=20)
    assert reply["parent_header"]["msg_id"] == after
    assert reply["content"]["status"] == "ok"


def test_a_request_whose_handler_raises_still_gets_one_reply_and_busy_idle(kernel):
    # IPython's completer asserts on a cursor past the end of the code; in stock xeus the
    # exception escapes the handler and no reply is ever sent.
    km, kc = kernel
    flush_iopub(kc)
    msg_id = kc.complete("zi", 1000)
    reply = kc.get_shell_msg(timeout=10)
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["msg_type"] == "complete_reply"
    assert reply["content"]["status"] == "error"
    assert "complete_request" in reply["content"]["evalue"]
    assert [m["content"]["execution_state"] for m in collect(kc, msg_id)] == ["busy", "idle"]
    reply, _ = execute(kc, "'still answering'")
    assert reply["content"]["status"] == "ok"

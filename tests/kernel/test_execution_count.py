"""The execution count as ipykernel keeps it: IPython's own, advanced only by cells stored in
history, so the reply's number, In [N], Out[N], the traceback's "In [N]" and %history agree
whatever requests with store_history=False or silent=True came in between."""

import re

import pytest

from conftest import execute, stream_text

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def only(messages, msg_type):
    found = [m for m in messages if m["msg_type"] == msg_type]
    assert len(found) == 1, f"expected one {msg_type}, got {[m['msg_type'] for m in messages]}"
    return found[0]["content"]


def test_a_cell_not_stored_leaves_the_count_where_it_was(fresh_kernel):
    _, kc = fresh_kernel
    first, _ = execute(kc, "1")
    n = first["content"]["execution_count"]
    unstored, messages = execute(kc, "2", store_history=False)
    # As ipykernel: In [] shows the number a stored cell would take, the reply the last one.
    assert only(messages, "execute_input")["execution_count"] == n + 1
    assert unstored["content"]["execution_count"] == n
    stored, messages = execute(kc, "3")
    assert stored["content"]["execution_count"] == n + 1
    assert only(messages, "execute_input")["execution_count"] == n + 1
    assert only(messages, "execute_result")["execution_count"] == n + 1


def test_a_silent_request_neither_counts_nor_stores(fresh_kernel):
    _, kc = fresh_kernel
    first, _ = execute(kc, "a = 1")
    n = first["content"]["execution_count"]
    silent, messages = execute(kc, "b = 2", silent=True)
    assert silent["content"]["execution_count"] == n
    assert "execute_input" not in [m["msg_type"] for m in messages]
    reply, messages = execute(kc, "%history -n")
    assert reply["content"]["execution_count"] == n + 1
    assert "b = 2" not in stream_text(messages)


def test_traceback_and_history_number_a_cell_as_its_reply_does(fresh_kernel):
    _, kc = fresh_kernel
    execute(kc, "1")
    execute(kc, "2", store_history=False)
    failed, messages = execute(kc, "1/0")
    n = failed["content"]["execution_count"]
    traceback = ANSI.sub("", "\n".join(only(messages, "error")["traceback"]))
    # "Cell In [3], line 1" (IPython 8) or "Cell In[3], line 1" (IPython 9)
    assert re.search(r"In ?\[(\d+)\]", traceback).group(1) == str(n), traceback
    _, messages = execute(kc, "%history -n")
    assert f"{n}: 1/0" in stream_text(messages)


def test_a_compile_error_names_the_cell_by_the_number_its_reply_gives(fresh_kernel):
    _, kc = fresh_kernel
    execute(kc, "1")
    execute(kc, "2", store_history=False)
    failed, _ = execute(kc, '%%cuda\nextern "C" __global__ void k() { undefined_name; }\n', timeout=60)
    assert failed["content"]["ename"] == "CompileError"
    assert failed["content"]["evalue"].startswith(f"cell_{failed['content']['execution_count']}:")

"""Stream output: a cell's writes are joined into few messages (as ipykernel does), arrive
whole and in order with the cell's other messages, and still show while the cell runs."""

from queue import Empty
import time

from conftest import collect, execute, shell_reply, stream_text


def test_a_long_print_loop_arrives_whole_in_few_messages(kernel):
    # One message per write sent 40,000 messages here: past zmq's high-water mark, lines
    # and the cell's idle were lost and the frontend stayed busy.
    km, kc = kernel
    reply, messages = execute(kc, "for i in range(20000): print(i)", timeout=60)
    assert reply["content"]["status"] == "ok"
    assert stream_text(messages) == "".join(f"{i}\n" for i in range(20000))
    assert len([m for m in messages if m["msg_type"] == "stream"]) <= 100


def test_a_print_before_a_long_computation_shows_while_the_cell_runs(kernel):
    km, kc = kernel
    msg_id = kc.execute("print('early'); import time; time.sleep(3)")
    while True:
        msg = kc.get_iopub_msg(timeout=10)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            assert msg["content"]["text"] == "early\n"
            break
    try:
        kc.get_shell_msg(timeout=0.5)
        raise AssertionError("the cell had already ended: its output was not shown while it ran")
    except Empty:
        pass
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    collect(kc, msg_id)


def test_stdout_stderr_and_display_keep_their_order(kernel):
    km, kc = kernel
    code = ("import sys\nfrom IPython.display import HTML, display\n"
            "print('a'); print('b', file=sys.stderr); print('b2', file=sys.stderr)\n"
            "display(HTML('<i>x</i>')); print('c')\n")
    reply, messages = execute(kc, code)
    assert reply["content"]["status"] == "ok"
    seen = [(m["msg_type"], m["content"].get("name"), m["content"].get("text"))
            for m in messages if m["msg_type"] in ("stream", "display_data")]
    assert seen == [("stream", "stdout", "a\n"), ("stream", "stderr", "b\nb2\n"),
                    ("display_data", None, None), ("stream", "stdout", "c\n")]


def test_output_of_an_error_comes_before_its_traceback(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "print('about to fail'); 1/0")
    kinds = [m["msg_type"] for m in messages if m["msg_type"] in ("stream", "error")]
    assert kinds == ["stream", "error"]
    assert stream_text(messages) == "about to fail\n"


def test_a_thread_printing_after_its_cell_ended_still_reaches_the_notebook(kernel):
    # ... in the cell that started it, even when another request came in meanwhile
    km, kc = kernel
    reply, messages = execute(kc, "import threading; threading.Timer(0.3, print, ['late']).start()")
    assert reply["content"]["status"] == "ok"
    cell = reply["parent_header"]["msg_id"]
    info = kc.kernel_info()
    text = ""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and "late\n" not in text:
        msg = kc.get_iopub_msg(timeout=5)
        if msg["msg_type"] == "stream":
            assert msg["parent_header"]["msg_id"] == cell
            text += msg["content"]["text"]
    assert text == "late\n"
    assert shell_reply(kc, info, timeout=5)["msg_type"] == "kernel_info_reply"


def test_a_thread_printing_between_cells_is_joined_too(kernel):
    # Without joining, 20,000 lines from a thread were 40,000 messages between two cells.
    km, kc = kernel
    code = ("import threading\n"
            "def chatter():\n"
            "    for i in range(20000):\n"
            "        print(i)\n"
            "    print('done')\n"
            "threading.Timer(0.2, chatter).start()\n")
    reply, _ = execute(kc, code)
    assert reply["content"]["status"] == "ok"
    text, count = "", 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not text.endswith("done\n"):
        msg = kc.get_iopub_msg(timeout=10)
        if msg["msg_type"] == "stream":
            text += msg["content"]["text"]
            count += 1
    assert text == "".join(f"{i}\n" for i in range(20000)) + "done\n"
    assert count < 100, f"{count} stream messages for 20,001 lines"
    reply, messages = execute(kc, "print('next cell')")
    assert stream_text(messages) == "next cell\n"


def test_write_takes_str_only_and_counts_characters(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import sys; n = sys.stdout.write('héllo\\n'); print(n)\n"
                                  "try:\n    sys.stdout.write(b'x')\nexcept TypeError as e:\n    print(e)")
    assert stream_text(messages) == "héllo\n6\nwrite() argument must be str, not bytes\n"

"""fd 1 and fd 2 written from C reach the cell that wrote them, in order with print()."""

import time

from conftest import execute, stream_text

LIBC = "import ctypes; libc = ctypes.CDLL(None); "


def test_os_write_to_fd_1_and_2_reaches_the_cell(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import os; os.write(1, b'to fd 1\\n'); os.write(2, b'to fd 2\\n')")
    assert reply["content"]["status"] == "ok"
    assert stream_text(messages, "stdout") == "to fd 1\n"
    assert stream_text(messages, "stderr") == "to fd 2\n"


def test_libc_printf_reaches_the_cell(kernel):
    km, kc = kernel
    reply, messages = execute(kc, LIBC + "libc.printf(b'printf %d\\n', 42)")
    assert "printf 42\n" in stream_text(messages)


def test_libc_printf_without_newline_is_flushed_by_the_end_of_the_cell(kernel):
    km, kc = kernel
    reply, messages = execute(kc, LIBC + "libc.printf(b'no newline')")
    assert stream_text(messages) == "no newline"


def test_c_output_and_print_keep_their_order(kernel):
    km, kc = kernel
    code = LIBC + (
        "import os\n"
        "for i in range(20):\n"
        "    os.write(1, b'c%d\\n' % i)\n"
        "    print('py%d' % i)\n"
        "    libc.printf(b'printf%d\\n', i)\n"
    )
    reply, messages = execute(kc, code)
    expected = "".join(f"c{i}\npy{i}\nprintf{i}\n" for i in range(20))
    assert stream_text(messages) == expected


def test_output_of_a_subprocess_reaches_the_cell(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import subprocess; subprocess.run(['echo', 'from a child'])")
    assert "from a child\n" in stream_text(messages)


def test_a_utf8_character_split_across_writes_arrives_whole(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "import os, time; os.write(1, b'caf\\xc3'); time.sleep(0.2); os.write(1, b'\\xa9\\n')")
    assert stream_text(messages) == "café\n"


def test_c_output_arrives_while_the_cell_still_runs_python(kernel):
    # Delivery happens on the main thread whenever Python code runs (a pending call), so
    # C output shows up live in a cell that keeps running Python, not only at its end.
    km, kc = kernel
    code = ("import os, time\n"
            "os.write(1, b'early\\n')\n"
            "for _ in range(60): time.sleep(0.05)\n"
            "os.write(1, b'late\\n')")
    msg_id = kc.execute(code)
    start = time.monotonic()
    first = None
    while first is None:
        msg = kc.get_iopub_msg(timeout=10)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
            first = msg
    arrived_after = time.monotonic() - start
    assert kc.get_shell_msg(timeout=10)["parent_header"]["msg_id"] == msg_id
    assert first["content"]["text"] == "early\n"
    assert arrived_after < 2.0, f"C output of a running cell arrived after {arrived_after:.2f} s"


def test_64_mib_from_c_in_one_cell_all_arrives_without_deadlock(kernel):
    km, kc = kernel
    size = 64 << 20
    code = LIBC + (
        f"buf = ctypes.create_string_buffer(b'x' * {size}, {size})\n"
        f"assert libc.write(1, buf, {size}) == {size}\n"
    )
    start = time.monotonic()
    reply, messages = execute(kc, code, timeout=50)
    elapsed = time.monotonic() - start
    assert reply["content"]["status"] == "ok"
    text = stream_text(messages)
    assert len(text) == size and set(text) == {"x"}
    assert elapsed < 40, f"64 MiB took {elapsed:.1f} s"

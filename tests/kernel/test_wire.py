"""Hostile traffic on the kernel's ports (loopback only, bounded in count and time): malformed
multipart messages, wrong or extended signatures and replays never reach xeus; the kernel
stays up and answers after each batch."""

import random
import time

import pytest
import zmq
from jupyter_client.session import Session

from conftest import execute, flush_iopub, stream_text

CHANNELS = ("shell", "control", "stdin")
FUZZ_MESSAGES_PER_BATCH = 500
FUZZ_BATCHES = 6
FUZZ_SEED = 14


@pytest.fixture(scope="module")
def zctx():
    context = zmq.Context()
    yield context
    context.destroy(linger=0)


def raw_socket(zctx, km, channel):
    socket = zctx.socket(zmq.DEALER)
    socket.linger = 0
    socket.connect(f"{km.transport}://{km.ip}:{getattr(km, channel + '_port')}")
    return socket


def assert_alive(km, kc):
    assert km.is_alive(), "the kernel process died"
    assert kc.kernel_info(reply=True, timeout=10)["content"]["status"] == "ok"


def counter(kc):
    reply, messages = execute(kc, "print(hits)")
    assert reply["content"]["status"] == "ok"
    return int(stream_text(messages))


def test_two_frames_on_each_port_do_not_kill_the_kernel(kernel, zctx):
    km, kc = kernel
    for channel in CHANNELS:
        socket = raw_socket(zctx, km, channel)
        socket.send_multipart([b"<IDS|MSG>", b"0" * 64])
        socket.send_multipart([b"<IDS|MSG>"])
        socket.send_multipart([b"just one frame"])
        socket.close()
        time.sleep(0.2)
        assert_alive(km, kc)


def test_input_still_works_after_garbage_on_the_stdin_port(kernel, zctx):
    km, kc = kernel
    socket = raw_socket(zctx, km, "stdin")
    socket.send_multipart([b"<IDS|MSG>", b"0" * 64])
    socket.send_multipart([b"<IDS|MSG>", b"x", b"{", b"{}", b"{}", b"{}"])
    socket.close()
    msg_id = kc.execute("answer = input('name? '); print('got', answer)", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=10)
    assert request["content"]["prompt"] == "name? "
    kc.input("ada")
    reply = kc.get_shell_msg(timeout=10)
    assert reply["parent_header"]["msg_id"] == msg_id and reply["content"]["status"] == "ok"


def signed_execute(kc, code):
    msg = kc.session.msg("execute_request", {"code": code, "silent": False, "store_history": False,
                                             "user_expressions": {}, "allow_stdin": False, "stop_on_error": False})
    return msg["header"]["msg_id"], kc.session.serialize(msg)


def test_a_signature_with_bytes_appended_is_refused(kernel, zctx):
    km, kc = kernel
    execute(kc, "hits = 0")
    msg_id, frames = signed_execute(kc, "hits += 1")
    frames[1] = frames[1] + b"00"  # the valid signature, extended
    socket = raw_socket(zctx, km, "shell")
    socket.send_multipart(frames)
    assert socket.poll(1500) == 0, "a message with an extended signature was answered"
    socket.close()
    assert counter(kc) == 0


def test_a_replayed_request_runs_once(kernel, zctx):
    km, kc = kernel
    execute(kc, "hits = 0")
    msg_id, frames = signed_execute(kc, "hits += 1")
    socket = raw_socket(zctx, km, "shell")
    for _ in range(3):
        socket.send_multipart(frames)
    replies = []
    while socket.poll(1500):
        replies.append(socket.recv_multipart())
    socket.close()
    assert len(replies) == 1
    assert counter(kc) == 1


def random_frame(rng, valid_parts):
    kind = rng.randrange(6)
    if kind == 0:
        return b""
    if kind == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if kind == 2:
        return b"<IDS|MSG>"
    if kind == 3:
        return rng.choice(valid_parts)
    if kind == 4:
        return rng.choice([b"{", b"[]", b"null", b'{"msg_id": 1}', b"\xff\xfe{}", b"{}" * 1000])
    return rng.choice(valid_parts)[: rng.randrange(1, 64)]


def test_thousands_of_random_and_truncated_messages_leave_the_kernel_answering(kernel, zctx):
    km, kc = kernel
    rng = random.Random(FUZZ_SEED)
    _, valid = signed_execute(kc, "pass")
    sockets = {channel: raw_socket(zctx, km, channel) for channel in CHANNELS}
    deadline = time.monotonic() + 45
    try:
        for batch in range(FUZZ_BATCHES):
            for _ in range(FUZZ_MESSAGES_PER_BATCH):
                if rng.random() < 0.5:
                    frames = valid[: rng.randrange(len(valid) + 1)]  # truncated valid message
                    if frames and rng.random() < 0.5:
                        i = rng.randrange(len(frames))
                        frames = frames[:i] + [random_frame(rng, valid)] + frames[i + 1:]
                else:
                    frames = [random_frame(rng, valid) for _ in range(rng.randrange(1, 9))]
                if frames:
                    sockets[rng.choice(CHANNELS)].send_multipart(frames)
            assert time.monotonic() < deadline, f"fuzzing took too long (batch {batch})"
            assert_alive(km, kc)
    finally:
        for socket in sockets.values():
            socket.close()
    reply, messages = execute(kc, "print('still here')")
    assert stream_text(messages) == "still here\n"


def request(kc, msg_type, content, channel="shell"):
    msg = kc.session.msg(msg_type, content)
    getattr(kc, channel + "_channel").send(msg)
    return msg["header"]["msg_id"]


def reply_and_status(kc, msg_id, channel="shell"):
    reply = getattr(kc, f"get_{channel}_msg")(timeout=10)
    assert reply["parent_header"]["msg_id"] == msg_id
    states = []
    while states[-1:] != ["idle"]:
        msg = kc.get_iopub_msg(timeout=10)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "status":
            states.append(msg["content"]["execution_state"])
    return reply, states


@pytest.mark.parametrize("msg_type, content, field", [
    ("execute_request", {"code": 123, "silent": False}, "code"),
    ("execute_request", {"code": "1", "silent": "no"}, "silent"),
    ("complete_request", {"code": "imp", "cursor_pos": "3"}, "cursor_pos"),
    ("inspect_request", {"code": "len", "cursor_pos": 3, "detail_level": None}, "detail_level"),
    ("history_request", {"hist_access_type": "tail", "n": "ten"}, "n"),
])
def test_a_signed_request_with_fields_of_the_wrong_type_gets_one_error_reply(kernel, msg_type, content, field):
    km, kc = kernel
    msg_id = request(kc, msg_type, content)
    reply, states = reply_and_status(kc, msg_id)
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "BadRequest"
    assert f"'{field}'" in reply["content"]["evalue"]
    assert states == ["busy", "idle"]
    assert_alive(km, kc)


def test_history_with_an_unknown_access_type_gets_an_empty_history(kernel):
    km, kc = kernel
    msg_id = request(kc, "history_request", {"hist_access_type": "bogus", "output": False, "raw": True})
    reply, states = reply_and_status(kc, msg_id)
    assert reply["content"] == {"status": "ok", "history": []}
    assert states == ["busy", "idle"]


def welcome_of(zctx, km, kc, topic):
    """What a new IOPub subscriber to `topic` receives first: [topic frame, message]."""
    socket = zctx.socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, topic)
    socket.connect(f"{km.transport}://{km.ip}:{km.iopub_port}")
    try:
        assert socket.poll(10000), "no message on IOPub within 10 s of subscribing"
        # a session of its own: kc's has seen this broadcast's signature already
        session = Session(key=kc.session.key, signature_scheme=kc.session.signature_scheme)
        idents, frames = session.feed_identities(socket.recv_multipart())
        return idents, session.deserialize(frames)  # checks the signature
    finally:
        socket.close()


def test_each_iopub_subscriber_is_welcomed_as_ipykernel_7_does(kernel, zctx):
    # JEP 65: the iopub_welcome tells a frontend its IOPub is connected (jupyter_client's
    # wait_for_ready waits for an IOPub message after the kernel_info reply; without it a
    # subscription that arrived after the first busy/idle cost a second round).
    km, kc = kernel
    for topic in (b"", b"", b"kernel."):
        idents, msg = welcome_of(zctx, km, kc, topic)
        assert msg["msg_type"] == "iopub_welcome"
        assert msg["content"] == {"subscription": topic.decode()}
        assert msg["parent_header"] == {}
        assert idents[0].startswith(topic)
    assert_alive(km, kc)


def test_a_subscription_of_any_bytes_leaves_the_kernel_answering(kernel, zctx):
    km, kc = kernel
    for topic in (b"\xff\xfe", b"x" * 10000):
        socket = zctx.socket(zmq.SUB)
        socket.linger = 0
        socket.setsockopt(zmq.SUBSCRIBE, topic)
        socket.connect(f"{km.transport}://{km.ip}:{km.iopub_port}")
        time.sleep(0.2)
        socket.close()
    flush_iopub(kc)
    assert_alive(km, kc)

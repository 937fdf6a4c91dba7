"""input() over the stdin channel, with and without allow_stdin."""

from conftest import execute, shell_reply, collect, stream_text


def test_input_returns_what_the_frontend_answers(kernel):
    km, kc = kernel
    msg_id = kc.execute("name = input('name? '); print('hello', name)", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=10)
    assert request["msg_type"] == "input_request"
    assert request["content"]["prompt"] == "name? "
    assert request["content"]["password"] is False
    kc.input("bob")
    reply = shell_reply(kc, msg_id)
    assert reply["content"]["status"] == "ok"
    assert "hello bob" in stream_text(collect(kc, msg_id))


def test_getpass_asks_for_a_password(kernel):
    km, kc = kernel
    msg_id = kc.execute("import getpass; secret = getpass.getpass('pw: ')", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=10)
    assert request["content"]["password"] is True
    kc.input("s3cret")
    assert shell_reply(kc, msg_id)["content"]["status"] == "ok"
    collect(kc, msg_id)
    reply, _ = execute(kc, "secret", user_expressions={"v": "secret"})
    assert reply["content"]["user_expressions"]["v"]["data"]["text/plain"] == "'s3cret'"


def test_input_fails_at_once_when_the_frontend_has_no_stdin(kernel):
    km, kc = kernel
    reply, messages = execute(kc, "input('name? ')", allow_stdin=False, timeout=5)
    assert reply["content"]["status"] == "error"
    errors = [m for m in messages if m["msg_type"] == "error"]
    assert len(errors) == 1
    assert "input" in errors[0]["content"]["evalue"]

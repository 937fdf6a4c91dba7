"""Comms (what ipywidgets, bokeh and plotly talk over) through the comm package's
create_comm / get_comm_manager, which the kernel points at xeus's comm manager."""

import uuid

import pytest

from conftest import execute, stream_text


def run_ok(kc, code):
    reply, messages = execute(kc, code)
    assert reply["content"]["status"] == "ok", [m["content"] for m in messages if m["msg_type"] == "error"]
    return messages


def comm_messages(messages):
    return [(m["msg_type"], m["content"]) for m in messages if m["msg_type"].startswith("comm_")]


def wait_for_comm_messages(kc, count, timeout=10):
    found = []
    while len(found) < count:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["msg_type"].startswith("comm_"):
            found.append((msg["msg_type"], msg["content"]))
    return found


def test_a_comm_the_kernel_opens_sends_and_closes_on_iopub(kernel):
    km, kc = kernel
    # A target nobody registered in the kernel (the frontend's, as 'jupyter.widget' is).
    messages = run_ok(kc, "import comm\n"
                          "c = comm.create_comm(target_name='xcuda.test', data={'a': 1}, metadata={'m': 0})\n"
                          "c.send({'b': 2}, buffers=[b'\\x00\\x01'])\n"
                          "c.close({'bye': True})\n"
                          "print(c.comm_id)")
    comm_id = stream_text(messages).strip()
    sent = comm_messages(messages)
    assert [t for t, _ in sent] == ["comm_open", "comm_msg", "comm_close"]
    assert sent[0][1] == {"comm_id": comm_id, "target_name": "xcuda.test", "data": {"a": 1}}
    assert sent[1][1] == {"comm_id": comm_id, "data": {"b": 2}}
    assert sent[2][1] == {"comm_id": comm_id, "data": {"bye": True}}
    buffers = [m["buffers"] for m in messages if m["msg_type"] == "comm_msg"][0]
    assert [bytes(b) for b in buffers] == [b"\x00\x01"]
    # the kernel is alive and the comm can be closed twice without a second message
    messages = run_ok(kc, "c.close(); print('alive')")
    assert stream_text(messages) == "alive\n" and comm_messages(messages) == []


def test_a_comm_the_frontend_opens_reaches_the_registered_target(kernel):
    km, kc = kernel
    run_ok(kc, "import comm\n"
               "def opened(c, msg):\n"
               "    c.on_msg(lambda m: c.send({'echo': m['content']['data']}))\n"
               "    c.send({'opened': msg['content']['data']})\n"
               "comm.get_comm_manager().register_target('xcuda.echo', opened)")
    comm_id = uuid.uuid4().hex
    kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": "xcuda.echo", "data": {"x": 1}}))
    assert wait_for_comm_messages(kc, 1) == [("comm_msg", {"comm_id": comm_id, "data": {"opened": {"x": 1}}})]
    kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"y": 2}}))
    assert wait_for_comm_messages(kc, 1) == [("comm_msg", {"comm_id": comm_id, "data": {"echo": {"y": 2}}})]
    assert kc.kernel_info(reply=True, timeout=10)["content"]["status"] == "ok"


def test_an_error_in_a_comm_callback_is_shown_and_the_kernel_lives(kernel):
    km, kc = kernel
    run_ok(kc, "import comm\n"
               "def broken(c, msg):\n"
               "    raise ValueError('the widget library failed')\n"
               "comm.get_comm_manager().register_target('xcuda.broken', broken)")
    kc.shell_channel.send(kc.session.msg("comm_open", {"comm_id": uuid.uuid4().hex, "target_name": "xcuda.broken", "data": {}}))
    text = ""
    while "the widget library failed" not in text:
        msg = kc.get_iopub_msg(timeout=10)
        if msg["msg_type"] == "stream" and msg["content"]["name"] == "stderr":
            text += msg["content"]["text"]
    assert "ValueError" in text
    messages = run_ok(kc, "print('alive')")
    assert stream_text(messages) == "alive\n"


def test_an_ipywidget_opens_its_comm_and_displays(kernel):
    km, kc = kernel
    found = stream_text(run_ok(kc, "import importlib.util as u; print(bool(u.find_spec('ipywidgets')))")).strip()
    if found != "True":
        pytest.skip("ipywidgets is not installed in the kernel's Python (.ci/hosted's venvs have it)")
    messages = run_ok(kc, "import ipywidgets as w\ns = w.IntSlider(value=3)\ndisplay(s)\ns.value = 5")
    opened = [c for t, c in comm_messages(messages) if t == "comm_open"]
    assert any(c["data"]["state"].get("_model_name") == "IntSliderModel" for c in opened)
    views = [m["content"]["data"] for m in messages if m["msg_type"] == "display_data"]
    assert any("application/vnd.jupyter.widget-view+json" in v for v in views)
    updates = [c["data"] for t, c in comm_messages(messages) if t == "comm_msg"]
    assert {"method": "update", "state": {"value": 5}, "buffer_paths": []} in updates

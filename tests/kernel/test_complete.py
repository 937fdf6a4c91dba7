"""complete_reply as ipykernel's: IPython's (Jedi's) completions, each with its kind and
signature under metadata["_jupyter_types_experimental"], from which JupyterLab draws icons."""

from conftest import execute, shell_reply

TYPES_KEY = "_jupyter_types_experimental"


def complete(kc, code):
    msg_id = kc.complete(code, len(code))
    reply = shell_reply(kc, msg_id)["content"]
    assert reply["status"] == "ok", reply
    return reply


def typed(reply):
    return {entry["text"]: entry for entry in reply["metadata"][TYPES_KEY]}


def test_each_match_comes_with_its_type_and_place(kernel):
    _, kc = kernel
    code = "import collections; collections.OrderedDi"
    reply = complete(kc, code)
    entries = reply["metadata"][TYPES_KEY]
    assert [entry["text"] for entry in entries] == reply["matches"]
    for entry in entries:
        assert (entry["start"], entry["end"]) == (reply["cursor_start"], reply["cursor_end"])
    assert typed(reply)["OrderedDict"]["type"] == "class"


def test_functions_modules_and_keywords_are_told_apart(kernel):
    _, kc = kernel
    execute(kc, "def scale_by(factor, values):\n    return [factor * v for v in values]")
    function = typed(complete(kc, "scale_b"))["scale_by"]
    assert function["type"] == "function"
    assert function["signature"] == "(factor, values)"
    assert typed(complete(kc, "import collection"))["collections"]["type"] == "module"
    assert typed(complete(kc, "whil"))["while"]["type"] == "keyword"


def test_nothing_to_complete_gives_empty_matches_and_types(kernel):
    _, kc = kernel
    reply = complete(kc, "qqq_no_such_name_")
    assert reply["matches"] == [] and reply["metadata"][TYPES_KEY] == []
    assert reply["cursor_start"] == reply["cursor_end"] == len("qqq_no_such_name_")

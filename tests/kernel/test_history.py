"""history_request answered from IPython's history database, as ipykernel answers it: under the
IPython profile directory ($IPYTHONDIR), with the inputs of the sessions before a restart."""

import os
import sqlite3

import pytest

from conftest import connect, execute, shell_reply, start_kernel, stop_kernel


@pytest.fixture
def ipython_dir(tmp_path):
    return tmp_path / "ipython"


@pytest.fixture
def own_kernel(ipython_dir):
    km, kc = start_kernel(env=dict(os.environ, IPYTHONDIR=str(ipython_dir)))
    yield km, kc
    stop_kernel(km, kc)


def history(kc, **request):
    msg_id = kc.history(raw=True, output=False, **request)
    reply = shell_reply(kc, msg_id)["content"]
    assert reply["status"] == "ok", reply
    return reply["history"]


def inputs(entries):
    return [entry[2] for entry in entries]


def test_the_history_database_is_ipythons_under_the_profile_directory(own_kernel, ipython_dir):
    _, kc = own_kernel
    execute(kc, "in_the_database = 1")
    history(kc, hist_access_type="tail", n=1)  # IPython writes what it holds before answering
    database = ipython_dir / "profile_default" / "history.sqlite"
    with sqlite3.connect(database) as db:
        stored = [row[0] for row in db.execute("SELECT source_raw FROM history")]
    assert "in_the_database = 1" in stored


def test_tail_range_and_search_answer_with_ipythons_numbering(own_kernel):
    _, kc = own_kernel
    numbers = {}
    for code in ("alpha = 1", "beta = 2", "alpha + beta"):
        reply, _ = execute(kc, code)
        numbers[code] = reply["content"]["execution_count"]
    tail = history(kc, hist_access_type="tail", n=2)
    assert inputs(tail) == ["beta = 2", "alpha + beta"]
    assert [entry[1] for entry in tail] == [numbers["beta = 2"], numbers["alpha + beta"]]
    # session 0 asks for the running one; the entries carry its number, as tail's do
    ranged = history(kc, hist_access_type="range", session=0, start=1, stop=3)
    session = tail[0][0]
    assert ranged == [[session, 1, "alpha = 1"], [session, 2, "beta = 2"]]
    assert history(kc, hist_access_type="range", session=session, start=1, stop=2) == [[session, 1, "alpha = 1"]]
    assert inputs(history(kc, hist_access_type="search", pattern="alpha*", n=10)) == ["alpha = 1", "alpha + beta"]


def test_output_asked_for_comes_as_input_output_pairs(own_kernel):
    _, kc = own_kernel
    execute(kc, "6 * 7")
    msg_id = kc.history(raw=True, output=True, hist_access_type="tail", n=1)
    (entry,) = shell_reply(kc, msg_id)["content"]["history"]
    # IPython logs no output unless HistoryManager.db_log_output is set: null, as ipykernel's
    assert entry[2] == ["6 * 7", None]


def test_the_sessions_before_a_restart_are_in_the_history(own_kernel):
    km, kc = own_kernel
    execute(kc, "before_the_restart = 1")
    km.restart_kernel(now=False)
    kc.stop_channels()
    kc = connect(km)
    try:
        execute(kc, "after_the_restart = 2")
        tail = history(kc, hist_access_type="tail", n=2)
        assert inputs(tail) == ["before_the_restart = 1", "after_the_restart = 2"]
        assert tail[0][0] < tail[1][0], "the earlier session has the smaller session number"
        found = history(kc, hist_access_type="search", pattern="before_the_*", n=10)
        assert inputs(found) == ["before_the_restart = 1"]
        previous = history(kc, hist_access_type="range", session=-1, start=1, stop=10)
        assert inputs(previous) == ["before_the_restart = 1"]
    finally:
        kc.stop_channels()


def test_a_shutdown_closes_the_history_session_as_ipython_does_at_exit(ipython_dir):
    # xeus ends the process with std::exit, which skips Python's atexit (where IPython writes
    # its last inputs and the session's end): the kernel does it on the way out.
    km, kc = start_kernel(env=dict(os.environ, IPYTHONDIR=str(ipython_dir)))
    execute(kc, "last_before_shutdown = 1")
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    with sqlite3.connect(ipython_dir / "profile_default" / "history.sqlite") as db:
        (session, end, commands), = db.execute("SELECT session, end, num_cmds FROM sessions").fetchall()
        inputs_ = db.execute("SELECT source_raw FROM history WHERE session = ?", (session,)).fetchall()
    assert end is not None and commands == 1
    assert inputs_ == [("last_before_shutdown = 1",)]

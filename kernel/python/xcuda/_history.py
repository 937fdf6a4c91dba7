"""history_request answered from IPython's own history (its sqlite HistoryManager under the
profile directory, $IPYTHONDIR/profile_default/history.sqlite), as ipykernel answers it: the
inputs of earlier sessions, before a restart, are there too."""


def _as_json(entries, running_session):
    # (session, line, input) or (session, line, (input, output)): tuples become lists; an
    # output IPython did not log (db_log_output is off by default) is null, as in ipykernel.
    # IPython numbers the running session 0 in ranges it reads from memory and by its number
    # everywhere else (tail, search); ipykernel passes both on. Here it is the number
    # throughout, so that an entry's (session, line) can be asked for again.
    return [[session or running_session, line, list(text) if isinstance(text, tuple) else text]
            for session, line, text in entries]


def answer(shell, query):
    """The history_reply content for query: hist_access_type plus the fields xeus parsed."""
    manager = shell.history_manager
    kind = query["hist_access_type"]
    raw, output = query["raw"], query["output"]
    if kind == "tail":
        # include_latest: the frontend asks, not a %history in the cell being run.
        entries = manager.get_tail(query["n"], raw=raw, output=output, include_latest=True)
    elif kind == "range":
        entries = manager.get_range(query["session"], query["start"], query["stop"], raw=raw, output=output)
    elif kind == "search":
        entries = manager.search(query["pattern"], raw=raw, output=output, n=query["n"],
                                 unique=query["unique"])
    else:  # xeus answers an access type it does not know itself, without asking
        raise ValueError(f"hist_access_type {kind!r}: expected 'tail', 'range' or 'search'")
    return {"status": "ok", "history": _as_json(entries, manager.session_number)}


def end_session(shell):
    """Writes what IPython still holds and closes its history session (end time, count): the
    kernel is about to end its process without running Python's atexit handlers."""
    manager = shell.history_manager
    if manager is not None and manager.enabled:
        manager.end_session()

"""Where an interrupt may raise KeyboardInterrupt while a cell runs.

Only inside what the user runs: the cell's code (IPython's run_code, which shows the
KeyboardInterrupt as the cell's error) and the callbacks of IPython's events (the closing GPU
synchronisation is a post_run_cell callback, and trigger shows their errors). Raised anywhere
else in IPython's bookkeeping around them, it can land between a lock's acquire and the `with`
that releases it (the history's cache lock stays held and the next cell waits forever) or
between a cell's code and the execution count's step (the next cell's history row collides).
There the interrupt waits: the kernel wakes the cell again until it reaches the user's code,
and drops it if the cell ends first, as it drops one that comes between cells. One that comes
after the cell's code has ended (IPython storing the output, stepping the count) is dropped at
once: waited for, it would land in the post_run_cell callbacks that follow and turn a cell that
ran to its end into a KeyboardInterrupt (an interrupt that comes during those callbacks, the GPU
synchronisation, still raises there).
"""

import os

# (function, file) pairs, matched on the file's ending so that any install of IPython counts.
_USER_CODE_RUNNERS = (
    ("run_code", os.path.join("IPython", "core", "interactiveshell.py")),
    ("trigger", os.path.join("IPython", "core", "events.py")),
)


# Whether the running cell's code has ended (set when IPython's run_ast_nodes returns, cleared
# by the next cell's pre_execute event).
_cell = {"code_ended": False}


def track_cells(shell):
    """Follows shell's cells: when each one's code ends (what may_raise_at drops after)."""
    run_ast_nodes = shell.run_ast_nodes

    async def run_then_mark_ended(*args, **kwargs):
        try:
            return await run_ast_nodes(*args, **kwargs)
        finally:
            _cell["code_ended"] = True

    shell.run_ast_nodes = run_then_mark_ended
    shell.events.register("pre_execute", _cell_begins)


def _cell_begins():
    _cell["code_ended"] = False


def may_raise_at(frame):
    """True when frame (the innermost Python frame at the interrupt) runs inside the user's
    code: one of the frames it was called from is a runner of user code. False when the
    interrupt must wait for the user's code; None when it is dropped (the code has ended)."""
    while frame is not None:
        code = frame.f_code
        for name, path in _USER_CODE_RUNNERS:
            if code.co_name == name and code.co_filename.endswith(path):
                return True
        frame = frame.f_back
    return None if _cell["code_ended"] else False

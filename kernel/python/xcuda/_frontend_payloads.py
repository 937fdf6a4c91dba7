"""What the shell asks of the frontend through the execute_reply's payload, as ipykernel's
shell asks it: put text in the next cell (%load, set_next_input), end the session (exit, quit).
IPython's own InteractiveShell only keeps such requests for a terminal it does not have here
(set_next_input) or has no ask_exit at all ("'XPythonShell' object has no attribute 'ask_exit'")."""

import types

from IPython.core.autocall import ZMQExitAutocall


def _set_next_input(shell, text, replace=False):
    # single (the payload manager's default): a second call in one cell replaces the first.
    shell.payload_manager.write_payload({"source": "set_next_input", "text": text, "replace": replace})


def _ask_exit(shell):
    # `exit(keep_kernel=True)` ends the frontend's session and leaves the kernel running, for
    # another frontend to connect to; plain `exit` ends the kernel too, once this cell is
    # answered (the C++ half reads exit_now).
    keep_kernel = bool(shell.keepkernel_on_exit)
    shell.exit_now = not keep_kernel
    shell.payload_manager.write_payload({"source": "ask_exit", "keepkernel": keep_kernel})


def install(shell):
    shell.set_next_input = types.MethodType(_set_next_input, shell)
    shell.ask_exit = types.MethodType(_ask_exit, shell)
    shell.keepkernel_on_exit = None
    # ZMQExitAutocall takes keep_kernel; IPython's plain ExitAutocall, which the shell put in
    # the namespace when it was built, does not. %reset rebuilds the namespace from exiter.
    shell.exiter = ZMQExitAutocall(shell)
    for name in ("exit", "quit"):
        shell.user_ns[name] = shell.exiter
        shell.user_ns_hidden[name] = shell.exiter

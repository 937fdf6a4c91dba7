"""The Python half of the kernel's debugger (the C++ half is kernel/src/python_debugger.cpp):
starts debugpy in the kernel's own Python, and answers the variable requests JupyterLab's
debugger sends when no cell is stopped (the notebook's globals), through xeus-python-shell's
variable explorer, which reads them with debugpy's own presentation."""

import importlib.util
import sys


def installed():
    """Whether this Python has debugpy (without importing it)."""
    return importlib.util.find_spec("debugpy") is not None


def listen(host, port):
    """Starts debugpy listening on host:port; called once, on the thread that runs the cells."""
    if not installed():
        raise ModuleNotFoundError(
            f"the debugger needs debugpy in the kernel's Python ({sys.executable}): "
            f"run `{sys.executable} -m pip install debugpy` (Debian/Ubuntu: apt install python3-debugpy) "
            "and restart the kernel")
    import debugpy

    # The adapter debugpy spawns runs in this same Python (a venv's, not whatever is on PATH).
    debugpy.configure({"python": sys.executable})
    debugpy.listen((host, port))


_explorer = None


def _debugger():
    # Imported on first use: it imports debugpy's pydevd (~0.3 s).
    global _explorer
    if _explorer is None:
        from xeus_python_shell.debugger import XDebugger

        _explorer = XDebugger()
    return _explorer


def inspect_variables(request):
    """The notebook's globals as DAP variables (JupyterLab's variable panel when not stopped)."""
    return _debugger().inspect_variables(request)


def variables(request):
    """The children of a variable inspect_variables listed, while no cell is stopped."""
    return _debugger().variables(request)


def display_json(value):
    """`value` as the notebook would display it, as JSON text of [data, metadata]: evaluated by
    debugpy in a stopped frame (the kernel reads the text without running Python; images' bytes
    as base64, as Jupyter sends them)."""
    import base64
    import json

    from IPython import get_ipython

    def plain(v):
        if isinstance(v, (bytes, bytearray)):
            return base64.b64encode(v).decode("ascii")
        return repr(v)

    return json.dumps(list(get_ipython().display_formatter.format(value)), default=plain)


def rich_inspect_variables(request):
    """A variable of the notebook's namespace, as its rich display (what the variable panel's
    "render" shows), while no cell is stopped (stopped, the kernel asks debugpy for display_json
    in the frame)."""
    name = request.get("arguments", {}).get("variableName", "")
    reply = {"type": "response", "request_seq": request["seq"], "command": request["command"],
             "success": False, "body": {"data": {}, "metadata": {}}}
    if not isinstance(name, str) or not name.isidentifier():
        # debugpy's groupings ("special variables") are not variables: nothing to render.
        reply["success"] = name in ("special variables", "function variables")
        return reply
    from IPython import get_ipython

    shell = get_ipython()
    if name not in shell.user_ns:
        reply["message"] = f"{name} is not defined in the notebook"
        return reply
    data, metadata = shell.display_formatter.format(shell.user_ns[name])
    reply["body"] = {"data": data, "metadata": metadata}
    reply["success"] = True
    return reply

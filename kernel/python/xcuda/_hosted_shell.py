"""The Python half of the xcuda kernel: IPython's shell (xeus-python's shell package, the same
one the xeus-python kernel runs) wired to the kernel's C++ half, xcuda._kernel.

The C++ half owns the sockets, the signals and fd 1/2; this module only builds the shell and
points its display publisher, display hook, comms and kernel object at the C++ functions that
publish through xeus. Nothing here depends on how the Python that runs it was built: the same
file serves Debian's Python 3.11 and a user's 3.13 venv.
"""

import inspect
import logging
import sys
import types

from xcuda import _editor_language, _cuda_restart, _frontend_payloads, _history, _interrupt_policy, _kernel

_log = logging.getLogger(__name__)


class _KernelFacade:
    """What libraries ask of `get_ipython().kernel` (ipywidgets, matplotlib, tqdm)."""

    def __init__(self, comm_manager):
        self.comm_manager = comm_manager

    def get_parent(self, channel=None):
        return {"header": _kernel.parent_header()}

    @property
    def _parent_header(self):
        return self.get_parent()


def _install_comms():
    """Comms go through xeus's comm manager (ipywidgets, bokeh, plotly): the `comm` package's
    two replaceable functions, and `ipykernel.comm` for libraries written before it."""
    manager = _kernel.CommManager()

    def create_comm(*args, **kwargs):
        return _kernel.Comm(*args, **kwargs)

    def get_comm_manager():
        return manager

    try:
        import comm
    except ImportError:  # the `comm` package missing: a stand-in of the same shape
        comm = types.ModuleType("comm", "xcuda's stand-in for the comm package")
        sys.modules["comm"] = comm
    comm.create_comm = create_comm
    comm.get_comm_manager = get_comm_manager
    # Not the real ipykernel.comm: importing it pulls in ipykernel (8 MiB), whose Comm
    # publishes through a kernel that does not exist here.
    legacy = types.ModuleType("ipykernel.comm", "xcuda's comms under ipykernel's old name")
    legacy.Comm = _kernel.Comm
    legacy.CommManager = _kernel.CommManager
    sys.modules["ipykernel.comm"] = legacy
    return manager


def _record_error_as_ipykernel_names_it(shell):
    # xeus_python_shell records str(etype), "<class 'ZeroDivisionError'>", as ename;
    # frontends and nbconvert expect the bare class name.
    def _showtraceback(etype, evalue, stb):
        shell.last_error = [etype.__name__, str(evalue), stb]

    shell._showtraceback = _showtraceback


def _initialize(app):
    # argv=[]: IPython must not parse the kernel's command line (-f connection_file).
    # xeus-python-shell 0.6+ turns jedi off unless asked; IPython and ipykernel keep it on.
    if "use_jedi" in inspect.signature(app.initialize).parameters:
        from IPython.core.completer import IPCompleter

        app.initialize(use_jedi=IPCompleter.use_jedi.default_value, argv=[])
    else:
        app.initialize(argv=[])


def _run_cells_as_ipython_does(shell):
    # xeus-python-shell 0.7+ replaces run_cell_async (another signature: it takes a callback)
    # and the loop runner for xeus-python's asynchronous cells. This kernel runs cells through
    # IPython's own synchronous run_cell, which calls IPython's run_cell_async, and top-level
    # await needs IPython's loop runner: both put back on this shell.
    from IPython.core.async_helpers import _asyncio_runner
    from IPython.core.interactiveshell import InteractiveShell

    shell.run_cell_async = types.MethodType(InteractiveShell.run_cell_async, shell)
    shell.loop_runner = _asyncio_runner


def build_shell():
    """Builds the shell and wires it to the kernel; returns it. Raises what failed."""
    from xeus_python_shell.shell import XPythonShellApp

    comm_manager = _install_comms()
    app = XPythonShellApp()
    _initialize(app)
    shell = app.shell
    _run_cells_as_ipython_does(shell)
    _interrupt_policy.track_cells(shell)
    shell.kernel = _KernelFacade(comm_manager)
    shell.display_pub.publish_display_data = _kernel.publish_display_data
    shell.display_pub.clear_output = _kernel.clear_output
    shell.displayhook.publish_execution_result = _kernel.publish_execution_result
    # One name per distinct cell text, as ipykernel names them: IPython keys its traceback
    # labels ("Cell In[3]") and linecache on it, and the debugger its breakpoints.
    shell.compile.get_filename = _kernel.cell_file_name
    _record_error_as_ipykernel_names_it(shell)
    _frontend_payloads.install(shell)
    # IPython's own warnings go to the kernel's log (the terminal that started it), not a cell.
    app.log.handlers = []
    app.log.addHandler(logging.StreamHandler(_kernel.LogStream()))
    # Like ipykernel: modules next to the notebook import.
    sys.path.insert(0, "")
    return shell


def load_magics(shell):
    """Loads the %%cuda magics, then the kernel's own (%cuda_restart, over the extension's
    stand-in); returns why the first failed to load, or "" (cells still run)."""
    try:
        outcome = shell.extension_manager.load_extension("xcuda")
    except Exception as e:  # reported in the first cell, and the kernel goes on without them
        outcome = f"{type(e).__name__}: {e}"
    _cuda_restart.register(shell)
    if outcome in (None, "already loaded"):
        return ""
    return f"xcuda: the %%cuda magics failed to load, Python cells still work: {outcome}"


class _StdinRedirection:
    """input() and getpass() ask the frontend (an input_request) while a cell runs, or say
    that it cannot answer (allow_stdin false: nbconvert, Run All in some frontends)."""

    def __init__(self, allow_stdin):
        self._allow = allow_stdin

    def _ask(self, prompt="", password=False):
        if not self._allow:
            raise StdinNotImplementedError(
                "input() needs a frontend that answers input requests; this one does not "
                "(allow_stdin is false): pass the value in the code instead")
        return _kernel.input_request(str(prompt), password)

    def __enter__(self):
        import builtins
        import getpass

        self._saved = (builtins.input, getpass.getpass)
        builtins.input = lambda prompt="": self._ask(prompt, False)
        getpass.getpass = lambda prompt="Password: ", stream=None: self._ask(prompt, True)
        return self

    def __exit__(self, *exc):
        import builtins
        import getpass

        builtins.input, getpass.getpass = self._saved
        return False


try:
    from IPython.core.error import StdinNotImplementedError
except ImportError:  # only while IPython itself is broken; build_shell reports that
    StdinNotImplementedError = RuntimeError


def _unshown_error(shell):
    # IPython shows a magic's UsageError as one stderr line without calling _showtraceback:
    # IPython's own record of the run says it failed. The reply says so as ipykernel's does
    # (status error, the exception's name and text, no traceback: the text is already shown),
    # so Run All stops there.
    result = getattr(shell, "last_execution_result", None)
    if result is None or result.success:
        return None
    # success is False exactly when one of the two holds an exception
    error = result.error_in_exec if result.error_in_exec is not None else result.error_before_exec
    return type(error).__name__, str(error)


def execute(shell, code, silent, store_history, user_expressions, allow_stdin):
    """One execute_request: runs the cell, publishes its error, returns the reply's content."""
    shell.last_error = None
    with _StdinRedirection(allow_stdin):
        shell.run_cell(code, store_history=store_history, silent=silent)
    payload = shell.payload_manager.read_payload()
    shell.payload_manager.clear_payload()
    if shell.exit_now:  # exit or quit: the C++ half ends the process once this is answered
        _history.end_session(shell)
    if shell.last_error is not None:
        ename, evalue, traceback = shell.last_error
        if not silent:
            _kernel.publish_execution_error(ename, evalue, traceback)
        return {"status": "error", "ename": ename, "evalue": evalue, "traceback": traceback,
                "payload": payload}
    unshown = _unshown_error(shell)
    if unshown is not None:
        return {"status": "error", "ename": unshown[0], "evalue": unshown[1], "traceback": [],
                "payload": payload, "user_expressions": {}}
    return {"status": "ok", "payload": payload,
            "user_expressions": shell.user_expressions(user_expressions or {})}


def _in_cuda_cell(request, code, answer, fallback):
    """answer() for a %%cuda cell. A fault in the CUDA answers must not reach the kernel's
    request loop: it is logged (the kernel's stderr) and the request gets `fallback`, an empty
    but valid reply, never Python's answer for C++ code."""
    try:
        return answer()
    except Exception:
        _log.exception("xcuda: %s failed in a %%%%cuda cell; answering %s", request, fallback)
        return fallback


def complete(shell, code, cursor_pos):
    """The complete_reply, with each completion's kind (function, module, keyword, ...: what
    JupyterLab draws its icons from) and signature under the metadata key ipykernel uses.
    %%cuda cells complete CUDA C++ (_editor_language)."""
    if _editor_language.is_cuda_cell(code):
        return _in_cuda_cell("complete", code, lambda: _editor_language.complete(shell, code, cursor_pos),
                             {"status": "ok", "matches": [], "cursor_start": cursor_pos, "cursor_end": cursor_pos,
                              "metadata": {"_jupyter_types_experimental": []}})
    from IPython.core.completer import provisionalcompleter, rectify_completions

    with provisionalcompleter():
        completions = list(rectify_completions(code, shell.Completer.completions(code, cursor_pos)))
    if completions:
        start, end = completions[0].start, completions[0].end
    else:
        start = end = cursor_pos
    typed = [{"start": c.start, "end": c.end, "text": c.text, "type": c.type, "signature": c.signature}
              for c in completions]
    return {"status": "ok", "matches": [c.text for c in completions], "cursor_start": start,
            "cursor_end": end, "metadata": {"_jupyter_types_experimental": typed}}


def history(shell, query):
    return _history.answer(shell, query)


def inspect_object(shell, code, cursor_pos, detail_level):
    if _editor_language.is_cuda_cell(code):
        return _in_cuda_cell("inspect", code,
                             lambda: _editor_language.inspect_object(shell, code, cursor_pos, detail_level),
                             {"status": "ok", "found": False, "data": {}, "metadata": {}})
    from IPython.utils.tokenutil import token_at_cursor

    name = token_at_cursor(code, cursor_pos)
    try:
        data = shell.object_inspect_mime(name, detail_level=detail_level)
        found = True
    except KeyError:  # IPython's answer for a name that is not defined
        data, found = {}, False
    return {"status": "ok", "found": found, "data": data, "metadata": {}}


def is_complete(shell, code):
    if _editor_language.is_cuda_cell(code):
        return _in_cuda_cell("is_complete", code, lambda: _editor_language.is_complete(code), {"status": "unknown"})
    manager = getattr(shell, "input_transformer_manager", None) or shell.input_splitter
    status, indent = manager.check_complete(code)
    reply = {"status": status}
    if status == "incomplete":
        reply["indent"] = " " * (indent or 0)
    return reply

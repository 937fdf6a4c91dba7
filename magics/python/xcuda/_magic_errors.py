"""A magic's own failure (no GPU, a refused option value, a launch the device refuses) shows
as one line, "NoDeviceError: ...", the way IPython shows a UsageError: the traceback would list
IPython's run_line_magic frames and none of the user's. CompileError keeps its own rendering
(the cell's lines); errors raised by user code keep their traceback."""
import functools

from xcuda._core import CompileError, CudaError


def one_line_errors(magic):
    @functools.wraps(magic)
    def wrapped(*args, **kwargs):
        __tracebackhide__ = True  # IPython leaves this frame out of a user error's traceback
        try:
            return magic(*args, **kwargs)
        except (CudaError, ValueError) as error:
            if not isinstance(error, CompileError):
                line = f"{type(error).__name__}: {error}"
                error._render_traceback_ = lambda: [line]
            raise
    return wrapped

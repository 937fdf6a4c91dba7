"""A `%%cuda` cell as a notebook runs it, in this process: IPython's shell with the xcuda
extension loaded, `run_cell("%%cuda\\n" + source)`, the cell's printed line checked for where
the module came from ("Compiled for ..." or "From the compile cache ..."), so a timed cold cell
that was really a cache hit (or the reverse) fails its row instead of giving a number.

What a kernel adds around this (the execute request's messages, about 3-4 ms per cell on the
2-core CPU machine, whatever the cell) is not in these rows."""
from __future__ import annotations

import contextlib
import io
import time

COMPILED = "Compiled for "
FROM_MEMORY = "From the compile cache ("


class CellRunner:
    """One IPython shell for the whole part (the first cell pays for IPython and the
    extension; the benchmark runs one before timing)."""

    def __init__(self) -> None:
        from IPython.core.interactiveshell import InteractiveShell

        self.shell = InteractiveShell.instance()
        self.shell.run_line_magic("load_ext", "xcuda")

    def run(self, source: str, expect: str) -> tuple[float, float]:
        """(wall ms, this process's CPU ms) for one `%%cuda` cell; `expect` is COMPILED or
        FROM_MEMORY, what the cell must print."""
        out = io.StringIO()
        cpu0, t0 = time.process_time(), time.perf_counter()
        with contextlib.redirect_stdout(out):
            result = self.shell.run_cell("%%cuda\n" + source)
        wall, cpu = (time.perf_counter() - t0) * 1e3, (time.process_time() - cpu0) * 1e3
        if not result.success:
            raise RuntimeError(f"the %%cuda cell failed: {result.error_in_exec or result.error_before_exec!r}")
        printed = out.getvalue().strip()
        if not printed.startswith(expect):
            raise RuntimeError(f"the %%cuda cell printed {printed!r}, expected a line starting {expect!r}")
        return wall, cpu

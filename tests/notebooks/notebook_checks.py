"""What an executed notebook must show, read from the notebooks themselves.

A code cell states its expectations in its metadata, so the checks travel with the
notebook and the same rules serve nbclient (tests/notebooks) and the browser
(tests/browser):

    "metadata": {
      "tags": ["gpu", "raises-exception"],   # launches kernels (see below)
      "xcuda": {
        "expect": ["text", ...],             # in the cell's output wherever it runs
        "expect_run": ["text", ...],         # when kernels ran: on a GPU or on the CPU device
        "expect_gpu": ["text", ...],         # when a GPU ran it
        "expect_cpu_device": ["text", ...],  # when the CPU device ran it
        "expect_no_gpu": ["text", ...],      # on a machine without a GPU (CPU device or no device)
        "needs": ["cupy", "torch"]           # may print SKIP_MARK instead of expect_run/expect_gpu
    }}

A notebook runs in one of three places (DEVICES): on a GPU, on the CPU device (no GPU: kernels
are emulated and checked; what CI does), or with no device at all (XCUDA_DEVICE=none). On a GPU
and on the CPU device every cell runs clean. With no device a cell tagged "gpu" (it launches
kernels) must stop with xcuda's NoDeviceError, unless it skipped for a missing library; no other
cell may raise. A "gpu" cell also carries Jupyter's standard "raises-exception" tag, which tells
JupyterLab's Run All, nbconvert --execute and nbclient to go on past its error to the cells
that need no device; no other cell carries it.
"""

GPU_TAG = "gpu"
RUN_ON_TAG = "raises-exception"
# The ename of xcuda.NoDeviceError in an error output (IPython reports the class's __name__).
NO_DEVICE_ERROR = "NoDeviceError"
# What a cell prints when it skips for a missing library, or for CuPy/PyTorch arrays without a GPU.
SKIP_MARK = ": skipping"
DEVICES = ("gpu", "cpu", "none")
# IPython prints these as stream text, not as an error, so nbclient does not stop on them.
SILENT_FAILURES = ("UsageError", "magics were not loaded", "magics failed to load")


def cell_expectations(cell):
    return cell.get("metadata", {}).get("xcuda", {})


def needs_gpu(cell):
    return GPU_TAG in cell.get("metadata", {}).get("tags", [])


def declares_expectations(nb):
    return any(cell_expectations(c) for c in nb.cells if c.cell_type == "code")


def expected_texts(cell, device):
    """The texts that must appear in this cell's output when it ran on `device` (one of DEVICES)."""
    assert device in DEVICES, device
    meta = cell_expectations(cell)
    texts = list(meta.get("expect", []))
    if device != "none":
        texts += meta.get("expect_run", [])
    texts += meta.get({"gpu": "expect_gpu", "cpu": "expect_cpu_device", "none": "expect_no_gpu"}[device], [])
    if device == "cpu":
        texts += meta.get("expect_no_gpu", [])
    if needs_gpu(cell) and device == "none":
        texts.append(NO_DEVICE_ERROR)
    return texts


def tag_problems(nb):
    """Cells whose "gpu" and "raises-exception" tags do not go together (checked on the stored notebook)."""
    problems = []
    for index, cell in enumerate(nb.cells):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if (GPU_TAG in tags) != (RUN_ON_TAG in tags):
            problems.append(f"cell {index} is tagged {sorted(tags & {GPU_TAG, RUN_ON_TAG})}: a cell that needs a GPU "
                            f"carries both {GPU_TAG!r} and {RUN_ON_TAG!r}, any other cell neither")
    return problems


def output_text(cell):
    """Everything a reader sees of a cell's outputs, as text (streams, text/plain, text/html, errors).
    Stream chunks are joined as written (a kernel may send one print() in several messages)."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            if parts and parts[-1][0] == "stream":
                parts[-1] = ("stream", parts[-1][1] + out.get("text", ""))
            else:
                parts.append(("stream", out.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            for mime in ("text/plain", "text/html"):
                value = data.get(mime, "")
                parts.append((mime, value if isinstance(value, str) else "".join(value)))
        elif kind == "error":
            parts.append(("error", f"{out.get('ename')}: {out.get('evalue')}"))
    return "\n".join(text for _, text in parts)


def excerpt(text, limit=2400):
    """Long outputs (PTX, HTML) cut in the middle: their start and their closing notes both matter."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n... ({len(text) - limit} characters left out) ...\n{text[-half:]}"


def check_notebook(nb, device, require_interop=False):
    """Returns the problems found in a notebook executed on `device` (one of DEVICES): empty when it is right."""
    assert device in DEVICES, device
    problems = []
    if not declares_expectations(nb):
        problems.append("the notebook declares no output expectations: add metadata "
                        '{"xcuda": {"expect": [...]}} to its result cells (see tests/notebooks/notebook_checks.py)')
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"cell {index} ({cell.source.splitlines()[0][:60] if cell.source else 'empty'!r})"
        if cell.get("execution_count") is None and cell.source.strip():
            problems.append(f"{where} was not executed")
        text = output_text(cell)
        for bad in SILENT_FAILURES:
            if bad in text:
                problems.append(f"{where} printed {bad!r}:\n{excerpt(text)}")
        meta = cell_expectations(cell)
        skipped = bool(meta.get("needs")) and SKIP_MARK in text
        if skipped and require_interop:
            problems.append(f"{where} skipped ({', '.join(meta['needs'])} not importable) "
                            "but XCUDA_REQUIRE_INTEROP=1:\n" + text)
        may_stop = needs_gpu(cell) and device == "none"
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        for error in errors:
            if not (may_stop and error.get("ename") == NO_DEVICE_ERROR):
                why = ({"gpu": "on a GPU", "cpu": "on the CPU device"}[device] + " every cell must run clean"
                       if device != "none" else f"only a cell tagged {GPU_TAG!r} may raise, and only {NO_DEVICE_ERROR}")
                problems.append(f"{where} raised {error.get('ename')}: {error.get('evalue')} ({why})")
        if may_stop and not skipped and not errors:
            problems.append(f"{where} is tagged {GPU_TAG!r} but ran with no device (untag it if it launches no "
                            f"kernel):\n{excerpt(text) if text else '(no output)'}")
        stand_ins = meta.get("expect_run", []) + meta.get("expect_gpu", []) + meta.get("expect_cpu_device", [])
        for expected in expected_texts(cell, device):
            if (skipped and expected in stand_ins) or (may_stop and expected == NO_DEVICE_ERROR):
                continue  # the skip, and the error (checked above), stand in for them
            if expected not in text:
                problems.append(f"{where}: expected {expected!r} in its output, got:\n"
                                f"{excerpt(text) if text else '(no output)'}")
    return problems


def skipped_cells(nb):
    """Indices of cells that skipped for a missing optional library (reported, not failed)."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and cell_expectations(c).get("needs") and SKIP_MARK in output_text(c)]

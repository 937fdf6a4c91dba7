"""What an executed notebook must show, read from the notebooks themselves.

A code cell states its expectations in its metadata, so the checks travel with the
notebook and the same rules serve nbclient (tests/notebooks) and the browser
(tests/browser):

    "metadata": {"xcuda": {
        "launches": true,              # launches kernels: prints NO_GPU_MARK without a GPU
        "expect": ["text", ...],       # in the cell's output on every machine
        "expect_gpu": ["text", ...],   # in the cell's output when a GPU ran it
        "expect_cpu": ["text", ...],   # in the cell's output without a GPU
        "needs": ["cupy", "torch"]     # may print SKIP_MARK instead of expect_gpu
    }}
"""

NO_GPU_MARK = "No CUDA GPU here"
SKIP_MARK = "is not importable"
# IPython prints these as stream text, not as an error, so nbclient does not stop on them.
SILENT_FAILURES = ("UsageError", "magics were not loaded", "magics failed to load")


def cell_expectations(cell):
    return cell.get("metadata", {}).get("xcuda", {})


def declares_expectations(nb):
    return any(cell_expectations(c) for c in nb.cells if c.cell_type == "code")


def expected_texts(cell, gpu):
    """The texts that must appear in this cell's output on a machine with or without a GPU."""
    meta = cell_expectations(cell)
    texts = list(meta.get("expect", []))
    texts += meta.get("expect_gpu" if gpu else "expect_cpu", [])
    if meta.get("launches") and not gpu:
        texts.append(NO_GPU_MARK)
    return texts


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


def check_notebook(nb, gpu, require_interop=False):
    """Returns the problems found in an executed notebook (empty when it is right)."""
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
        for expected in expected_texts(cell, gpu):
            if skipped and expected in meta.get("expect_gpu", []):
                continue
            if expected not in text:
                problems.append(f"{where}: expected {expected!r} in its output, got:\n"
                                f"{excerpt(text) if text else '(no output)'}")
        if gpu and meta.get("launches") and NO_GPU_MARK in text:
            problems.append(f"{where} said there is no GPU, but the kernel has one:\n{text}")
    return problems


def skipped_cells(nb):
    """Indices of cells that skipped for a missing optional library (reported, not failed)."""
    return [i for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and cell_expectations(c).get("needs") and SKIP_MARK in output_text(c)]

"""The notebooks in notebooks/ are stored with the outputs of a run on the GPU machine, so that a
reader (and GitHub) sees results without running them. Two things keep those outputs honest:
- each code cell's stored outputs carry a key of the source they came from
  (cell.metadata.xcuda.source): a cell edited since the run no longer matches, and
  test_notebooks.py says which cells to run again;
- a run on a GPU compares its outputs with the stored ones by structure (per cell: which streams,
  which kinds of display, which errors), never by text: timings and addresses change.

Storing (after tests/gpu/run-on-device.sh part notebooks wrote the executed notebooks):
  python3 tests/notebooks/stored_outputs.py DIR_OF_EXECUTED_NOTEBOOKS "NVIDIA H200, 2026-12-05"
"""
import hashlib
import pathlib
import sys

import nbformat

NOTEBOOK_DIR = pathlib.Path(__file__).resolve().parents[2] / "notebooks"


def source_key(cell):
    return hashlib.sha256(cell.source.encode()).hexdigest()[:16]


def structure(cell):
    """What kinds of output a code cell shows, in order: ("stream", name) (consecutive ones of one
    stream merged: how a stream is split into messages is timing), ("display"|"result",
    mime types), ("error", ename)."""
    shape = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            item = ("stream", out.get("name"))
        elif kind == "error":
            item = ("error", out.get("ename"))
        else:
            item = ("result" if kind == "execute_result" else "display", tuple(sorted(out.get("data", {}))))
        if not (item[0] == "stream" and shape and shape[-1] == item):
            shape.append(item)
    return shape


def stale_cells(nb):
    """Indices of code cells whose stored outputs came from another source (or carry no key)."""
    stale = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not (cell.outputs or cell.execution_count):
            continue
        if cell.metadata.get("xcuda", {}).get("source") != source_key(cell):
            stale.append(i)
    return stale


def structure_differences(stored, fresh):
    """Cells whose outputs differ in structure between the stored notebook and a fresh run."""
    problems = []
    for i, (a, b) in enumerate(zip(stored.cells, fresh.cells)):
        if a.cell_type == "code" and structure(a) != structure(b):
            problems.append(f"cell {i} ({a.source.splitlines()[0] if a.source else ''!r}): stored {structure(a)}, "
                            f"this run {structure(b)}")
    return problems


def device_line(label):
    """The line of a notebook's first cell that says where its stored outputs come from."""
    return (f"*Stored outputs: from a run on {label}. Run it yourself and `%cuda_info` says which device ran "
            "yours (a GPU, or the CPU device).*")


def names_its_device(nb):
    """Whether the first cell says the device of the run whose outputs are stored."""
    label = nb.metadata.get("xcuda", {}).get("outputs_from")
    return label is None or (bool(nb.cells) and device_line(label) in nb.cells[0].source)


def store(executed, label):
    """The executed notebook as it is kept: each code cell's outputs keyed to its source, the
    run's label in the notebook's metadata and in its first cell's device line, nbclient's
    per-cell timings dropped."""
    if executed.cells and executed.cells[0].cell_type == "markdown":
        first = executed.cells[0]
        kept = [line for line in first.source.rstrip("\n").split("\n") if not line.startswith("*Stored outputs:")]
        while kept and not kept[-1].strip():
            kept.pop()
        first.source = "\n".join(kept) + "\n\n" + device_line(label)
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        if cell.outputs or cell.execution_count:
            cell.metadata.setdefault("xcuda", {})["source"] = source_key(cell)
    executed.metadata.setdefault("xcuda", {})["outputs_from"] = label
    return executed


def main(executed_dir, label):
    for path in sorted(NOTEBOOK_DIR.glob("*.ipynb")):
        run = pathlib.Path(executed_dir) / path.name
        if not run.exists():  # a run of some of the notebooks: the others keep what they have
            print(f"{path.name}: not in {executed_dir}, its stored outputs kept")
            continue
        current = nbformat.read(path, as_version=4)
        executed = nbformat.read(run, as_version=4)
        if [c.source for c in current.cells] != [c.source for c in executed.cells]:
            sys.exit(f"{run} was run from another version of {path.name}: run it again")
        nbformat.write(store(executed, label), path)
        print(f"{path.name}: outputs of {label} stored")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""How stored notebook outputs are kept honest (stored_outputs.py): a cell edited after its
outputs were stored is found; a fresh run is compared by the kinds of output, not their text."""
import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from nbformat.v4 import new_markdown_cell

from stored_outputs import device_line, names_its_device, stale_cells, store, structure, structure_differences


def executed(source, *outputs):
    cell = new_code_cell(source, execution_count=1)
    cell.outputs = list(outputs)
    return cell


def test_a_cell_edited_after_its_outputs_were_stored_is_stale():
    nb = store(new_notebook(cells=[executed("print(1)", new_output("stream", name="stdout", text="1\n")),
                                   new_code_cell("x = 2")]), "a GPU, today")
    assert stale_cells(nb) == [] and nb.metadata["xcuda"]["outputs_from"] == "a GPU, today"
    nb.cells[0].source = "print(2)"
    assert stale_cells(nb) == [0]
    nb.cells[1].execution_count = 3  # run, but never stored
    assert stale_cells(nb) == [0, 1]


def test_structure_is_the_kinds_of_output_with_a_streams_pieces_merged():
    cell = executed("x", new_output("stream", name="stdout", text="a"), new_output("stream", name="stdout", text="b"),
                    new_output("display_data", data={"text/html": "<b/>", "text/plain": "b"}),
                    new_output("error", ename="ValueError", evalue="v", traceback=[]))
    assert structure(cell) == [("stream", "stdout"), ("display", ("text/html", "text/plain")), ("error", "ValueError")]


def test_a_fresh_run_differs_only_when_its_kinds_of_output_do():
    stored = new_notebook(cells=[executed("t", new_output("stream", name="stdout", text="0.41 ms\n"))])
    same = new_notebook(cells=[executed("t", new_output("stream", name="stdout", text="0.39 ms\n"))])
    other = new_notebook(cells=[executed("t", new_output("error", ename="NoDeviceError", evalue="", traceback=[]))])
    assert structure_differences(stored, same) == []
    assert "this run [('error', 'NoDeviceError')]" in structure_differences(stored, other)[0]
    nbformat.validate(stored)


def test_storing_writes_the_runs_device_into_the_first_cell_once():
    nb = new_notebook(cells=[new_markdown_cell("# Title\n\nWhat it is."), executed("x = 1")])
    store(nb, "an H100, today")
    assert nb.cells[0].source == "# Title\n\nWhat it is.\n\n" + device_line("an H100, today")
    assert names_its_device(nb)
    store(nb, "an H200, tomorrow")
    assert nb.cells[0].source == "# Title\n\nWhat it is.\n\n" + device_line("an H200, tomorrow")
    nb.metadata["xcuda"]["outputs_from"] = "somewhere else"
    assert not names_its_device(nb)

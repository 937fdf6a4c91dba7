"""nbgrader with %%cuda cells (imported only by an nbgrader_config.py; needs nbgrader installed).

nbgrader replaces a solution region with a stub chosen by the notebook's kernel language, so in
the xcuda kernel (language python) a %%cuda cell would get `raise NotImplementedError()` pasted
into its C++. ClearCudaSolutions gives %%cuda cells a C++ stub instead (`// YOUR CODE HERE`) and
keeps a whole solution cell's magic line. In nbgrader_config.py:

    import xcuda.nbgrader
    c.GenerateAssignment.preprocessors = xcuda.nbgrader.generate_assignment_preprocessors()

docs/exercises.md walks through a whole assignment: what the student's copy holds, and where the
reference lives (not in it)."""
from nbgrader.converters.generate_assignment import GenerateAssignment
from nbgrader.preprocessors import ClearSolutions
from traitlets import Dict

CUDA_STUB = "// YOUR CODE HERE"


def is_cuda_cell(cell):
    return cell.cell_type == "code" and cell.source.lstrip().startswith("%%cuda")


class ClearCudaSolutions(ClearSolutions):
    """ClearSolutions that stubs a %%cuda cell's solution region in C++."""

    code_stub = Dict(
        dict(ClearSolutions.code_stub.default(), cuda=CUDA_STUB),
        help="The code snippet that will replace code solutions, by language ('cuda': inside %%cuda cells)",
    ).tag(config=True)

    def preprocess_cell(self, cell, resources, cell_index):
        if not is_cuda_cell(cell):
            return super().preprocess_cell(cell, resources, cell_index)
        magic = cell.source.lstrip().split("\n", 1)[0]
        language = resources["language"]
        resources["language"] = "cuda"
        try:
            cell, resources = super().preprocess_cell(cell, resources, cell_index)
        finally:
            resources["language"] = language
        # A whole solution cell became the stub alone: the magic line goes back on top.
        if cell.source == self.code_stub["cuda"]:
            cell.source = magic + "\n" + cell.source
        return cell, resources


def generate_assignment_preprocessors():
    """GenerateAssignment's preprocessors with ClearSolutions replaced by ClearCudaSolutions."""
    defaults = GenerateAssignment.preprocessors.default()
    if ClearSolutions not in defaults:
        raise RuntimeError("this nbgrader's GenerateAssignment has no ClearSolutions step to replace; "
                           f"its preprocessors are {[p.__name__ for p in defaults]}")
    return [ClearCudaSolutions if p is ClearSolutions else p for p in defaults]

"""complete_reply as ipykernel's: IPython's (Jedi's) completions, each with its kind and
signature under metadata["_jupyter_types_experimental"], from which JupyterLab draws icons."""

from conftest import execute, shell_reply

TYPES_KEY = "_jupyter_types_experimental"


def complete(kc, code):
    msg_id = kc.complete(code, len(code))
    reply = shell_reply(kc, msg_id)["content"]
    assert reply["status"] == "ok", reply
    return reply


def typed(reply):
    return {entry["text"]: entry for entry in reply["metadata"][TYPES_KEY]}


def test_each_match_comes_with_its_type_and_place(kernel):
    _, kc = kernel
    code = "import collections; collections.OrderedDi"
    reply = complete(kc, code)
    entries = reply["metadata"][TYPES_KEY]
    assert [entry["text"] for entry in entries] == reply["matches"]
    for entry in entries:
        assert (entry["start"], entry["end"]) == (reply["cursor_start"], reply["cursor_end"])
    assert typed(reply)["OrderedDict"]["type"] == "class"


def test_functions_modules_and_keywords_are_told_apart(kernel):
    _, kc = kernel
    execute(kc, "def scale_by(factor, values):\n    return [factor * v for v in values]")
    function = typed(complete(kc, "scale_b"))["scale_by"]
    assert function["type"] == "function"
    assert function["signature"] == "(factor, values)"
    assert typed(complete(kc, "import collection"))["collections"]["type"] == "module"
    assert typed(complete(kc, "whil"))["while"]["type"] == "keyword"


def test_nothing_to_complete_gives_empty_matches_and_types(kernel):
    _, kc = kernel
    reply = complete(kc, "qqq_no_such_name_")
    assert reply["matches"] == [] and reply["metadata"][TYPES_KEY] == []
    assert reply["cursor_start"] == reply["cursor_end"] == len("qqq_no_such_name_")


# %%cuda cells: CUDA C++ completion, inspection and is_complete (xcuda/_editor_language.py).
CUDA_CELL = """%%cuda --std c++17
__global__ void protocol_saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def complete_at(kc, code, cursor_pos):
    reply = shell_reply(kc, kc.complete(code, cursor_pos))["content"]
    assert reply["status"] == "ok", reply
    assert [entry["text"] for entry in reply["metadata"][TYPES_KEY]] == reply["matches"]
    return reply


def test_cuda_cell_completes_builtins_members_own_names_headers_and_options(kernel):
    _, kc = kernel
    code = CUDA_CELL + "    __sync\n}"
    cursor = len(CUDA_CELL) + len("    __sync")
    reply = complete_at(kc, code, cursor)
    assert typed(reply)["__syncthreads"]["type"] == "function"
    assert (reply["cursor_start"], reply["cursor_end"]) == (cursor - len("__sync"), cursor)
    cursor = CUDA_CELL.index("threadIdx.") + len("threadIdx.")
    reply = complete_at(kc, CUDA_CELL, cursor)
    assert reply["matches"] == ["x", "y", "z"]  # the cursor before `x`: nothing typed yet
    reply = complete_at(kc, CUDA_CELL + "protocol_sa", len(CUDA_CELL) + len("protocol_sa"))
    assert typed(reply)["protocol_saxpy"]["type"] == "function"
    code = "%%cuda\n#include <cub/"
    reply = complete_at(kc, code, len(code))
    assert "block/" in reply["matches"] and typed(reply)["cub.cuh"]["type"] == "module"
    assert reply["cursor_start"] == reply["cursor_end"] == len(code)
    code = "%%cuda --st\nint x;"
    reply = complete_at(kc, code, len("%%cuda --st"))
    assert reply["matches"] == ["--std"] and reply["cursor_start"] == len("%%cuda ")


def test_cuda_cell_inspects_an_intrinsic_and_a_compiled_kernel(kernel):
    _, kc = kernel
    code = "%%cuda\n__device__ float f(float v) { return __shfl_down_sync(0xffffffff, v, 1); }"
    reply = shell_reply(kc, kc.inspect(code, code.index("__shfl_down_sync") + 4))["content"]
    assert reply["status"] == "ok" and reply["found"]
    assert "sm_30" in reply["data"]["text/plain"] and "text/markdown" in reply["data"]
    reply_, _ = execute(kc, CUDA_CELL, timeout=60)
    assert reply_["content"]["status"] == "ok", reply_["content"]
    reply = shell_reply(kc, kc.inspect(CUDA_CELL, CUDA_CELL.index("protocol_saxpy") + 3))["content"]
    assert reply["found"], reply
    assert "Registers per thread: " in reply["data"]["text/plain"]


def test_cuda_cell_is_incomplete_while_a_brace_is_open(kernel):
    _, kc = kernel
    reply = shell_reply(kc, kc.is_complete("%%cuda\n__global__ void k() {\n  if (1) {"))["content"]
    assert reply == {"status": "incomplete", "indent": " " * 8}
    assert shell_reply(kc, kc.is_complete(CUDA_CELL))["content"] == {"status": "complete"}


def test_python_cells_still_complete_python_after_cuda_cells(kernel):
    _, kc = kernel
    reply = complete(kc, "import collections; collections.OrderedDi")
    assert typed(reply)["OrderedDict"]["type"] == "class"
    assert shell_reply(kc, kc.is_complete("def f():"))["content"]["status"] == "incomplete"

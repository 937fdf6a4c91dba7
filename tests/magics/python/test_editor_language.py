"""CUDA completion, inspection and is_complete for %%cuda cells (xcuda._editor_language and the
modules it reads), in-process on the IPython shell with the extension; the protocol side is
tests/kernel/test_complete.py."""
import logging

import pytest

import xcuda

from xcuda import _editor_builtins, _editor_context, _editor_language, _editor_source

CELL = """%%cuda --std c++17
struct Particle { float3 pos; float mass; };
#define TILE 128
__global__ void advance(Particle* ps, const float* __restrict__ w, int n) {
    __shared__ float tile[TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y = a * x;  // an expression, not a declaration of x
}
"""


def matches_at_end(ip, code):
    reply = _editor_language.complete(ip, code, len(code))
    entries = reply["metadata"]["_jupyter_types_experimental"]
    assert [e["text"] for e in entries] == reply["matches"]
    assert all((e["start"], e["end"]) == (reply["cursor_start"], reply["cursor_end"]) for e in entries)
    return reply, {e["text"]: e["type"] for e in entries}


def test_cells_of_the_cuda_magics_are_cuda_and_others_are_not():
    assert _editor_language.is_cuda_cell("%%cuda\nint x;")
    assert _editor_language.is_cuda_cell("%%cuda_header v.h\nint x;")
    assert _editor_language.is_cuda_cell("%%cuda")
    for python in ("%%cuda_profile\nf()", "%%cuda_check\nf()", "x = '%%cuda'", " %%cuda\n"):
        assert not _editor_language.is_cuda_cell(python)


def test_builtin_table_rows_are_complete_and_name_their_archs():
    assert 60 <= len(_editor_builtins.BUILTINS) <= 120
    for row in _editor_builtins.BUILTINS.values():
        assert row.kind in ("variable", "function", "class", "keyword") and row.signature and row.description
    assert _editor_builtins.BUILTINS["__shfl_sync"].arch == "sm_30"
    assert _editor_builtins.BUILTINS["__nanosleep"].arch == "sm_70"
    assert _editor_builtins.members_of_builtin("threadIdx") == ("x", "y", "z")
    assert _editor_builtins.members_of_type("float4") == ("x", "y", "z", "w")


def test_scanner_finds_the_cells_names_and_skips_comments_and_expressions():
    found = {(d.name, d.kind) for d in _editor_source.declarations(CELL)}
    assert {("Particle", "class"), ("pos", "property"), ("mass", "property"), ("TILE", "constant"),
            ("advance", "function"), ("ps", "variable"), ("w", "variable"), ("tile", "variable"),
            ("i", "variable")} <= found
    assert ("x", "variable") not in found and ("expression", "variable") not in found
    kernel = next(d for d in _editor_source.declarations(CELL) if d.name == "advance")
    assert kernel.is_kernel and kernel.text.startswith("__global__ void advance(")


def test_completes_builtins_members_and_own_names(ip):
    reply, types = matches_at_end(ip, CELL + "__sync")
    assert "__syncthreads" in types and types["__syncthreads"] == "function"
    assert reply["cursor_start"] == len(CELL) and reply["cursor_end"] == len(CELL) + len("__sync")
    assert matches_at_end(ip, CELL + "blockDim.")[0]["matches"] == ["x", "y", "z"]
    assert matches_at_end(ip, CELL + "ps[i].")[0]["matches"] == ["pos", "mass"]
    assert matches_at_end(ip, CELL + "ps->m")[0]["matches"] == ["mass"]
    _, types = matches_at_end(ip, CELL + "adv")
    assert types == {"advance": "function"}
    assert matches_at_end(ip, CELL + "__glo")[1] == {"__global__": "keyword"}


def test_completes_in_the_middle_of_a_cell(ip):
    cursor = CELL.index("blockIdx") + len("block")
    reply = _editor_language.complete(ip, CELL, cursor)
    assert "blockIdx" in reply["matches"] and "blockDim" in reply["matches"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (cursor - len("block"), cursor)


def test_completes_registered_headers_and_their_names(ip):
    ip.run_cell("%%cuda_header lang_vec.h\nstruct LangVec { float u; float v; };\n", store_history=True)
    assert "lang_vec.h" in _editor_context.registered_headers(ip)
    assert matches_at_end(ip, '%%cuda\n#include "lang_')[0]["matches"] == ["lang_vec.h"]
    assert matches_at_end(ip, "%%cuda\nLangV")[1] == {"LangVec": "class"}
    assert matches_at_end(ip, "%%cuda\n__device__ void f(LangVec q) {\n  q.")[0]["matches"] == ["u", "v"]


@pytest.mark.skipif(not _editor_context.include_dirs(), reason="no CUDA toolkit include directory")
def test_completes_toolkit_headers_and_cccl_folders(ip):
    reply, types = matches_at_end(ip, "%%cuda\n#include <cu")
    assert "cuda_fp16.h" in types and types["cuda_fp16.h"] == "module"
    assert reply["cursor_start"] == len("%%cuda\n#include <")
    reply, _ = matches_at_end(ip, "%%cuda\n#include <cub/bl")
    assert reply["matches"] == ["block/"] and reply["cursor_start"] == len("%%cuda\n#include <cub/")


def test_completes_the_magic_lines_options_and_their_values(ip):
    reply, types = matches_at_end(ip, "%%cuda --st")
    assert reply["matches"] == ["--std"] and reply["cursor_start"] == len("%%cuda ")
    assert matches_at_end(ip, "%%cuda --std c++1")[0]["matches"] == ["c++11", "c++14", "c++17"]
    assert matches_at_end(ip, "%%cuda --fast-compile=mi")[0]["matches"] == ["mid", "min"]
    if _editor_context.supported_archs():
        assert all(m.startswith("sm_9") for m in matches_at_end(ip, "%%cuda --arch sm_9")[0]["matches"])
    # every option of the table, read from %%cuda -h: none written twice here
    spellings = {s for o in _editor_context.magic_options(ip, "cuda") for s in o.spellings}
    assert {"--arch", "--std", "-I", "-D", "--ptx", "--resources", "--fast-compile", "-h"} <= spellings


def test_inspects_builtins_declarations_kernels_and_options(ip):
    code = CELL + "__shfl_down_sync"
    reply = _editor_language.inspect_object(ip, code, len(code) - 3, 0)
    assert reply["found"] and "sm_30" in reply["data"]["text/plain"]
    assert reply["data"]["text/plain"].startswith("T __shfl_down_sync(unsigned mask")
    reply = _editor_language.inspect_object(ip, CELL, CELL.index("mass;") + 1, 0)
    assert reply["data"]["text/plain"] == "struct Particle { float3 pos; float mass; };"
    reply = _editor_language.inspect_object(ip, CELL, 10, 0)
    assert reply["found"] and "C++ standard" in reply["data"]["text/plain"]
    assert not _editor_language.inspect_object(ip, CELL + "zzz_unknown", len(CELL) + 2, 0)["found"]


def test_inspecting_a_compiled_kernel_shows_its_resources(ip):
    cell = "%%cuda\n__global__ void lang_fill(float* x, float v) { x[threadIdx.x] = v; }\n"
    ip.run_cell(cell)
    reply = _editor_language.inspect_object(ip, cell, cell.index("lang_fill") + 2, 0)
    text = reply["data"]["text/plain"]
    assert text.startswith("__global__ void lang_fill(float* x, float v)")
    assert "Registers per thread: " in text
    if not xcuda.device_available() and not xcuda.gpu_available():  # XCUDA_DEVICE=none: says why there is none
        assert "Occupancy at 128 threads: unavailable (NoDeviceError: " in text, text
    else:
        assert "Occupancy at 256 threads: " in text and "unavailable" not in text, text


@pytest.mark.parametrize("code, expected", [
    ("%%cuda\n__global__ void f() {", {"status": "incomplete", "indent": "    "}),
    ("%%cuda\nvoid f() {\n  if (x) {", {"status": "incomplete", "indent": "        "}),
    ("%%cuda\nvoid f(int a,", {"status": "incomplete", "indent": ""}),
    ("%%cuda\n/* still open", {"status": "incomplete", "indent": ""}),
    ("%%cuda\nvoid f() {}\n", {"status": "complete"}),
    ("%%cuda\nconst char* s = \"{(\"; char c = '{'; // {\n", {"status": "complete"}),
    ("%%cuda", {"status": "incomplete", "indent": ""}),
])
def test_is_complete_counts_brackets_outside_comments_and_literals(code, expected):
    assert _editor_language.is_complete(code) == expected


def test_a_fault_in_cuda_completion_is_logged_and_answers_empty(ip, monkeypatch, caplog):
    from xcuda import _hosted_shell

    def broken(*args):
        raise RuntimeError("scanner bug")

    monkeypatch.setattr(_editor_language, "complete", broken)
    monkeypatch.setattr(_editor_language, "is_complete", broken)
    with caplog.at_level(logging.ERROR, logger="xcuda._hosted_shell"):
        reply = _hosted_shell.complete(ip, "%%cuda\n__sy", 11)
        assert _hosted_shell.is_complete(ip, "%%cuda\n{") == {"status": "unknown"}
    assert reply["status"] == "ok" and reply["matches"] == [] and reply["cursor_start"] == 11
    assert "complete failed in a %%cuda cell" in caplog.text and "scanner bug" in caplog.text


def test_python_cells_still_complete_as_python(ip):
    from xcuda import _hosted_shell

    code = "import collections; collections.OrderedDi"
    assert "OrderedDict" in _hosted_shell.complete(ip, code, len(code))["matches"]

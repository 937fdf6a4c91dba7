#!/usr/bin/env python3
"""PTX census: which instructions (opcode with its dot-suffixes, e.g. `ld.global.nc.v4.f32`) real
CUDA code compiles to, as a guide to what the CPU device must emulate first.

The corpus: the `%%cuda` cells of the repo's notebooks, the cuda-samples teaching set
(Samples/0_Introduction, 2_Concepts_and_Techniques, 6_Performance: every .cu that compiles on its
own) and the CUDA sources of CuPy's RawKernel/RawModule tests. Each file is compiled with
`nvcc -ptx -arch=sm_90 -lineinfo` (nvcc and NVRTC share the NVVM front end, so the PTX is what
a `%%cuda` cell would give); files that fail to compile are skipped and counted.

The cuda-samples and CuPy repositories are read from git directories (`git archive HEAD`), e.g.
the snapshots the `fetch` tool makes; nothing of them is copied into this repository.

    python3 bench/cpu-device/ptx_census.py \\
        --samples-git /work/.mirror/NVIDIA+cuda-samples/repo --cupy-git /work/.mirror/cupy+cupy/repo \\
        --out bench/cpu-device/census.md [--keep-ptx /tmp/ptx-corpus]

`--keep-ptx DIR` keeps the PTX files, for the parser's corpus test:
`XCUDA_PTX_CORPUS_DIR=DIR xcuda-cpu-ptx-tests --gtest_filter=PtxCorpusFiles.*`.
"""
from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import dataclasses
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_DIRS = ("Samples/0_Introduction", "Samples/2_Concepts_and_Techniques", "Samples/6_Performance")
CUPY_TESTS = "tests/cupy_tests/core_tests/test_raw.py"
CUPY_INCLUDE = "cupy/_core/include"

# Instructions whose emulation is hard or out of scope, by the prefix of `opcode.suffixes` (the
# first prefix that matches claims an instruction): what makes them so. The report lists those
# the corpus uses.
HARD = [
    ("tex.", "texture fetches: filtering, addressing modes and formats of a texture object"),
    ("tld4.", "texture gathers"),
    ("suld.", "surface loads: the surface's layout and out-of-bounds modes"),
    ("sust.", "surface stores: the surface's layout and out-of-bounds modes"),
    ("wmma.", "warp matrix fragments: which lane holds which element is unspecified"),
    ("mma.", "warp matrix multiply-accumulate: fragment layouts per shape and type"),
    ("wgmma.", "warpgroup MMA: asynchronous, shared-memory matrix descriptors"),
    ("ldmatrix.", "matrix fragment loads across a warp"),
    ("cp.async.bulk.tensor", "TMA: tensor maps, cluster multicast, mbarrier completion"),
    ("cp.async.bulk", "bulk copies completing on an mbarrier with transaction counts"),
    ("cp.async.", "asynchronous copies to shared memory: commit groups and waits"),
    ("mbarrier.", "shared-memory barriers: phases, transaction counts, try_wait"),
    ("barrier.cluster", "cluster barriers: every CTA of the cluster on one worker"),
    ("mapa.", "addresses of another CTA's shared memory in the cluster"),
    ("fence.proxy", "fences between the generic and the async proxy"),
    ("griddepcontrol.", "programmatic dependent launch"),
    ("bar.red.", "a CTA barrier that reduces a predicate (popc/and/or)"),
    ("bar.warp.sync", "__syncwarp: waits for the lanes of a mask, possibly diverged"),
    ("bar.", "CTA barriers, with thread counts and named barriers"),
    ("barrier.", "CTA barriers, with thread counts and named barriers"),
    ("shfl.", "warp shuffles: lanes absent from the mask, clamp and segment arithmetic"),
    ("vote.", "warp votes over the lanes of a mask"),
    ("match.", "warp match: sets of lanes holding equal values"),
    ("redux.", "warp reductions over the lanes of a mask"),
    ("activemask", "the lanes converged at this point: depends on the reconvergence model"),
    ("atom.", "atomics: float, 16-bit and 128-bit forms, scopes and orderings"),
    ("red.", "reductions to memory with scopes and orderings"),
    ("ld.volatile", "volatile loads: a spin loop on one must yield the warp"),
    ("ld.acquire", "acquire loads: a spin loop on one must yield the warp"),
    ("ld.relaxed", "scoped relaxed loads: a spin loop on one must yield the warp"),
    ("nanosleep", "sleeps: must yield the warp, not spin"),
    ("ex2.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("lg2.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("sin.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("cos.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("rsqrt.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("rcp.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("sqrt.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("tanh.approx", "approximate math: results are not bit-identical to the GPU's"),
    ("div.approx", "approximate division: results are not bit-identical to the GPU's"),
    ("div.full", "approximate division: results are not bit-identical to the GPU's"),
    ("call", "calls: frames, .param spaces, indirect calls through prototypes"),
    ("brx.idx", "indirect branches through .branchtargets"),
    ("exit", "exit: lanes retire while the rest of the warp goes on"),
    ("trap", "trap: aborts the whole grid"),
    ("prmt.", "byte permutes, with their f4e/b4e/rc8/ecl/ecr/rc16 modes"),
    ("dp4a.", "4-way byte dot products"),
    ("vabsdiff", "SIMD video instructions"),
]


@dataclasses.dataclass
class Source:
    corpus: str     # "notebooks", "cuda-samples", "cupy"
    label: str      # where it came from: notebook and cell, sample path, CuPy variable
    path: str       # the .cu file to compile
    includes: list  # -I directories
    ptx: str = ""   # the PTX, once compiled
    error: str = ""  # nvcc's last line, when it failed


SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hxx", ".inl", ".c", ".cpp")


def git_export(git_dir: str, paths: list, dest: str, suffixes: tuple = SOURCE_SUFFIXES) -> None:
    """The files under `paths` at HEAD whose names end in one of `suffixes`, written under dest.
    Blobs a snapshot lacks (the fetch tool's mirrors leave out large files) are skipped."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "HEAD", "--", *paths], check=True,
                             capture_output=True, text=True).stdout
    blobs = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and path.endswith(suffixes):
            blobs.append((sha, path))
    batch = subprocess.run(["git", "--git-dir", git_dir, "cat-file", "--batch"], check=True, capture_output=True,
                           input="".join(f"{sha}\n" for sha, _ in blobs).encode()).stdout
    pos = 0
    for sha, path in blobs:
        header_end = batch.index(b"\n", pos)
        header = batch[pos:header_end].split()
        pos = header_end + 1
        if header[-1] == b"missing":
            continue
        size = int(header[2])
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(batch[pos:pos + size])
        pos += size + 1


def notebook_sources(work: str) -> list:
    sources = []
    out_dir = os.path.join(work, "notebooks")
    os.makedirs(out_dir, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(REPO, "notebooks"))):
        if not name.endswith(".ipynb"):
            continue
        with open(os.path.join(REPO, "notebooks", name), encoding="utf-8") as f:
            notebook = json.load(f)
        for index, cell in enumerate(notebook["cells"]):
            text = "".join(cell["source"])
            first, _, body = text.lstrip().partition("\n")
            # `%%cuda [options]` cells only: `%%cuda_profile` cells are Python.
            if cell["cell_type"] != "code" or first.split()[:1] != ["%%cuda"]:
                continue
            path = os.path.join(out_dir, f"{name[:-6]}-cell{index}.cu")
            with open(path, "w", encoding="utf-8") as f:
                f.write(body)
            sources.append(Source("notebooks", f"{name} cell {index}", path, []))
    return sources


def samples_sources(git_dir: str, work: str) -> list:
    root = os.path.join(work, "cuda-samples")
    git_export(git_dir, [*SAMPLE_DIRS, "Common"], root)
    sources = []
    for top in SAMPLE_DIRS:
        for dirpath, _, files in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(files):
                if name.endswith(".cu"):
                    path = os.path.join(dirpath, name)
                    sources.append(Source("cuda-samples", os.path.relpath(path, root), path,
                                          [os.path.join(root, "Common"), dirpath]))
    return sources


def cupy_sources(git_dir: str, work: str) -> list:
    root = os.path.join(work, "cupy")
    git_export(git_dir, [CUPY_TESTS, CUPY_INCLUDE], root, SOURCE_SUFFIXES + (".py",))
    with open(os.path.join(root, CUPY_TESTS), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    # Every string constant with a kernel in it: the tests keep their sources in module-level
    # variables and inline literals alike.
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and len(node.targets) == 1:
            if isinstance(node.targets[0], ast.Name):
                names[id(node.value)] = node.targets[0].id
    sources, seen = [], set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and "__global__" in node.value):
            continue
        if node.value in seen:
            continue
        seen.add(node.value)
        label = names.get(id(node), f"literal at line {node.lineno}")
        path = os.path.join(root, f"test_raw_{len(sources)}.cu")
        with open(path, "w", encoding="utf-8") as f:
            f.write(node.value)
        sources.append(Source("cupy", f"{CUPY_TESTS}: {label}", path, [os.path.join(root, CUPY_INCLUDE)]))
    return sources


def compile_ptx(nvcc: str, source: Source) -> Source:
    out = source.path[:-3] + ".ptx"
    command = [nvcc, "-ptx", "-arch=sm_90", "-lineinfo", "-std=c++17", *[f"-I{d}" for d in source.includes],
               source.path, "-o", out]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        lines = [l for l in (result.stderr or result.stdout).splitlines() if "error" in l] or ["(no message)"]
        source.error = lines[0].replace(os.path.dirname(source.path) + "/", "")[:160]
    else:
        with open(out, encoding="utf-8") as f:
            source.ptx = f.read()
    return source


_STRINGS_AND_COMMENTS = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.S)
_LINE_DIRECTIVES = re.compile(r"^\s*\.(loc|file|version|target|address_size)\b[^\n]*$", re.M)
_INITIALIZER = re.compile(r"=\s*\{[^;]*\}")
_LABEL = re.compile(r"^[\w$%]+\s*:(?!:)\s*")
_GUARD = re.compile(r"^@!?[\w$%]+\s+")
_OPCODE = re.compile(r"^[a-z][a-z0-9_]*(\.[\w:]+)*$")
_TYPE = re.compile(r"^([bsuf](8|16|32|64|128)|pred|f16x2|bf16|bf16x2|tf32|e4m3x2|e5m2x2)$")


def instructions(ptx: str):
    """Each instruction's `opcode.suffixes`, in order. A census needs no full parse: comments,
    debug sections, line-terminated directives and initializers removed, what remains splits into
    statements at ';', '{' and '}', and the statements that start with an opcode are the
    instructions."""
    text = _STRINGS_AND_COMMENTS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", ptx)
    while (start := text.find(".section")) >= 0:
        open_brace = text.find("{", start)
        depth, end = 0, open_brace
        for end in range(open_brace, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                break
        text = text[:start] + text[end + 1:]
    text = _LINE_DIRECTIVES.sub(" ", text)
    text = _INITIALIZER.sub(" ", text)
    for statement in re.split(r"[;{}]", text):
        statement = statement.strip()
        while (label := _LABEL.match(statement)):
            statement = statement[label.end():]
        statement = _GUARD.sub("", statement)
        token = statement.split(None, 1)[0] if statement else ""
        if _OPCODE.match(token):
            yield token


def markdown_table(header: list, rows: list) -> list:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def report(sources: list, args, nvcc_version: str) -> str:
    by_instruction = collections.Counter()
    files_of = collections.defaultdict(set)
    by_opcode = collections.Counter()
    per_corpus = collections.defaultdict(lambda: collections.Counter())
    for s in sources:
        c = per_corpus[s.corpus]
        c["files"] += 1
        if not s.ptx:
            c["failed"] += 1
            continue
        c["compiled"] += 1
        c["ptx lines"] += s.ptx.count("\n")
        c["kernels"] += len(re.findall(r"\.entry\s", s.ptx))
        for ins in instructions(s.ptx):
            c["instructions"] += 1
            by_instruction[ins] += 1
            files_of[ins].add(s.path)
            by_opcode[ins.split(".", 1)[0]] += 1
    total = sum(by_instruction.values())

    out = ["# PTX census", "",
           "Which instructions real CUDA code compiles to: each `opcode.suffixes` combination counted once per",
           "occurrence in the PTX (a static count, not an execution profile). Made by",
           "`bench/cpu-device/ptx_census.py` (its docstring says how to run it) on "
           f"{datetime.date.today().isoformat()}, with `nvcc -ptx -arch=sm_90 -lineinfo -std=c++17` "
           f"({nvcc_version}).", "",
           "## Corpus", ""]
    corpus_rows = []
    for name, c in per_corpus.items():
        corpus_rows.append([name, c["files"], c["compiled"], c["failed"], c["kernels"], c["ptx lines"],
                            c["instructions"]])
    out += markdown_table(["corpus", ".cu files", "compiled", "failed (skipped)", "kernels", "PTX lines",
                           "instructions"], corpus_rows)
    out += ["", "- notebooks: the `%%cuda` cells of `notebooks/*.ipynb`, one file per cell.",
            f"- cuda-samples: NVIDIA/cuda-samples at {args.samples_rev}, the .cu files of "
            + ", ".join(f"`{d}`" for d in SAMPLE_DIRS)
            + ", each compiled alone with `-I Common` and its own directory.",
            f"- cupy: the kernel sources in string literals of CuPy's `{CUPY_TESTS}` at {args.cupy_rev} "
            f"(`-I {CUPY_INCLUDE}`); templates without an instantiation compile to no code.", ""]
    failed = [s for s in sources if not s.ptx]
    if failed:
        out += ["Files that did not compile on their own (nvcc's first error):", ""]
        out += [f"- {s.corpus}: `{s.label}`: {s.error}" for s in failed]
        out += [""]
    out += ["## Opcodes", "",
            f"{total} instructions, {len(by_opcode)} opcodes, {len(by_instruction)} opcode/suffix combinations.", ""]
    out += markdown_table(["opcode", "count", "share"],
                          [[f"`{op}`", n, f"{100.0 * n / total:.2f}%"] for op, n in by_opcode.most_common()])
    out += ["", "## Opcode and suffix combinations", "",
            "`files`: how many of the compiled files use it.", ""]
    out += markdown_table(["#", "instruction", "count", "files"],
                          [[i + 1, f"`{ins}`", n, len(files_of[ins])]
                           for i, (ins, n) in enumerate(by_instruction.most_common())])
    # Types keep their order (cvt.u64.u32 is not cvt.u32.u64); the other suffixes are compared as a set.
    orders = collections.defaultdict(list)
    for ins in by_instruction:
        opcode, *suffixes = ins.split(".")
        types = tuple(x for x in suffixes if _TYPE.match(x))
        orders[(opcode, types, tuple(sorted(x for x in suffixes if not _TYPE.match(x))))].append(ins)
    permuted = [sorted(v, key=lambda ins: -by_instruction[ins]) for v in orders.values() if len(v) > 1]
    if permuted:
        out += ["", "## Same suffixes in another order", "",
                "The decoder cannot rely on the order of suffixes: the corpus writes these both ways.", ""]
        out += ["- " + ", ".join(f"`{ins}` ({by_instruction[ins]})" for ins in v) for v in permuted]
    out += ["", "## Hard to emulate", "",
            "The instructions of the corpus that need more than a loop over lanes doing host arithmetic",
            "(warp or CTA collectives, asynchronous units, yielding, GPU-specific results), by the prefix",
            "that makes them so (the script's `HARD` list), most used first.", ""]
    hard_rows = []
    for prefix, why in HARD:
        used = {ins: n for ins, n in by_instruction.items() if ins == prefix or ins.startswith(prefix)}
        # A longer, more specific prefix earlier in the list claims its instructions first.
        for earlier, _ in HARD[:HARD.index((prefix, why))]:
            used = {ins: n for ins, n in used.items() if not (ins == earlier or ins.startswith(earlier))}
        if used:
            examples = ", ".join(f"`{ins}`" for ins, _ in sorted(used.items(), key=lambda kv: -kv[1])[:4])
            hard_rows.append([f"`{prefix}`", sum(used.values()), why, examples])
    hard_rows.sort(key=lambda r: -r[1])
    out += markdown_table(["prefix", "count", "why", "most used"], hard_rows)
    return "\n".join(out) + "\n"


def git_rev(git_dir: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples-git", required=True, help="git directory of NVIDIA/cuda-samples")
    parser.add_argument("--cupy-git", required=True, help="git directory of cupy/cupy")
    parser.add_argument("--nvcc", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"))
    parser.add_argument("--out", default=os.path.join(REPO, "bench", "cpu-device", "census.md"))
    parser.add_argument("--keep-ptx", help="copy every PTX file here (for the parser's corpus test)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="nvcc processes at once")
    args = parser.parse_args()
    args.samples_rev = git_rev(args.samples_git)
    args.cupy_rev = git_rev(args.cupy_git)
    nvcc_version = subprocess.run([args.nvcc, "--version"], check=True, capture_output=True,
                                  text=True).stdout.strip().splitlines()[-1]

    with tempfile.TemporaryDirectory(prefix="ptx-census-") as work:
        sources = notebook_sources(work) + samples_sources(args.samples_git, work) + cupy_sources(args.cupy_git, work)
        print(f"compiling {len(sources)} files with {args.jobs} nvcc processes", file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            for s in pool.map(lambda s: compile_ptx(args.nvcc, s), sources):
                print(f"  {'ok  ' if s.ptx else 'FAIL'} {s.corpus}: {s.label}", file=sys.stderr)
        if args.keep_ptx:
            os.makedirs(args.keep_ptx, exist_ok=True)
            for s in sources:
                if s.ptx:
                    digest = hashlib.sha1(s.label.encode()).hexdigest()[:8]
                    name = re.sub(r"[^\w.-]+", "_", os.path.basename(s.path)[:-3]) + f"-{digest}.ptx"
                    with open(os.path.join(args.keep_ptx, f"{s.corpus}-{name}"), "w", encoding="utf-8") as f:
                        f.write(s.ptx)
        text = report(sources, args, nvcc_version)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

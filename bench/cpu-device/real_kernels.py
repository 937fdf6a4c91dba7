#!/usr/bin/env python3
"""Kernels we did not write, run through xcuda on the CPU device and/or a GPU and checked.

The kernels come from two upstream projects, read at run time from snapshots given on the command
line (nothing of them is copied into this repository):

- NVIDIA/cuda-samples (`--samples DIR`): the teaching set. Each case slices the device code out of
  the sample's own .cu/.cuh files (device_slicer.py: host functions, host globals and host-only
  headers are dropped, `__global__`/`__device__` code, types and constants are kept, local
  includes are inlined), compiles it with xcuda (NVRTC, sm_90) and launches the kernels by name
  the way the sample's host code does, on seeded random inputs. The reference is what the
  sample's host code checks (its gold function or check), computed here with numpy.
- CuPy's RawKernel tests (`--cupy DIR`): the CUDA source strings of
  tests/cupy_tests/core_tests/test_raw.py, read with Python's ast module (the string assigned
  to a name), compiled as CuPy compiles them (its include directory, translate_cucomplex's header
  swap), launched as the tests launch them and checked as they check.

Modes:
  --device cpu   (default where there is no GPU) run every case on the CPU device
  --device gpu   run every case on GPU 0
  --compare      run every case on both, in this process (xcuda.set_device("cpu"), then
                 xcuda.set_device(0)), check both against the reference, and compare the two
                 outputs: bitwise for integer and correctly rounded float code; within the bound
                 the case states where the PTX has approximate instructions (the script lists
                 the approximate instructions it finds in each case's PTX). A float case that
                 differs is run again on both devices with --fmad=false, which tells a real
                 difference from ptxas contracting a `mul`+`add` pair (allowed by PTX for
                 instructions without a rounding modifier; the CPU device runs the PTX as written).

Each result is pass, fail (with the reason: a wrong result, a check finding, a compile error, an
unsupported instruction) or skipped (with the reason). The table goes to stdout (`--markdown` for
a Markdown table), the same records to a JSON file (`--json`, default
real_kernels-<mode>.json in the current directory).

    # here (no GPU): the snapshots as the fetch tool leaves them (git directories) or plain trees
    PYTHONPATH=build/python python3 bench/cpu-device/real_kernels.py \\
        --samples /work/.mirror/NVIDIA+cuda-samples/repo --cupy /work/.mirror/cupy+cupy/repo
    # the GPU machine, from the repository root, with the trees exported by `git archive`
    python3 bench/cpu-device/real_kernels.py --compare --samples <dir> --cupy <dir>

`--only REGEX` runs the cases whose name matches; `--list` lists them; `--seed N` changes the
inputs (default 2026; each case's generator is seeded from the seed and the case's name);
`--export DIR` writes the snapshots' source files to DIR/cuda-samples and DIR/cupy (plain
directories with a .git-commit file) for a machine without network.

A case is a function registered with @case: it compiles its sources (Env.sample / Env.cupy),
makes seeded inputs, launches the way the upstream host code does (Env.launch) and returns its
outputs with a check for each (Exact, Close or its own Verdict). How the two devices' outputs are
compared is the case's device_policy: bitwise unless an output has a Bound (approximate
instructions, with the reason), is Unordered (slots handed out by atomics) or NotCompared (a
clock, the winner of a race). Each device's outputs are also checked against the reference.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from device_slicer import Slicer  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
if os.path.isdir(os.path.join(REPO, "build", "python")):
    sys.path.append(os.path.join(REPO, "build", "python"))  # the built package, unless PYTHONPATH has one
import xcuda  # noqa: E402

CUPY_TESTS = "tests/cupy_tests/core_tests/test_raw.py"
CUPY_INCLUDE = "cupy/_core/include"
SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".cpp", ".c", ".inl", ".py")

# Approximate PTX instructions and the bound the PTX ISA gives for them (f32 forms), for the
# report and for choosing a case's bound. Every other arithmetic instruction NVRTC emits for
# these kernels is exact or correctly rounded (add/sub/mul/fma/div.rn/sqrt.rn/cvt with a rounding
# mode, integer ops), so CPU and GPU must agree bitwise where none of these occurs.
APPROX_BOUNDS = {
    "ex2.approx": "ex2.approx.f32: max relative error 2^-22 (about 2 ulp) for the full range",
    "lg2.approx": "lg2.approx.f32: max absolute error 2^-22 in [0.5, 2], relative 2^-22 elsewhere",
    "sin.approx": "sin.approx.f32: max absolute error 2^-20.5 in [-100pi, 100pi]",
    "cos.approx": "cos.approx.f32: max absolute error 2^-20.5 in [-100pi, 100pi]",
    "rsqrt.approx": "rsqrt.approx.f32: max relative error 2^-22.9 (f64 form: 2^-40 approximations for Newton steps)",
    "rcp.approx": "rcp.approx.f32: max 1 ulp; rcp.approx.ftz.f64: a seed for Newton iterations",
    "sqrt.approx": "sqrt.approx.f32: max relative error 2^-23",
    "div.approx": "div.approx.f32: max 2 ulp for |divisor| in [2^-126, 2^126]",
    "div.full": "div.full.f32: max 2 ulp",
    "tanh.approx": "tanh.approx.f32: max relative error 2^-10.987",
    "ex2.approx.f16": "ex2.approx.f16: max relative error 2^-9.9",
}
PTX_FUNCTION = re.compile(r"^(?:\.(?:visible|weak|extern)\s+)*\.(?:entry|func)\b[^\n]*", re.M)
PTX_CALL = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$][\w$]*)")


def approx_instructions(ptx_texts: List[str], entries: List[str]) -> List[str]:
    """The approximate instructions in the PTX of the launched kernels (`entries`: lowered
    names) and the functions they call, not in the rest of their modules."""
    bodies: Dict[str, str] = {}
    for ptx in ptx_texts:
        heads = list(PTX_FUNCTION.finditer(ptx))
        for i, head in enumerate(heads):
            names = re.findall(r"([A-Za-z_$][\w$]*)\s*\(", head.group(0))
            if names:
                end = heads[i + 1].start() if i + 1 < len(heads) else len(ptx)
                bodies[names[-1]] = bodies.get(names[-1], "") + ptx[head.start():end]
    seen, todo, found = set(), list(entries), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in bodies:
            continue
        seen.add(name)
        found.update(m.group(0) for m in APPROX_RE.finditer(bodies[name]))
        todo.extend(PTX_CALL.findall(bodies[name]))
    return sorted(found)


APPROX_RE = re.compile(r"\b(ex2\.approx|lg2\.approx|sin\.approx|cos\.approx|rsqrt\.approx|rcp\.approx|"
                       r"sqrt\.approx|div\.approx|div\.full|tanh\.approx)(\.[\w.]+)?")


# --------------------------------------------------------------------------------------------
# Source trees: a git directory (the fetch tool's snapshot) or a plain directory (git archive)
# --------------------------------------------------------------------------------------------

class SourceTree:
    """A snapshot of an upstream repository as files on disk. A git directory is exported to a
    temporary directory first (only source files: the snapshot may lack some large blobs, which
    `git archive` would stop at), a plain directory is used in place. `commit` is the snapshot's
    commit id when it can be known: the git directory's HEAD, a `.git-commit` file in the plain
    directory (the README's export command writes one), or --samples-commit/--cupy-commit."""

    def __init__(self, path: str, label: str, commit: Optional[str] = None):
        self.label = label
        self.given = path
        self._tmp = None
        path = os.path.abspath(path)
        if _is_git_dir(path):
            git_dir = path if not os.path.isdir(os.path.join(path, ".git")) else os.path.join(path, ".git")
            self._tmp = tempfile.mkdtemp(prefix="real-kernels-%s-" % label)
            self.commit = commit or _git(git_dir, "rev-parse", "HEAD").strip()
            _export_git_sources(git_dir, self._tmp)
            self.root = self._tmp
        elif os.path.isdir(path):
            self.root = path
            marker = os.path.join(path, ".git-commit")
            self.commit = commit or (open(marker).read().strip() if os.path.isfile(marker) else None)
        else:
            raise SystemExit("%s: not a directory: %s" % (label, path))

    def path(self, rel: str) -> str:
        p = os.path.join(self.root, rel)
        if not os.path.exists(p):
            raise FileNotFoundError("%s snapshot has no %s" % (self.label, rel))
        return p

    def close(self):
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


def _is_git_dir(path: str) -> bool:
    if os.path.isdir(os.path.join(path, ".git")):
        return True  # a work tree: read its committed files, like a bare snapshot
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def _git(git_dir: str, *args: str, input: Optional[bytes] = None) -> str:
    return subprocess.run(["git", "--git-dir", git_dir] + list(args), check=True, input=input,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode("utf-8", "replace")


def _export_git_sources(git_dir: str, dest: str) -> None:
    """Writes HEAD's source files (by suffix) under dest, with one `git cat-file --batch`."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", "HEAD"], check=True,
                             stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
    wanted = []
    for entry in listing.split("\0"):
        if not entry:
            continue
        meta, name = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        # cuda-samples: its samples and their common headers; CuPy: the test file and its headers
        if kind == "blob" and name.endswith(SOURCE_SUFFIXES) and (
                name.startswith(("Samples/", "Common/", CUPY_INCLUDE + "/")) or name == CUPY_TESTS):
            wanted.append((sha, name))
    proc = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    out, _ = proc.communicate("".join(sha + "\n" for sha, _ in wanted).encode())
    pos = 0
    for sha, name in wanted:
        header_end = out.index(b"\n", pos)
        header = out[pos:header_end].split()
        pos = header_end + 1
        if len(header) < 3 or header[1] == b"missing":
            continue  # a blob the snapshot does not have
        size = int(header[2])
        data = out[pos:pos + size]
        pos += size + 1
        target = os.path.join(dest, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)


# --------------------------------------------------------------------------------------------
# Checks: how an output is compared with its reference
# --------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Exact:
    """Equal element for element (floats: the same value; NaN equals NaN)."""
    ref: Any


@dataclasses.dataclass
class Close:
    """|out - ref| <= atol + rtol * |ref|, element for element."""
    ref: Any
    rtol: float
    atol: float = 0.0


@dataclasses.dataclass
class Verdict:
    """A check the case made itself (a sortedness test, a set of values)."""
    ok: bool
    detail: str = ""
    diff: float = 0.0


@dataclasses.dataclass
class Bound:
    """How far the CPU device's output may be from the GPU's: |cpu - gpu| <= atol + rtol * |gpu|,
    with the reason (which approximate instructions, how the error propagates)."""
    rtol: float
    atol: float
    why: str


@dataclasses.dataclass
class Unordered:
    """The output's order is not defined (atomics decide it): compared as sorted multisets."""
    why: str


@dataclasses.dataclass
class NotCompared:
    """Not compared between devices (a clock, the winner of a race), with the reason."""
    why: str


def max_abs_diff(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a)
    b = np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    if a.dtype.kind == "c" or b.dtype.kind == "c":
        d = np.abs(a.astype(np.complex128) - b.astype(np.complex128))
    elif a.dtype == np.bool_ or b.dtype == np.bool_:
        d = (a != b).astype(np.float64)
    else:
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
    both_nan = np.isnan(a.astype(np.complex128)) & np.isnan(b.astype(np.complex128)) \
        if a.dtype.kind in "fc" else np.zeros(a.shape, bool)
    d = np.where(both_nan, 0.0, d)
    return float(np.nanmax(np.where(np.isnan(d), np.inf, d)))


def bitwise_equal(a: np.ndarray, b: np.ndarray) -> bool:
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def check_output(out: np.ndarray, check) -> Tuple[bool, float, str]:
    """(ok, max |difference|, detail) of one output against its reference check."""
    if isinstance(check, Verdict):
        return check.ok, check.diff, check.detail
    ref = np.asarray(check.ref)
    out = np.asarray(out)
    if out.shape != ref.shape:
        return False, float("inf"), "shape %s, expected %s" % (out.shape, ref.shape)
    diff = max_abs_diff(out, ref)
    if isinstance(check, Exact):
        if out.dtype.kind in "fc":
            bad = ~((out == ref) | (np.isnan(out) & np.isnan(ref)))
        else:
            bad = out != ref
        n_bad = int(np.count_nonzero(bad))
        if n_bad:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            return False, diff, "%d of %d elements differ; first at %s: %r, expected %r" % (
                n_bad, out.size, first, out[first].item(), ref[first].item())
        return True, diff, ""
    # Close
    o = out.astype(np.complex128 if out.dtype.kind == "c" else np.float64)
    r = ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64)
    bad = ~(np.abs(o - r) <= check.atol + check.rtol * np.abs(r))
    bad &= ~(np.isnan(o) & np.isnan(r))
    n_bad = int(np.count_nonzero(bad))
    if n_bad:
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        return False, diff, "%d of %d elements outside rtol=%g atol=%g; first at %s: %r, expected %r" % (
            n_bad, out.size, check.rtol, check.atol, first, out[first].item(), ref[first].item())
    return True, diff, ""


def compare_devices(cpu: np.ndarray, gpu: np.ndarray, policy) -> Tuple[bool, float, str]:
    """(ok, max |cpu - gpu|, detail) under the case's policy for this output."""
    cpu = np.asarray(cpu)
    gpu = np.asarray(gpu)
    if isinstance(policy, NotCompared):
        return True, 0.0, "not compared: " + policy.why
    if isinstance(policy, Unordered):
        cpu = np.sort(cpu, axis=None)
        gpu = np.sort(gpu, axis=None)
    diff = max_abs_diff(cpu, gpu)
    if bitwise_equal(cpu, gpu):
        return True, diff, ""
    if isinstance(policy, Bound):
        c = cpu.astype(np.complex128 if cpu.dtype.kind == "c" else np.float64)
        g = gpu.astype(np.complex128 if gpu.dtype.kind == "c" else np.float64)
        bad = ~(np.abs(c - g) <= policy.atol + policy.rtol * np.abs(g)) & ~(np.isnan(c) & np.isnan(g))
        n_bad = int(np.count_nonzero(bad))
        if n_bad:
            first = tuple(int(i) for i in np.argwhere(bad)[0])
            return False, diff, "%d elements outside the bound (rtol=%g atol=%g); first at %s: cpu %r gpu %r" % (
                n_bad, policy.rtol, policy.atol, first, cpu[first].item(), gpu[first].item())
        return True, diff, "within the bound (rtol=%g atol=%g), not bitwise" % (policy.rtol, policy.atol)
    if cpu.shape != gpu.shape:
        return False, diff, "shapes differ: cpu %s gpu %s" % (cpu.shape, gpu.shape)
    differs = np.ascontiguousarray(cpu).view(np.uint8).reshape(cpu.size, -1) != \
        np.ascontiguousarray(gpu).view(np.uint8).reshape(gpu.size, -1)
    bad = differs.any(axis=1).reshape(cpu.shape)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return False, diff, "%d of %d elements differ bitwise; first at %s: cpu %r gpu %r" % (
        int(np.count_nonzero(bad)), cpu.size, first, cpu[first].item(), gpu[first].item())


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------

class Skip(Exception):
    """A case that cannot run here, with the reason."""


@dataclasses.dataclass
class Case:
    name: str                 # unique, e.g. "reduce6<int,256,true>"
    source: str               # "cuda-samples:<path>" or "cupy:<path>:<variable>"
    inputs: str               # what the inputs are (sizes, distributions, launch shape)
    fn: Callable              # fn(env) -> (outputs: dict, checks: dict)
    # how the devices' outputs are compared, per output name ("*" for all); bitwise when absent
    device_policy: Dict[str, Any] = dataclasses.field(default_factory=dict)
    devices: Tuple[str, ...] = ("cpu", "gpu")   # where it may run
    note: str = ""


CASES: List[Case] = []


def case(name, source, inputs, device_policy=None, devices=("cpu", "gpu"), note=""):
    def register(fn):
        CASES.append(Case(name, source, inputs, fn, dict(device_policy or {}), tuple(devices), note))
        return fn
    return register


class Env:
    """What a case uses: compiled sources, seeded inputs, launches. One per (case, device)."""

    def __init__(self, runner: "Runner", case: Case, device: str, extra_options: Tuple[str, ...] = ()):
        self.runner = runner
        self.case = case
        self.device = device
        self.extra_options = extra_options
        self.rng = np.random.default_rng([runner.seed, zlib.crc32(case.name.encode())])
        self.kernels_run: List[str] = []
        self.entries: List[str] = []   # the launched kernels' lowered names, for approx_instructions()
        self.ptx: List[str] = []
        self.stdout = ""   # device printf output captured by capture_stdout()

    # --- compiling -----------------------------------------------------------------------
    def compile(self, source: str, **kw) -> Any:
        opts = list(kw.pop("options", []) or []) + list(self.extra_options)
        if opts:
            kw["options"] = opts
        m = xcuda.compile(source, **kw)
        self.ptx.append(m.ptx or "")
        return m

    def sample(self, *paths: str, prelude: str = "", **kw) -> Any:
        """The device code of these cuda-samples files (sliced), compiled; `prelude` goes first."""
        tree = self.runner.samples
        if tree is None:
            raise Skip("no cuda-samples snapshot (--samples)")
        files = [tree.path(p) for p in paths]
        include_dirs = [tree.path("Common")] + sorted({os.path.dirname(f) for f in files})
        slicer = Slicer(self.runner.include_ok, include_dirs)
        for attempt in range(8):
            source = prelude + "\n" + slicer.slice(files)
            try:
                return self.compile(source, include_dirs=include_dirs + list(kw.pop("include_dirs", [])), **kw)
            except xcuda.CompileError as e:
                if attempt < 7 and slicer.repair(str(e)):
                    continue
                raise

    def cupy(self, variable: str, **kw) -> Any:
        """A CUDA source string of CuPy's test_raw.py, compiled the way CuPy compiles it."""
        tree = self.runner.cupy
        if tree is None:
            raise Skip("no CuPy snapshot (--cupy)")
        source = self.runner.cupy_source(variable)
        if kw.pop("translate_cucomplex", False):
            # what cupy.RawModule(translate_cucomplex=True) does to the source
            source = re.sub(r"^\s*#\s*include\s*<\s*cuComplex\.h\s*>.*$",
                            "#include <cupy/cuComplex_bridge.h>", source, flags=re.M)
            source = "#include <cupy/complex.cuh>\n" + source
        return self.compile(source, include_dirs=[tree.path(CUPY_INCLUDE)], **kw)

    # --- inputs ----------------------------------------------------------------------------
    def uniform(self, n, lo=0.0, hi=1.0, dtype=np.float32) -> np.ndarray:
        return self.rng.uniform(lo, hi, n).astype(dtype)

    def integers(self, n, lo, hi, dtype=np.int32) -> np.ndarray:
        return self.rng.integers(lo, hi, n, dtype=np.int64).astype(dtype)

    # --- launching -------------------------------------------------------------------------
    def launch(self, kernel, grid, block, *args, shared_mem=0, cooperative=False):
        name = kernel.name + ("<%s>" % kernel.instantiation if kernel.instantiation else "")
        if name not in self.kernels_run:
            self.kernels_run.append(name)
            self.entries.append(kernel.lowered_name)
        if cooperative:
            kernel(*args, grid=grid, block=block, shared_mem=shared_mem, cooperative=True)
        else:
            kernel(*args, grid=grid, block=block, shared_mem=shared_mem)

    @contextlib.contextmanager
    def capture_stdout(self):
        """Device printf output (written to file descriptor 1 by both devices) into self.stdout."""
        sys.stdout.flush()
        saved = os.dup(1)
        with tempfile.TemporaryFile() as tf:
            os.dup2(tf.fileno(), 1)
            try:
                yield
                xcuda.synchronize()
            finally:
                sys.stdout.flush()
                os.dup2(saved, 1)
                os.close(saved)
            tf.seek(0)
            self.stdout += tf.read().decode("utf-8", "replace")


@dataclasses.dataclass
class DeviceRun:
    status: str                       # "pass", "fail", "skip"
    reason: str = ""
    outputs: Dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    ref_diff: float = 0.0             # max |output - reference| over the outputs
    details: List[str] = dataclasses.field(default_factory=list)
    kernels: List[str] = dataclasses.field(default_factory=list)
    approx: List[str] = dataclasses.field(default_factory=list)
    finding: Optional[Dict[str, Any]] = None
    seconds: float = 0.0


class Runner:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.samples = SourceTree(args.samples, "cuda-samples", args.samples_commit) if args.samples else None
        self.cupy = SourceTree(args.cupy, "cupy", args.cupy_commit) if args.cupy else None
        self._include_probe: Dict[str, bool] = {}
        self._cupy_sources: Optional[Dict[str, str]] = None

    def include_ok(self, name: str) -> bool:
        """Whether `#include <name>` compiles for the device on its own (NVRTC's and CUDA's
        headers, helper_math.h: yes; helper_cuda.h, <fstream>: no)."""
        if name not in self._include_probe:
            dirs = [self.samples.path("Common")] if self.samples else []
            try:
                xcuda.compile("#include <%s>\n" % name, include_dirs=dirs)
                self._include_probe[name] = True
            except xcuda.CompileError:
                self._include_probe[name] = False
        return self._include_probe[name]

    def cupy_source(self, variable: str) -> str:
        if self._cupy_sources is None:
            with open(self.cupy.path(CUPY_TESTS), encoding="utf-8") as f:
                tree = ast.parse(f.read())
            self._cupy_sources = {}
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                        and isinstance(node.value.value, str):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self._cupy_sources.setdefault(target.id, node.value.value)
        if variable not in self._cupy_sources:
            raise Skip("%s has no string %s" % (CUPY_TESTS, variable))
        return self._cupy_sources[variable]

    def select(self, device: str):
        xcuda.set_device("cpu" if device == "cpu" else 0)

    def run_on(self, c: Case, device: str, extra_options=()) -> DeviceRun:
        if device not in c.devices:
            return DeviceRun("skip", "not run on the %s: %s" % (device, c.note))
        env = Env(self, c, device, tuple(extra_options))
        t0 = time.perf_counter()
        run = DeviceRun("pass")
        try:
            self.select(device)
            outputs, checks = c.fn(env)
            xcuda.synchronize()
            run.outputs = {k: np.array(v, copy=True) for k, v in outputs.items()}
            for name, check in checks.items():
                if name in outputs or isinstance(check, Verdict):
                    ok, diff, detail = check_output(outputs.get(name), check)
                else:
                    ok, diff, detail = False, float("inf"), "the case returned no output " + name
                run.ref_diff = max(run.ref_diff, diff)
                if not ok:
                    run.status = "fail"
                    run.details.append("%s: %s" % (name, detail))
        except Skip as e:
            run.status, run.reason = "skip", str(e)
        except xcuda.KernelCheckError as e:
            run.status = "fail"
            run.reason = "check finding (%s): %s" % (getattr(e, "kind", "?"), _first_lines(str(e), 6))
            run.finding = {"kind": getattr(e, "kind", None), "message": str(e),
                           "report": getattr(e, "report", None), "line": getattr(e, "line", None),
                           "thread": _tuple(getattr(e, "thread", None)), "block": _tuple(getattr(e, "block", None)),
                           "parameter": getattr(e, "parameter", None)}
            _recover()
        except xcuda.CompileError as e:
            run.status, run.reason = "fail", "compile error: " + _first_error(str(e))
        except xcuda.CudaError as e:
            run.status, run.reason = "fail", "%s: %s" % (type(e).__name__, _first_lines(str(e), 6))
            _recover()
        except FileNotFoundError as e:
            run.status, run.reason = "skip", str(e)
        except Exception as e:  # a bug in the case itself: reported, the run goes on
            run.status, run.reason = "fail", "driver error: %s: %s" % (type(e).__name__, e)
            run.details.append(traceback.format_exc(limit=4))
            _recover()
        run.seconds = time.perf_counter() - t0
        run.kernels = env.kernels_run
        run.approx = approx_instructions(env.ptx, env.entries)
        if run.status == "fail" and not run.reason:
            run.reason = "wrong result: " + "; ".join(run.details)[:400]
        # the snapshot's files by their names in the repository, not where they were exported to
        for tree in (self.samples, self.cupy):
            if tree:
                prefix = tree.root.rstrip("/") + "/"
                run.reason = run.reason.replace(prefix, tree.label + ":")
                if run.finding:
                    run.finding = {k: v.replace(prefix, tree.label + ":") if isinstance(v, str) else v
                                   for k, v in run.finding.items()}
        return run


def _first_lines(text: str, n: int) -> str:
    return " | ".join(line.strip() for line in text.strip().splitlines()[:n])


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:300]
    return _first_lines(text, 2)[:300]


def _tuple(v):
    return list(v) if isinstance(v, (tuple, list)) else v


def _recover():
    try:
        xcuda.synchronize()
    except Exception:
        pass


# --------------------------------------------------------------------------------------------
# Helpers for the references
# --------------------------------------------------------------------------------------------

def block_sums(data: np.ndarray, chunk: int, blocks: int, acc=np.float64) -> np.ndarray:
    """Sum for each block of a grid-stride loop over `data` in chunks of `chunk` elements: block
    b reads chunks b, b + blocks, b + 2 * blocks, ..."""
    per_pass = chunk * blocks
    padded = np.zeros(-(-len(data) // per_pass) * per_pass, dtype=acc)
    padded[:len(data)] = data
    return padded.reshape(-1, blocks, chunk).sum(axis=(0, 2))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def sorted_check(keys: np.ndarray, vals: np.ndarray, src_keys: np.ndarray, ascending=True) -> Verdict:
    """The sample's validateSortedKeys/Values: keys sorted, a permutation of the source, and each
    value the index of its key in the source."""
    k = keys if ascending else keys[::-1]
    if np.any(k[1:] < k[:-1]):
        i = int(np.argmax(k[1:] < k[:-1]))
        return Verdict(False, "keys not sorted at %d" % i)
    if not np.array_equal(np.sort(keys), np.sort(src_keys)):
        return Verdict(False, "keys are not a permutation of the input")
    if vals is not None and not np.array_equal(src_keys[vals.astype(np.int64) % len(src_keys)], keys):
        return Verdict(False, "values do not point at their keys")
    return Verdict(True)


# ============================================================================================
# cuda-samples: 0_Introduction
# ============================================================================================

INTRO = "Samples/0_Introduction/"
CONCEPTS = "Samples/2_Concepts_and_Techniques/"
FEATURES = "Samples/3_CUDA_Features/"
DOMAIN = "Samples/5_Domain_Specific/"
PERF = "Samples/6_Performance/"


@case("vectorAdd", "cuda-samples:" + INTRO + "vectorAdd/vectorAdd.cu", "n=50000 float32 U[0,1), 196x256")
def _vector_add(env):
    m = env.sample(INTRO + "vectorAdd/vectorAdd.cu")
    n = 50000
    a, b = env.uniform(n), env.uniform(n)
    c = np.zeros(n, np.float32)
    env.launch(m.kernels["vectorAdd"], ceil_div(n, 256), 256, a, b, c, n)
    return {"C": c}, {"C": Exact(a + b)}


@case("vectorAdd (nvrtc)", "cuda-samples:" + INTRO + "vectorAdd_nvrtc/vectorAdd_kernel.cu",
      "n=50000 float32 U[-1,1), 196x256")
def _vector_add_nvrtc(env):
    m = env.sample(INTRO + "vectorAdd_nvrtc/vectorAdd_kernel.cu")
    n = 50000
    a, b = env.uniform(n, -1, 1), env.uniform(n, -1, 1)
    c = np.zeros(n, np.float32)
    env.launch(m.kernels["vectorAdd"], ceil_div(n, 256), 256, a, b, c, n)
    return {"C": c}, {"C": Exact(a + b)}


def _matrix_mul(env, kernel, bs, shape_blocks=(4, 3, 5)):
    """C = A x B as the sample launches it: grid (wB/bs, hA/bs), block (bs, bs). The sample's
    check is |C - ref| / |ref| < 1e-6 with constant inputs; with random inputs the float32
    accumulation order differs from numpy's, so the bound is relative 1e-5 of the row's scale."""
    hA, wA, wB = (k * bs for k in shape_blocks)
    A = env.uniform(hA * wA, -1, 1).reshape(hA, wA)
    B = env.uniform(wA * wB, -1, 1).reshape(wA, wB)
    C = np.zeros((hA, wB), np.float32)
    env.launch(kernel, (wB // bs, hA // bs), (bs, bs), C, A, B, wA, wB)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    scale = np.abs(A).astype(np.float64) @ np.abs(B).astype(np.float64)
    err = np.abs(C - ref) / scale
    return {"C": C}, {"C": Verdict(bool(np.all(err < 1e-5)), "max error / (|A||B|) = %.3g" % err.max(),
                                   float(np.abs(C - ref).max()))}


for _bs in (16, 32):
    @case("MatrixMulCUDA<%d>" % _bs, "cuda-samples:" + INTRO + "matrixMul/matrixMul.cu",
          "A %dx%d, B %dx%d float32 U[-1,1), block %dx%d" % (4 * _bs, 3 * _bs, 3 * _bs, 5 * _bs, _bs, _bs))
    def _mm(env, bs=_bs):
        m = env.sample(INTRO + "matrixMul/matrixMul.cu", instantiate="MatrixMulCUDA<%d>" % bs)
        return _matrix_mul(env, m.kernels["MatrixMulCUDA"][str(bs)], bs)


@case("matrixMulCUDA_block16/32 (nvrtc)", "cuda-samples:" + INTRO + "matrixMul_nvrtc/matrixMul_kernel.cu",
      "A 64x48 / 128x96, B 48x80 / 96x160 float32 U[-1,1)")
def _mm_nvrtc(env):
    m = env.sample(INTRO + "matrixMul_nvrtc/matrixMul_kernel.cu")
    out16, chk16 = _matrix_mul(env, m.kernels["matrixMulCUDA_block16"], 16)
    out32, chk32 = _matrix_mul(env, m.kernels["matrixMulCUDA_block32"], 32)
    return {"C16": out16["C"], "C32": out32["C"]}, {"C16": chk16["C"], "C32": chk32["C"]}


@case("matrixMul_bs*_64bit (matrixMulDrv)", "cuda-samples:" + INTRO + "matrixMulDrv/matrixMul_kernel.cu",
      "A (4bs)x(3bs), B (3bs)x(5bs) float32 U[-1,1), block bs x bs, bs = 8, 16, 32")
def _mm_drv(env):
    m = env.sample(INTRO + "matrixMulDrv/matrixMul_kernel.cu")
    names = sorted(k for k in m.kernels if re.search(r"_bs\d+_", k))
    if not names:
        raise Skip("no matrixMul_bs<N>_* kernels in matrixMulDrv/matrixMul_kernel.cu")
    outputs, checks = {}, {}
    for name in names:
        bs = int(re.search(r"_bs(\d+)_", name).group(1))
        o, c = _matrix_mul(env, m.kernels[name], bs)
        outputs[name], checks[name] = o["C"], c["C"]
    return outputs, checks


ATOMIC_LEN = 64 * 256


def _atomic_gold(len_):
    """simpleAtomicIntrinsics_cpu.cpp's computeGold, as expected values (None: only a range)."""
    inc = 0
    for _ in range(len_):
        inc = 0 if inc >= 17 else inc + 1
    dec = 0
    for _ in range(len_):
        dec = 137 if (dec == 0 or dec > 137) else dec - 1
    and_ = 0xff
    xor = 0xff
    for i in range(len_):
        and_ &= 2 * i + 7
        xor ^= i
    or_ = 0
    for i in range(len_):
        or_ |= (1 << (i % 32))   # 1 << i on a 32-bit int: the shift count is taken mod 32 by the GPU
    return {0: 10 * len_, 1: -10 * len_, 3: len_ - 1, 4: 0, 5: inc, 6: dec, 8: and_, 9: or_ - (1 << 32)
            if or_ >= 1 << 31 else or_, 10: xor}


@case("testKernel (simpleAtomicIntrinsics)",
      "cuda-samples:" + INTRO + "simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh",
      "64x256 threads, 11 counters (sample's initial values)",
      device_policy={"exch_cas": NotCompared("atomicExch/atomicCAS keep the value of whichever thread wins")})
def _atomics(env):
    m = env.sample(INTRO + "simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh")
    data = np.zeros(11, np.int32)
    data[8] = data[10] = 0xff
    env.launch(m.kernels["testKernel"], 64, 256, data)
    gold = _atomic_gold(ATOMIC_LEN)
    det = np.array([data[i] for i in sorted(gold)], np.int32)
    ref = np.array([gold[i] for i in sorted(gold)], np.int64).astype(np.int32)
    exch_cas = data[[2, 7]].copy()
    ok = bool(0 <= exch_cas[0] < ATOMIC_LEN and 0 <= exch_cas[1] < ATOMIC_LEN)
    return {"counters": det, "exch_cas": exch_cas}, {
        "counters": Exact(ref), "exch_cas": Verdict(ok, "atomicExch/CAS result %s not a thread id" % exch_cas)}


def _inc_dec_gold(ops: int) -> Tuple[int, int]:
    """atomicInc(limit 17) and atomicDec(limit 137) applied `ops` times from 0."""
    inc = dec = 0
    for _ in range(ops):
        inc = 0 if inc >= 17 else inc + 1
        dec = 137 if (dec == 0 or dec > 137) else dec - 1
    return inc, dec


@case("atomicKernel (systemWideAtomics)", "cuda-samples:" + INTRO + "systemWideAtomics/systemWideAtomics.cu",
      "64x256 threads x LOOP_NUM=50 system-scope atomics on 10 counters (device memory; the sample's "
      "host thread does not add its share here)",
      device_policy={"exch_cas": NotCompared("atomicExch/atomicCAS keep the value of whichever thread wins")})
def _system_atomics(env):
    m = env.sample(INTRO + "systemWideAtomics/systemWideAtomics.cu")
    threads, blocks, loops = 256, 64, 50
    n = threads * blocks
    data = np.zeros(10, np.int32)
    data[7] = data[9] = 0xff
    env.launch(m.kernels["atomicKernel"], blocks, threads, data)
    inc, dec = _inc_dec_gold(n * loops)
    and_ = 0xff
    for i in range(n):
        and_ &= 2 * i + 7
    # verify(): add, max, min, inc, dec, and, or, xor (xor of every tid an even number of times)
    ref = np.array([10 * n * loops, n - 1, 0, inc, dec, and_, -1, 0xff], np.int64).astype(np.int32)
    det = data[[0, 2, 3, 4, 5, 7, 8, 9]].copy()
    exch_cas = data[[1, 6]].copy()
    ok = bool(0 <= exch_cas[0] < n and 0 <= exch_cas[1] < n)
    return {"counters": det, "exch_cas": exch_cas}, {
        "counters": Exact(ref), "exch_cas": Verdict(ok, "atomicExch/CAS result %s not a thread id" % exch_cas)}


@case("VoteAnyKernel1/VoteAllKernel2/VoteAnyKernel3", "cuda-samples:" + INTRO + "simpleVoteIntrinsics/simpleVote_kernel.cuh",
      "128 threads, the sample's vote pattern; 96 threads for kernel 3")
def _votes(env):
    m = env.sample(INTRO + "simpleVoteIntrinsics/simpleVote_kernel.cuh")
    size, warp = 4 * 32, 32
    pattern = np.zeros(size, np.uint32)      # genVoteTestPattern
    for i in range(2 * size // 8, 4 * size // 8):
        pattern[i] = i if i & 1 else 0
    for i in range(2 * size // 4, 3 * size // 4):
        pattern[i] = 0 if i & 1 else i
    pattern[3 * size // 4:] = 0xffffffff
    any_ = np.zeros(size, np.uint32)
    all_ = np.zeros(size, np.uint32)
    env.launch(m.kernels["VoteAnyKernel1"], 1, size, pattern, any_, size)
    env.launch(m.kernels["VoteAllKernel2"], 1, size, pattern, all_, size)
    info = np.zeros(warp * 3 * 3, np.bool_)
    env.launch(m.kernels["VoteAnyKernel3"], 1, warp * 3, info, warp)
    warps = pattern.reshape(-1, warp) != 0
    ref_any = np.repeat(warps.any(axis=1), warp).astype(np.uint32)
    ref_all = np.repeat(warps.all(axis=1), warp).astype(np.uint32)
    tx = np.arange(warp * 3)
    cond = tx >= warp * 3 // 2
    ref_info = np.zeros((warp * 3, 3), np.bool_)
    ref_info[:, 0] = np.repeat(cond.reshape(-1, warp).any(axis=1), warp)
    ref_info[:, 1] = cond
    ref_info[:, 2] = np.repeat(cond.reshape(-1, warp).all(axis=1), warp)
    return {"any": any_, "all": all_, "info": info}, {
        "any": Exact(ref_any), "all": Exact(ref_all), "info": Exact(ref_info.reshape(-1))}


def _timed_reduction(env, path):
    """timedReduction of the clock samples: a block minimum whose clock() timers are reported."""
    m = env.sample(path)
    blocks, threads = 64, 256
    x = env.uniform(threads * 2)
    out = np.zeros(blocks, np.float32)
    timer = np.zeros(blocks * 2, np.int64)   # clock_t is long on Linux
    env.launch(m.kernels["timedReduction"], blocks, threads, x, out, timer, shared_mem=4 * 2 * threads)
    elapsed = timer[blocks:] - timer[:blocks]
    # the sample only prints the average of the timers: they are reported, not checked
    return {"output": out, "timer": elapsed}, {"output": Exact(np.full(blocks, x.min(), np.float32))}


@case("timedReduction (clock)", "cuda-samples:" + INTRO + "clock/clock.cu",
      "64 blocks x 256 threads, input U[0,1) x 512",
      device_policy={"timer": NotCompared("clock() values")})
def _clock(env):
    return _timed_reduction(env, INTRO + "clock/clock.cu")


@case("clock_block / timedReduction (clock_nvrtc)", "cuda-samples:" + INTRO + "clock_nvrtc/clock_kernel.cu",
      "64 blocks x 256 threads, input U[0,1) x 512",
      device_policy={"timer": NotCompared("clock() values")})
def _clock_nvrtc(env):
    return _timed_reduction(env, INTRO + "clock_nvrtc/clock_kernel.cu")


@case("cgkernel (simpleCooperativeGroups)", "cuda-samples:" + INTRO + "simpleCooperativeGroups/simpleCooperativeGroups.cu",
      "1 block x 64 threads; the kernel printf's its sums, checked from the output")
def _cg_kernel(env):
    m = env.sample(INTRO + "simpleCooperativeGroups/simpleCooperativeGroups.cu")
    with env.capture_stdout():
        env.launch(m.kernels["cgkernel"], 1, 64, shared_mem=64 * 4)
    sums = [int(v) for v in re.findall(r"is (-?\d+)\s*\(expected", env.stdout)]
    expected = sorted([63 * 64 // 2] + [15 * 16 // 2] * 4)
    got = sorted(sums)
    return {"sums": np.array(got, np.int64)}, {
        "sums": Verdict(got == expected, "printed sums %s, expected %s; output: %r" % (got, expected, env.stdout[:300]))}


@case("testKernel<float>/<int> (simpleTemplates)", "cuda-samples:" + INTRO + "simpleTemplates/simpleTemplates.cu",
      "1 block x 64 threads, data 0..63 (the sample's)")
def _simple_templates(env):
    src = INTRO + "simpleTemplates/simpleTemplates.cu"
    m = env.sample(src, instantiate=["testKernel<float>", "testKernel<int>"])
    outputs, checks = {}, {}
    for t, dt in (("float", np.float32), ("int", np.int32)):
        n = 64
        x = np.arange(n).astype(dt)
        out = np.zeros(n, dt)
        env.launch(m.kernels["testKernel"][t], 1, n, x, out, shared_mem=n * 4)
        outputs[t], checks[t] = out, Exact((x * n).astype(dt))   # computeGold: data[i] * len
    return outputs, checks


@case("testKernel (template)", "cuda-samples:" + INTRO + "template/template.cu", "1 block x 32 threads, data 0..31")
def _template(env):
    m = env.sample(INTRO + "template/template.cu")
    n = 32
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    env.launch(m.kernels["testKernel"], 1, n, x, out, shared_mem=n * 4)
    return {"out": out}, {"out": Exact(x * n)}


# ============================================================================================
# cuda-samples: 2_Concepts_and_Techniques/reduction (reduce0..reduce7, cg_reduce, multi_warp)
# ============================================================================================

REDUCTION = CONCEPTS + "reduction/reduction_kernel.cu"


def _reduction_case(kernel: str, T: str, threads: int, n: int, max_blocks: int = 64):
    """One launch of reduction_kernel.cu's `reduce<T>(size, threads, blocks, whichKernel)` as
    reduction.cpp sizes it (getNumBlocksAndThreads), checked per block: block b's partial sum is
    the sum of the elements its grid-stride loop reads (the sample sums the partials on the host
    and compares the total; checking each partial is stricter). Integers: exact; float: within
    1e-5 relative of a float64 sum (the tree order differs from numpy's)."""
    which = {"reduce0": 0, "reduce1": 1, "reduce2": 2, "reduce3": 3, "reduce4": 4, "reduce5": 5,
             "reduce6": 6, "reduce7": 7, "cg_reduce": 8, "multi_warp_cg_reduce": 9}[kernel]
    pow2 = n & (n - 1) == 0
    if which < 3:
        blocks = ceil_div(n, threads)
    else:
        blocks = ceil_div(n, threads * 2)
    if which >= 6:
        blocks = min(max_blocks, blocks)
    size_t = 4
    smem = 2 * threads * size_t if threads <= 32 else threads * size_t
    if which == 7:
        smem = ((threads // 32) + 1) * size_t
    if which == 9:
        smem = 2 * size_t
    targs = {0: T, 1: T, 2: T, 3: T, 4: "%s, %d" % (T, threads), 5: "%s, %d" % (T, threads),
             6: "%s, %d, %s" % (T, threads, "true" if pow2 else "false"),
             7: "%s, %d, %s" % (T, threads, "true" if pow2 else "false"), 8: T,
             9: "%s, %d, %d" % (T, threads, threads // 2)}[which]
    # the elements each block reads: a chunk per pass of its grid-stride loop
    if which < 3:
        chunk = threads
    elif which < 6:
        chunk = 2 * threads
    elif which in (6, 7, 9):
        chunk = 2 * threads if pow2 else threads
    else:  # cg_reduce: one element per thread per pass
        chunk = threads
    name = "%s<%s>" % (kernel, targs.replace(", ", ","))

    @case(name, "cuda-samples:" + REDUCTION,
          "n=%d %s, %d blocks x %d threads, %d B shared" % (
              n, "int32 in [0,256)" if T == "int" else "float32 U[0,1)", blocks, threads, smem))
    def _run(env):
        m = env.sample(REDUCTION, instantiate="%s<%s>" % (kernel, targs))
        k = m.kernels[kernel][targs]
        if T == "int":
            data = env.integers(n, 0, 256, np.int32)   # the sample: rand() & 0xFF
        else:
            data = env.uniform(n)
        out = np.zeros(blocks, data.dtype)
        env.launch(k, blocks, threads, data, out, n, shared_mem=smem)
        ref = block_sums(data, chunk, blocks, np.int64 if T == "int" else np.float64)
        if T == "int":
            return {"partials": out}, {"partials": Exact(ref.astype(np.int32))}
        return {"partials": out}, {"partials": Close(ref, rtol=1e-5, atol=1e-5)}
    return _run


N_POW2, N_ODD = 1 << 16, 50000
for _k, _t in [("reduce0", 256), ("reduce1", 128), ("reduce2", 512), ("reduce3", 256)]:
    for _T in ("int", "float"):
        _reduction_case(_k, _T, _t, N_POW2)
for _k in ("reduce4", "reduce5"):
    for _T, _t in (("int", 64), ("float", 256), ("int", 512)):
        _reduction_case(_k, _T, _t, N_POW2)
for _T, _t, _n in (("int", 256, N_POW2), ("float", 128, N_POW2), ("int", 512, N_ODD), ("float", 64, N_ODD)):
    _reduction_case("reduce6", _T, _t, _n)
for _T, _t, _n in (("int", 256, N_POW2), ("float", 512, N_ODD), ("int", 32, N_ODD)):
    _reduction_case("reduce7", _T, _t, _n)
for _T, _t in (("int", 256), ("float", 128)):
    _reduction_case("cg_reduce", _T, _t, N_ODD)
for _T, _t, _n in (("int", 256, N_POW2), ("float", 128, N_ODD)):
    _reduction_case("multi_warp_cg_reduce", _T, _t, _n)



# ============================================================================================
# cuda-samples: more of 2_Concepts_and_Techniques and 6_Performance
# ============================================================================================

# Our glue for host code that does pointer arithmetic or device-to-device copies (xcuda passes
# whole arrays): a byte copy between device arrays at offsets, like cudaMemcpy(dst + a, src + b).
GLUE = r"""
extern "C" __global__ void real_kernels_copy(void *dst, unsigned long long dst_off, const void *src,
                                            unsigned long long src_off, unsigned long long n) {
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x)
        ((unsigned char *)dst)[dst_off + i] = ((const unsigned char *)src)[src_off + i];
}
"""


def device_copy(env, dst, dst_off_bytes, src, src_off_bytes, nbytes):
    k = xcuda.compile(GLUE).kernels["real_kernels_copy"]   # not env.compile: not part of the case's PTX
    if nbytes:
        k(dst, dst_off_bytes, src, src_off_bytes, nbytes, grid=min(ceil_div(nbytes, 256), 1024), block=256)


TRANSPOSE = PERF + "transpose/transpose.cu"
TILE, BLOCK_ROWS = 32, 16


def _tile_view(a: np.ndarray) -> np.ndarray:
    """(tiles_y, tiles_x, TILE, TILE) view of a matrix."""
    h, w = a.shape
    return a.reshape(h // TILE, TILE, w // TILE, TILE).transpose(0, 2, 1, 3)


def _transpose_reference(kernel: str, a: np.ndarray) -> np.ndarray:
    if kernel in ("copy", "copySharedMem"):
        return a.copy()
    if kernel == "transposeFineGrained":
        # each tile transposed in place (the sample: "not full transposes", no check there)
        t = _tile_view(a).transpose(0, 1, 3, 2)
        return t.transpose(0, 2, 1, 3).reshape(a.shape)
    if kernel == "transposeCoarseGrained":
        # tiles moved to their transposed places, each tile's contents as they were
        t = _tile_view(a).transpose(1, 0, 2, 3)
        return t.transpose(0, 2, 1, 3).reshape(a.shape[1], a.shape[0])
    return a.T.copy()


for _k in ("copy", "copySharedMem", "transposeNaive", "transposeCoalesced", "transposeNoBankConflicts",
           "transposeDiagonal", "transposeFineGrained", "transposeCoarseGrained"):
    # the sample runs square matrices; fine- and coarse-grained index the output with the
    # input's width, copySharedMem guards its stores with the transposed bounds, and diagonal
    # reordering assumes square: those get a square matrix, the others a rectangular one
    _shape = (256, 256) if "Grained" in _k or _k in ("transposeDiagonal", "copySharedMem") else (128, 192)

    @case(_k + " (transpose)", "cuda-samples:" + TRANSPOSE,
          "%dx%d float32 U[0,1), grid %dx%d of %dx%d threads" % (
              _shape[0], _shape[1], _shape[1] // TILE, _shape[0] // TILE, TILE, BLOCK_ROWS))
    def _transpose(env, kernel=_k, shape=_shape):
        m = env.sample(TRANSPOSE)
        h, w = shape
        a = env.uniform(h * w).reshape(h, w)
        ref = _transpose_reference(kernel, a)
        out = np.zeros(ref.shape, np.float32)
        env.launch(m.kernels[kernel], (w // TILE, h // TILE), (TILE, BLOCK_ROWS), out, a, w, h)
        return {"out": out}, {"out": Exact(ref)}


HISTOGRAM = CONCEPTS + "histogram/"


@case("histogram64Kernel + mergeHistogram64Kernel", "cuda-samples:" + HISTOGRAM + "histogram64.cu",
      "1 MiB of random bytes, the sample's launch shape")
def _histogram64(env):
    m = env.sample(HISTOGRAM + "histogram64.cu")
    nbytes = 1 << 20
    data = env.integers(nbytes, 0, 256, np.uint8)
    threadblock = 64
    count = ceil_div(nbytes, threadblock * (255 - 255 % 16))   # histogram64(): iDivUp(byteCount, 64 * iSnapDown(255, 16))
    partial = xcuda.zeros(count * 64, "uint32")
    hist = np.zeros(64, np.uint32)
    env.launch(m.kernels["histogram64Kernel"], count, threadblock, partial, data.view(np.uint32), nbytes // 16)
    env.launch(m.kernels["mergeHistogram64Kernel"], 64, 256, hist, partial, count)
    ref = np.bincount(data >> 2, minlength=64).astype(np.uint32)     # histogram64CPU: data >> 2
    return {"histogram": hist}, {"histogram": Exact(ref)}


@case("histogram256Kernel + mergeHistogram256Kernel", "cuda-samples:" + HISTOGRAM + "histogram256.cu",
      "1 MiB of random bytes, 240 partial histograms of 192 threads")
def _histogram256(env):
    m = env.sample(HISTOGRAM + "histogram256.cu")
    nbytes = 1 << 20
    data = env.integers(nbytes, 0, 256, np.uint8)
    partial = xcuda.zeros(240 * 256, "uint32")
    hist = np.zeros(256, np.uint32)
    env.launch(m.kernels["histogram256Kernel"], 240, 192, partial, data.view(np.uint32), nbytes // 4)
    env.launch(m.kernels["mergeHistogram256Kernel"], 256, 256, hist, partial, 240)
    return {"histogram": hist}, {"histogram": Exact(np.bincount(data, minlength=256).astype(np.uint32))}


SCAN = CONCEPTS + "scan/scan.cu"


def _scan_reference(src: np.ndarray, array_length: int) -> np.ndarray:
    """scanExclusiveHost: an exclusive prefix sum of each array of the batch (uint32 wraps)."""
    a = src.reshape(-1, array_length).astype(np.uint64)
    return (np.cumsum(a, axis=1) - a).astype(np.uint32).reshape(-1)


@case("scanExclusiveShared (short arrays)", "cuda-samples:" + SCAN,
      "N=65536 uint32 in [0,1024) as arrays of 4, 64 and 1024 elements; 256 threads")
def _scan_short(env):
    m = env.sample(SCAN)
    n = 1 << 16
    src = env.integers(n, 0, 1024, np.uint32)
    outputs, checks = {}, {}
    for length in (4, 64, 1024):
        dst = np.zeros(n, np.uint32)
        env.launch(m.kernels["scanExclusiveShared"], n // 1024, 256, dst, src, length)
        outputs["len%d" % length], checks["len%d" % length] = dst, Exact(_scan_reference(src, length))
    return outputs, checks


@case("scanExclusiveShared + scanExclusiveShared2 + uniformUpdate (large)", "cuda-samples:" + SCAN,
      "N=262144 uint32 in [0,1024) as arrays of 2048 and 262144 elements; 256 threads")
def _scan_large(env):
    m = env.sample(SCAN)
    n = 1 << 18
    src_host = env.integers(n, 0, 1024, np.uint32)
    outputs, checks = {}, {}
    for length in (2048, n):
        src = xcuda.to_device(src_host)
        dst = xcuda.zeros(n, "uint32")
        buf = xcuda.zeros(n // 1024, "uint32")
        env.launch(m.kernels["scanExclusiveShared"], n // 1024, 256, dst, src, 1024)
        blocks2 = ceil_div(n // 1024, 256)
        env.launch(m.kernels["scanExclusiveShared2"], blocks2, 256, buf, dst, src, n // 1024, length // 1024)
        env.launch(m.kernels["uniformUpdate"], n // 1024, 256, dst, buf)
        outputs["len%d" % length] = dst.get()
        checks["len%d" % length] = Exact(_scan_reference(src_host, length))
    return outputs, checks


SHFL_SCAN = CONCEPTS + "shfl_scan/shfl_scan.cu"


@case("shfl_scan_test + uniform_add", "cuda-samples:" + SHFL_SCAN,
      "65536 int32 in [0,10) (the sample: rand() % 10), 256 blocks x 256 threads, then 1 x 256 for the partials")
def _shfl_scan(env):
    m = env.sample(SHFL_SCAN)
    n, bs = 65536, 256
    data_host = env.integers(n, 0, 10, np.int32)
    data = xcuda.to_device(data_host)
    partials = xcuda.zeros(n // bs, "int32")
    scan, add = m.kernels["shfl_scan_test"], m.kernels["uniform_add"]
    shmem = bs // 32 * 4
    env.launch(scan, n // bs, bs, data, 32, partials, shared_mem=shmem)
    env.launch(scan, 1, min(n // bs, bs), partials, 32, None, shared_mem=shmem)
    # uniform_add<<<gridSize - 1, blockSize>>>(d_data + blockSize, ...): on a copy of the tail
    tail = xcuda.zeros(n - bs, "int32")
    device_copy(env, tail, 0, data, bs * 4, (n - bs) * 4)
    env.launch(add, n // bs - 1, bs, tail, partials, n)
    device_copy(env, data, bs * 4, tail, 0, (n - bs) * 4)
    return {"scan": data.get()}, {"scan": Exact(np.cumsum(data_host).astype(np.int32))}


@case("shfl_intimage_rows + shfl_vertical_shfl (integral image)",
      "cuda-samples:" + CONCEPTS + "shfl_scan/shfl_integral_image.cuh",
      "1920x1080 bytes in [0,4) (the kernels hard-code that size), 1080 x 120 threads, then 60 x (32, 8)")
def _integral_image(env):
    m = env.sample(CONCEPTS + "shfl_scan/shfl_integral_image.cuh")
    w, h = 1920, 1080
    img = env.integers(w * h, 0, 4, np.uint8)
    integral = xcuda.zeros(w * h, "uint32")
    rows_kernel, grid, block = m.kernels["shfl_intimage_rows"], h, ceil_div(w, 16)
    checks = {}
    if xcuda.get_device() == "cpu" and xcuda.cpu_checks():
        # A true finding in the sample: warp 0 reads sums[lane] for every lane, but in a block of
        # 120 threads the fourth warp (24 lanes) has no lane of rank 31 to write sums[3], so lane 3
        # reads a word no thread wrote (its value reaches no output). The CPU device must say so;
        # the results are then compared from a run with the checks off.
        try:
            env.launch(rows_kernel, grid, block, img.view(np.uint32), integral)
            xcuda.synchronize()
            found = None
        except xcuda.KernelCheckError as e:
            found = e
            _recover()
        where = (tuple(getattr(found, "thread", None) or ()), tuple(getattr(found, "block", None) or ()))
        checks["sums[3] unwritten"] = Verdict(
            getattr(found, "kind", None) == "uninitialised_read" and where[0] == (3, 0, 0),
            "finding %r at thread %s block %s" % (getattr(found, "kind", None), where[0], where[1]))
        xcuda.cpu_checks(False)
        try:
            env.launch(rows_kernel, grid, block, img.view(np.uint32), integral)
            xcuda.synchronize()
        finally:
            xcuda.cpu_checks(True)
    else:
        env.launch(rows_kernel, grid, block, img.view(np.uint32), integral)
    rows = integral.get()
    env.launch(m.kernels["shfl_vertical_shfl"], w // 32, (32, 8), integral, w, h)
    ref_rows = np.cumsum(img.reshape(h, w).astype(np.uint32), axis=1, dtype=np.uint32)
    ref = np.cumsum(ref_rows, axis=0, dtype=np.uint32)
    checks.update(rows=Exact(ref_rows.reshape(-1)), integral=Exact(ref.reshape(-1)))
    return {"rows": rows, "integral": integral.get()}, checks


THREADFENCE = CONCEPTS + "threadFenceReduction/threadFenceReduction_kernel.cuh"


for _single, _threads, _n in ((False, 128, 1 << 16), (True, 128, 1 << 16), (True, 256, 50000)):
    _pow2 = _n & (_n - 1) == 0
    _blocks = min(64, ceil_div(_n, _threads * 2))
    _kname = "reduceSinglePass" if _single else "reduceMultiPass"

    @case("%s<%d,%s>" % (_kname, _threads, "true" if _pow2 else "false"), "cuda-samples:" + THREADFENCE,
          "n=%d float32 U[0,1), %d blocks x %d threads%s" % (
              _n, _blocks, _threads, "; __threadfence + atomicInc retirement, the last block sums" if _single else ""))
    def _fence(env, single=_single, threads=_threads, n=_n, pow2=_pow2, blocks=_blocks, kname=_kname):
        m = env.sample(THREADFENCE, instantiate="%s<%d, %s>" % (kname, threads, "true" if pow2 else "false"))
        k = m.kernels[kname]["%d, %s" % (threads, "true" if pow2 else "false")]
        data = env.uniform(n)
        out = np.zeros(blocks, np.float32)
        env.launch(k, blocks, threads, data, out, n, shared_mem=threads * 4)
        partial = block_sums(data, 2 * threads, blocks)
        checks = {}
        if single:
            # the last block to retire writes the total over the partials into out[0]
            checks["total"] = Close(np.array([data.astype(np.float64).sum()]), rtol=1e-5)
            checks["partials"] = Close(partial[1:], rtol=1e-5, atol=1e-5)
            counter = m.get_global("retirementCount").get()
            checks["retirementCount"] = Exact(np.array(0, np.uint32))
            return {"total": out[:1], "partials": out[1:], "retirementCount": counter}, checks
        return {"partials": out}, {"partials": Close(partial, rtol=1e-5, atol=1e-5)}


MULTI_BLOCK_CG = CONCEPTS + "reductionMultiBlockCG/reductionMultiBlockCG.cu"


def _multi_block_cg_sum(env, **launch):
    """reduceSinglePassMultiBlockCG's sum of 2^16 floats, launched with `launch`'s options."""
    m = env.sample(MULTI_BLOCK_CG)
    n, threads, blocks = 1 << 16, 128, 16
    data = env.uniform(n)
    out = np.zeros(blocks, np.float32)
    env.launch(m.kernels["reduceSinglePassMultiBlockCG"], blocks, threads, data, out, n, shared_mem=threads * 8,
               **launch)
    return {"total": out[:1]}, {"total": Close(np.array([data.astype(np.float64).sum()]), rtol=1e-5)}


@case("reduceSinglePassMultiBlockCG (cooperative launch)", "cuda-samples:" + MULTI_BLOCK_CG,
      "n=2^16 float32 U[0,1), 16 blocks x 128 threads, cooperative, grid.sync()")
def _multi_block_cg(env):
    return _multi_block_cg_sum(env, cooperative=True)


@case("reduceSinglePassMultiBlockCG (plain launch)", "cuda-samples:" + MULTI_BLOCK_CG,
      "n=2^16 float32 U[0,1), 16 blocks x 128 threads, launched without cooperative=True: the driver still "
      "gives a kernel that calls grid.sync() its grid workspace")
def _multi_block_cg_plain(env):
    return _multi_block_cg_sum(env)


@case("scalarProdGPU", "cuda-samples:" + CONCEPTS + "scalarProd/scalarProd_kernel.cuh",
      "64 vectors x 4096 float32 U[0,1), 32 blocks x 256 threads (two vectors per block)")
def _scalar_prod(env):
    m = env.sample(CONCEPTS + "scalarProd/scalarProd_kernel.cuh")
    vectors, elements = 64, 4096
    a = env.uniform(vectors * elements)
    b = env.uniform(vectors * elements)
    c = np.zeros(vectors, np.float32)
    env.launch(m.kernels["scalarProdGPU"], 32, 256, c, a, b, vectors, elements)
    ref = (a.astype(np.float64) * b).reshape(vectors, elements).sum(axis=1)
    return {"C": c}, {"C": Close(ref, rtol=1e-6)}   # the sample: L1 relative error < 1e-6



SORTING = CONCEPTS + "sortingNetworks/"


def _sort_inputs(env, n):
    keys = env.integers(n, 0, 65536, np.uint32)     # main.cpp: rand() % numValues, numValues = 65536
    vals = np.arange(n, dtype=np.uint32)            # fillValues: 0..N-1
    return keys, vals


for _dir in (1, 0):
    @case("bitonicSortShared (arrays of 1024, dir=%d)" % _dir, "cuda-samples:" + SORTING + "bitonicSort.cu",
          "16 arrays of 1024 uint32 keys in [0,65536) with their indices, 512 threads a block")
    def _bitonic_short(env, direction=_dir):
        m = env.sample(SORTING + "bitonicSort.cu")
        n, length = 16384, 1024
        keys, vals = _sort_inputs(env, n)
        dk, dv = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
        env.launch(m.kernels["bitonicSortShared"], n // 1024, 512, dk, dv, keys, vals, length, direction)
        verdicts = [sorted_check(dk[i:i + length], dv[i:i + length] - i, keys[i:i + length], bool(direction))
                    for i in range(0, n, length)]
        bad = [v for v in verdicts if not v.ok]
        return {"keys": dk, "vals": dv}, {"keys": Verdict(not bad, bad[0].detail if bad else "")}


@case("bitonicSortShared1 + bitonicMergeGlobal + bitonicMergeShared (one array of 16384)",
      "cuda-samples:" + SORTING + "bitonicSort.cu", "16384 uint32 keys in [0,65536) with their indices, ascending")
def _bitonic_long(env):
    m = env.sample(SORTING + "bitonicSort.cu")
    n = 16384
    keys, vals = _sort_inputs(env, n)
    dk, dv = xcuda.zeros(n, "uint32"), xcuda.zeros(n, "uint32")
    block_count, threads = n // 1024, 512
    env.launch(m.kernels["bitonicSortShared1"], block_count, threads, dk, dv, keys, vals)
    size = 2 * 1024
    while size <= n:                       # bitonicSort(): arrayLength > SHARED_SIZE_LIMIT
        stride = size // 2
        while stride > 0:
            if stride >= 1024:
                env.launch(m.kernels["bitonicMergeGlobal"], n // 512, 256, dk, dv, dk, dv, n, size, stride, 1)
            else:
                env.launch(m.kernels["bitonicMergeShared"], block_count, threads, dk, dv, dk, dv, n, size, 1)
                break
            stride //= 2
        size *= 2
    k, v = dk.get(), dv.get()
    return {"keys": k, "vals": v}, {"keys": sorted_check(k, v, keys)}


@case("oddEvenMergeSortShared + oddEvenMergeGlobal", "cuda-samples:" + SORTING + "oddEvenMergeSort.cu",
      "8 arrays of 1024 and one array of 8192 uint32 keys in [0,65536), ascending")
def _odd_even(env):
    m = env.sample(SORTING + "oddEvenMergeSort.cu")
    n = 8192
    keys, vals = _sort_inputs(env, n)
    short_k, short_v = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
    env.launch(m.kernels["oddEvenMergeSortShared"], n // 1024, 512, short_k, short_v, keys, vals, 1024, 1)
    verdicts = [sorted_check(short_k[i:i + 1024], short_v[i:i + 1024] - i, keys[i:i + 1024]) for i in range(0, n, 1024)]
    dk, dv = xcuda.zeros(n, "uint32"), xcuda.zeros(n, "uint32")
    env.launch(m.kernels["oddEvenMergeSortShared"], n // 1024, 512, dk, dv, keys, vals, 1024, 1)
    size = 2048
    while size <= n:
        stride = size // 2
        while stride > 0:
            env.launch(m.kernels["oddEvenMergeGlobal"], n // 512, 256, dk, dv, dk, dv, n, size, stride, 1)
            stride //= 2
        size *= 2
    k, v = dk.get(), dv.get()
    bad = [x for x in verdicts if not x.ok]
    return {"short_keys": short_k, "short_vals": short_v, "keys": k, "vals": v}, {
        "short_keys": Verdict(not bad, bad[0].detail if bad else ""), "keys": sorted_check(k, v, keys)}


MERGESORT = INTRO + "mergeSort/"


@case("mergeSort pipeline (mergeSortShared, generateSampleRanks, mergeRanksAndIndices, mergeElementaryIntervals)",
      "cuda-samples:" + MERGESORT + "mergeSort.cu", "N=32768 uint32 keys in [0,65536) with their indices, ascending")
def _merge_sort(env):
    m = env.sample(MERGESORT + "mergeSort.cu", instantiate=[
        "mergeSortSharedKernel<1U>", "generateSampleRanksKernel<1U>", "mergeElementaryIntervalsKernel<1U>"])
    n, shared_limit, sample_stride = 32768, 1024, 128
    keys, vals = _sort_inputs(env, n)
    stages = 0
    stride = shared_limit
    while stride < n:
        stride, stages = stride * 2, stages + 1
    dst_k, dst_v = xcuda.zeros(n, "uint32"), xcuda.zeros(n, "uint32")
    buf_k, buf_v = xcuda.zeros(n, "uint32"), xcuda.zeros(n, "uint32")
    ikey, ival, okey, oval = (buf_k, buf_v, dst_k, dst_v) if stages & 1 else (dst_k, dst_v, buf_k, buf_v)
    max_samples = 32768
    ranks_a, ranks_b = xcuda.zeros(max_samples, "uint32"), xcuda.zeros(max_samples, "uint32")
    limits_a, limits_b = xcuda.zeros(max_samples, "uint32"), xcuda.zeros(max_samples, "uint32")
    env.launch(m.kernels["mergeSortSharedKernel"]["1U"], n // shared_limit, shared_limit // 2,
               ikey, ival, keys, vals, shared_limit)
    stride = shared_limit
    while stride < n:
        last = n % (2 * stride)
        threads = (n + 2 * stride - last) // (2 * sample_stride) if last > stride else (n - last) // (2 * sample_stride)
        env.launch(m.kernels["generateSampleRanksKernel"]["1U"], ceil_div(threads, 256), 256,
                   ranks_a, ranks_b, ikey, stride, n, threads)
        env.launch(m.kernels["mergeRanksAndIndicesKernel"], ceil_div(threads, 256), 256, limits_a, ranks_a, stride, n, threads)
        env.launch(m.kernels["mergeRanksAndIndicesKernel"], ceil_div(threads, 256), 256, limits_b, ranks_b, stride, n, threads)
        pairs = ceil_div(n, sample_stride) if last > stride else (n - last) // sample_stride
        env.launch(m.kernels["mergeElementaryIntervalsKernel"]["1U"], pairs, sample_stride,
                   okey, oval, ikey, ival, limits_a, limits_b, stride, n)
        if last <= stride and last:
            device_copy(env, okey, (n - last) * 4, ikey, (n - last) * 4, last * 4)
            device_copy(env, oval, (n - last) * 4, ival, (n - last) * 4, last * 4)
        ikey, okey, ival, oval = okey, ikey, oval, ival
        stride *= 2
    k, v = dst_k.get(), dst_v.get()
    order = np.argsort(keys, kind="stable")          # merge sort is stable: the values are determined
    return {"keys": k, "vals": v}, {"keys": Exact(keys[order]), "vals": Exact(vals[order])}


@case("bitonicSortSharedKernel (mergeSort's bitonic.cu)", "cuda-samples:" + MERGESORT + "bitonic.cu",
      "8 arrays of 1024 and 64 arrays of 128 uint32 keys, ascending")
def _merge_bitonic(env):
    m = env.sample(MERGESORT + "bitonic.cu")
    n = 8192
    keys, vals = _sort_inputs(env, n)
    outputs, checks = {}, {}
    for length in (1024, 128):
        dk, dv = np.zeros(n, np.uint32), np.zeros(n, np.uint32)
        env.launch(m.kernels["bitonicSortSharedKernel"], n // 1024, 512, dk, dv, keys, vals, length, 1)
        verdicts = [sorted_check(dk[i:i + length], dv[i:i + length] - i, keys[i:i + length]) for i in range(0, n, length)]
        bad = [x for x in verdicts if not x.ok]
        outputs["keys%d" % length], outputs["vals%d" % length] = dk, dv
        checks["keys%d" % length] = Verdict(not bad, bad[0].detail if bad else "")
    return outputs, checks


CONVOLUTION = CONCEPTS + "convolutionSeparable/convolutionSeparable.cu"


@case("convolutionRowsKernel + convolutionColumnsKernel", "cuda-samples:" + CONVOLUTION,
      "256x128 image and 17-tap kernel of small integers (the sample's rand() % 16: exact sums), __constant__ taps")
def _convolution(env):
    m = env.sample(CONVOLUTION)
    w, h, radius = 256, 128, 8
    taps = env.integers(2 * radius + 1, 0, 16).astype(np.float32)
    image = env.integers(w * h, 0, 16).astype(np.float32).reshape(h, w)
    m.get_global("c_Kernel").set(taps)
    rows = xcuda.zeros((h, w), "float32")
    out = np.zeros((h, w), np.float32)
    env.launch(m.kernels["convolutionRowsKernel"], (w // (8 * 16), h // 4), (16, 4), rows, image, w, h, w)
    env.launch(m.kernels["convolutionColumnsKernel"], (w // 16, h // (8 * 8)), (16, 8), out, rows, w, h, w)

    def convolve(a, axis):   # convolutionRowCPU / convolutionColumnCPU: sum of src[x + k] * taps[R - k]
        a64 = a.astype(np.float64)
        res = np.zeros_like(a64)
        for k in range(-radius, radius + 1):
            shifted = np.zeros_like(a64)
            if axis == 1:
                if k >= 0:
                    shifted[:, :w - k] = a64[:, k:]
                else:
                    shifted[:, -k:] = a64[:, :w + k]
            else:
                if k >= 0:
                    shifted[:h - k, :] = a64[k:, :]
                else:
                    shifted[-k:, :] = a64[:h + k, :]
            res += taps[radius - k] * shifted
        return res
    ref_rows = convolve(image, 1)
    ref = convolve(ref_rows, 0)
    return {"rows": rows.get(), "out": out}, {"rows": Exact(ref_rows.astype(np.float32)), "out": Exact(ref.astype(np.float32))}


# ============================================================================================
# cuda-samples: 0_Introduction and 3_CUDA_Features with cooperative groups, barriers, pipelines
# ============================================================================================

@case("scalarProductKernel_native / _intrinsics (fp16ScalarProduct)", "cuda-samples:" + INTRO + "fp16ScalarProduct/fp16ScalarProduct.cu",
      "2 x 262144 half2 of small integers (the sample's rand() % 4, rand() % 2), 128 x 128 threads; reference in half arithmetic")
def _fp16(env):
    m = env.sample(INTRO + "fp16ScalarProduct/fp16ScalarProduct.cu")
    blocks, threads = 128, 128
    size = blocks * threads * 16
    vec = []
    for _ in range(2):
        v = np.empty((size, 2), np.float16)
        v[:, 0] = env.integers(size, 0, 4)
        v[:, 1] = env.integers(size, 0, 2)
        vec.append(v)
    outputs, checks = {}, {}
    # The kernels' arithmetic emulated in half precision: each thread's fused multiply-adds (exact
    # in float64 for these small integers, then rounded once to half), the block's tree of half2
    # additions in shared memory (rounded to half at each level), the float sum of the two halves.
    # The loop starts at threadIdx.x + blockDim.x + blockIdx.x, as the sample writes it.
    stride = blocks * threads
    start = np.arange(threads)[None, :] + threads + np.arange(blocks)[:, None]
    acc = np.zeros((blocks, threads, 2), np.float16)
    for k in range(ceil_div(size, stride) + 1):
        i = start + k * stride
        valid = i < size
        ii = np.where(valid, i, 0)
        fused = vec[0][ii].astype(np.float64) * vec[1][ii] + acc
        acc = np.where(valid[..., None], fused.astype(np.float16), acc)
    width = threads
    while width > 1:
        width //= 2
        acc[:, :width] = (acc[:, :width].astype(np.float32) + acc[:, width:2 * width]).astype(np.float16)
    ref = acc[:, 0, 0].astype(np.float32) + acc[:, 0, 1].astype(np.float32)
    for name in ("scalarProductKernel_native", "scalarProductKernel_intrinsics"):
        res = np.zeros(blocks, np.float32)
        env.launch(m.kernels[name], blocks, threads, vec[0], vec[1], res, size)
        outputs[name], checks[name] = res, Exact(ref)
    return outputs, checks


@case("normVecByDotProductAWBarrier (cuda::barrier, grid sync)", "cuda-samples:" + INTRO + "simpleAWBarrier/simpleAWBarrier.cu",
      "100000 float32 U[0.5,1.5) x 2, 8 blocks x 256 threads, cooperative")
def _aw_barrier(env):
    m = env.sample(INTRO + "simpleAWBarrier/simpleAWBarrier.cu")
    n, blocks, threads = 100000, 8, 256
    a = env.uniform(n, 0.5, 1.5)
    b = env.uniform(n, 0.5, 1.5)
    partial = np.zeros(blocks, np.float64)
    a_out, b_out = a.copy(), b.copy()
    env.launch(m.kernels["normVecByDotProductAWBarrier"], blocks, threads, a_out, b_out, partial, n,
               shared_mem=(threads // 32 + 1) * 8, cooperative=True)
    norm = np.sqrt(np.sum((a * b).astype(np.float64)))      # products in float, as the kernel
    return {"vecA": a_out, "vecB": b_out, "norm": partial[:1]}, {
        "vecA": Close((a / norm).astype(np.float32), rtol=1e-6), "vecB": Close((b / norm).astype(np.float32), rtol=1e-6),
        "norm": Close(np.array([norm]), rtol=1e-12)}


WARP_AGG = FEATURES + "warpAggregatedAtomicsCG/warpAggregatedAtomicsCG.cu"


@case("filter_arr / mapToBuckets / calculateMaxInEachBuckets (warpAggregatedAtomicsCG)", "cuda-samples:" + WARP_AGG,
      "100000 int32 in [0,5), 196 blocks x 512 threads; coalesced_threads, labeled_partition, reduce",
      device_policy={"filtered": Unordered("atomicAggInc hands out slots in the order warps arrive"),
                     "buckets": Unordered("slots within a bucket follow the order warps arrive")})
def _warp_agg(env):
    m = env.sample(WARP_AGG)
    n, buckets, threads = 100000, 5, 512
    src = env.integers(n, 0, buckets)
    dst = np.zeros(n, np.int32)
    nres = np.zeros(1, np.int32)
    env.launch(m.kernels["filter_arr"], n // threads + 1, threads, dst, nres, src, n)
    count = int(nres[0])
    filtered = np.sort(dst[:count])
    idx = np.full(n * buckets, -1, np.int32)
    counters = (np.arange(buckets) * n).astype(np.int32)
    env.launch(m.kernels["mapToBuckets"], n // threads, threads, src, idx, counters, n, buckets)
    values = env.integers(n, 0, 1 << 30)
    maxima = np.zeros(buckets, np.int32)
    env.launch(m.kernels["calculateMaxInEachBuckets"], n // threads, threads, src, values, maxima, n, buckets)
    # each bucket's slots hold exactly the indices of its elements (in any order)
    per_bucket = []
    ok_buckets = True
    for b in range(buckets):
        got = np.sort(idx[b * n:b * n + int(counters[b]) - b * n])
        want = np.nonzero(src == b)[0]
        ok_buckets &= np.array_equal(got, want)
        per_bucket.append(got)
    ref_max = np.array([values[src == b].max() for b in range(buckets)], np.int32)
    return {"count": nres, "filtered": filtered, "buckets": np.concatenate(per_bucket), "maxima": maxima}, {
        "count": Exact(np.array([np.count_nonzero(src > 0)], np.int32)),
        "filtered": Exact(np.sort(src[src > 0])),
        "buckets": Verdict(bool(ok_buckets), "a bucket's indices are not those of its elements"),
        "maxima": Exact(ref_max)}


CDP_QUICKSORT = FEATURES + "cdpSimpleQuicksort/cdpSimpleQuicksort.cu"
CDP_PRINT = FEATURES + "cdpSimplePrint/cdpSimplePrint.cu"


@case("cdp_simple_quicksort (cdpSimpleQuicksort: launches from the device)", "cuda-samples:" + CDP_QUICKSORT,
      "4096 uint32 in [0,4096) (the sample's rand() % n), one thread; each partition launches a grid for each half "
      "into a stream it creates on the device, down to depth 16 (-dc, the device runtime)")
def _cdp_quicksort(env):
    m = env.sample(CDP_QUICKSORT, options=["-dc"])
    n = 4096
    data = env.integers(n, 0, n, np.uint32)
    expected = np.sort(data)
    env.launch(m.kernels["cdp_simple_quicksort"], 1, 1, data, 0, n - 1, 0)
    return {"sorted": data}, {"sorted": Exact(expected)}


@case("cdp_kernel (cdpSimplePrint: launches from the device, printf)", "cuda-samples:" + CDP_PRINT,
      "2 blocks x 2 threads, max_depth 3: every thread launches 2 blocks x 2 threads a level down (-dc); each "
      "block prints its id, checked from the output")
def _cdp_print(env):
    m = env.sample(CDP_PRINT, options=["-dc"])
    with env.capture_stdout():
        env.launch(m.kernels["cdp_kernel"], 2, 2, 3, 0, 0, -1)
    ids = sorted(int(v) for v in re.findall(r"BLOCK (\d+) launched by", env.stdout))
    depths = sorted(line.count("|") for line in env.stdout.splitlines() if "BLOCK" in line)
    blocks = 2 + 2 * 2 * 2 + 2 * 2 * 2 * 2 * 2  # 2 at depth 0, 8 at depth 1, 32 at depth 2
    expected_depths = [0] * 2 + [1] * 8 + [2] * 32
    return {"ids": np.array(ids, np.int64)}, {
        "ids": Verdict(ids == list(range(blocks)) and depths == expected_depths,
                       "printed ids %s at depths %s; output: %r" % (ids, depths, env.stdout[:300]))}


@case("oddEvenCountAndSumCG (binary_partition)", "cuda-samples:" + FEATURES + "binaryPartitionCG/binaryPartitionCG.cu",
      "102400 int32 in [0,50) (the sample's), 40 blocks x 256 threads")
def _binary_partition(env):
    m = env.sample(FEATURES + "binaryPartitionCG/binaryPartitionCG.cu")
    n = 1024 * 100
    data = env.integers(n, 0, 50)
    odds = np.zeros(1, np.int32)
    sums = np.zeros(2, np.int32)
    env.launch(m.kernels["oddEvenCountAndSumCG"], 40, 256, data, odds, sums, n)
    return {"odds": odds, "sums": sums}, {
        "odds": Exact(np.array([np.count_nonzero(data & 1)], np.int32)),
        "sums": Exact(np.array([data[data & 1 == 1].sum(), data[data & 1 == 0].sum()], np.int32))}


@case("sequence_gpu (inlinePTX: %laneid)", "cuda-samples:" + CONCEPTS + "inlinePTX/inlinePTX.cu",
      "N=1000, 8 blocks x 128 threads")
def _inline_ptx(env):
    m = env.sample(CONCEPTS + "inlinePTX/inlinePTX.cu")
    n = 1000
    out = np.zeros(n, np.int32)
    env.launch(m.kernels["sequence_gpu"], ceil_div(n, 128), 128, out, n)
    return {"lanes": out}, {"lanes": Exact((np.arange(n) % 32).astype(np.int32))}


# (type, sizeof, bytes testCPU compares, numpy view xcuda accepts for a TData*)
ALIGNED_TYPES = [("uint8", 1, 1, np.uint8), ("uint16", 2, 2, np.uint16), ("RGBA8_misaligned", 4, 4, np.uint8),
                 ("LA32_misaligned", 8, 8, np.uint8), ("RGB32_misaligned", 12, 12, np.uint8),
                 ("RGBA32_misaligned", 16, 16, np.uint8), ("RGBA8", 4, 4, np.uint8), ("I32", 4, 4, np.uint32),
                 ("LA32", 8, 8, np.uint8), ("RGB32", 16, 12, np.uint8), ("RGBA32", 16, 16, np.uint8),
                 ("RGBA32_2", 32, 32, np.uint8)]


@case("testKernel<TData> (alignedTypes, 12 types)", "cuda-samples:" + PERF + "alignedTypes/alignedTypes.cu",
      "256 KiB of bytes (i & 0xFF) + 1 copied as each of 12 element types, 64 x 256 threads")
def _aligned(env):
    m = env.sample(PERF + "alignedTypes/alignedTypes.cu", instantiate=["testKernel<%s>" % t for t, _, _, _ in ALIGNED_TYPES])
    size = 256 * 1024
    src = ((np.arange(size) & 0xFF) + 1).astype(np.uint8)
    outputs, checks = {}, {}
    for t, sizeof, packed, view in ALIGNED_TYPES:
        count = size // sizeof
        out = np.zeros(size, np.uint8)
        env.launch(m.kernels["testKernel"][t], 64, 256, out.view(view), src.view(view), count)
        # testCPU: the packed bytes of every element equal; bytes past the last element untouched
        got = out[:count * sizeof].reshape(count, sizeof)[:, :packed]
        want = src[:count * sizeof].reshape(count, sizeof)[:, :packed]
        ok = np.array_equal(got, want) and not out[count * sizeof:].any()
        outputs[t] = out
        checks[t] = Verdict(bool(ok), "%d elements differ" % int(np.count_nonzero((got != want).any(axis=1))))
    return outputs, checks


@case("kernelDefault / kernelLargeParam (32000-byte __grid_constant__ parameter)",
      "cuda-samples:" + PERF + "LargeKernelParameter/LargeKernelParameter.cu",
      "a 4 KiB and a 32000-byte struct by value, 7168 ints in __constant__, 1 thread")
def _large_param(env):
    m = env.sample(PERF + "LargeKernelParameter/LargeKernelParameter.cu")
    total, limit = 8000, 1024
    values = (np.arange(total) & 0xFF).astype(np.int32)
    m.get_global("excess_params").set(values[limit:])
    r1 = np.zeros(1, np.int32)
    r2 = np.zeros(1, np.int32)
    env.launch(m.kernels["kernelDefault"], 1, 1, values[:limit].tobytes(), r1)
    env.launch(m.kernels["kernelLargeParam"], 1, 1, values.tobytes(), r2)
    expected = np.array([values.sum()], np.int32)
    return {"default": r1, "large": r2}, {"default": Exact(expected), "large": Exact(expected)}


ASYNC_COPY = FEATURES + "globalToShmemAsyncCopy/globalToShmemAsyncCopy.cu"
# The sample checks C against dimsA.x * valB with constant inputs (A = 1.0, B = 0.01). Four of
# its kernels read B at A's index (`&B[a + wA * threadIdx.y + t4x]`: the LargeChunk variants) and
# MatrixMulAsyncCopyMultiStage fills maxPipelineStages + 1 stages into its 4 buffers (a stage
# overwrites the buffer being read): with constant inputs neither shows, with random ones both
# do. Those run on the sample's constant inputs (what the sample checks), the others on random ones.
ASYNC_KERNELS = [("MatrixMulAsyncCopyMultiStageLargeChunk", True), ("MatrixMulAsyncCopyLargeChunk", True),
                 ("MatrixMulAsyncCopyLargeChunkAWBarrier", True), ("MatrixMulAsyncCopyMultiStageSharedState", False),
                 ("MatrixMulAsyncCopyMultiStage", True), ("MatrixMulAsyncCopySingleStage", False),
                 ("MatrixMulNaive", False), ("MatrixMulNaiveLargeChunk", True)]
for _k, _constant in ASYNC_KERNELS:
    @case(_k + "<16>", "cuda-samples:" + ASYNC_COPY,
          "A, B 192x192 float32 %s, block 16x16%s" % (
              "constant 1.0 and 0.01 (the sample's; see ASYNC_KERNELS)" if _constant else "U[-1,1)",
              " (+2 producer rows)" if "SharedState" in _k else ""))
    def _async_copy(env, kernel=_k, constant=_constant):
        m = env.sample(ASYNC_COPY, instantiate="%s<16>" % kernel)
        bs, hA, wA, wB = 16, 192, 192, 192
        if constant:
            A = np.full((hA, wA), 1.0, np.float32)
            B = np.full((wA, wB), 0.01, np.float32)
        else:
            A = env.uniform(hA * wA, -1, 1).reshape(hA, wA)
            B = env.uniform(wA * wB, -1, 1).reshape(wA, wB)
        C = np.zeros((hA, wB), np.float32)
        k = m.kernels[kernel]["16"]
        if "SharedState" in kernel:   # 16 consumer rows and one producer warp; the sample's grid
            env.launch(k, (wB // bs, hA // bs), (bs, bs + 2), C, A, B, wA, wB)
        else:
            env.launch(k, (wB // bs, hA // bs), (bs, bs), C, A, B, wA, wB)
        ref = A.astype(np.float64) @ B
        scale = np.abs(A).astype(np.float64) @ np.abs(B)
        err = np.abs(C - ref) / scale
        return {"C": C}, {"C": Verdict(bool(np.all(err < 1e-5)), "max error / (|A||B|) = %.3g" % err.max(),
                                       float(np.abs(C - ref).max()))}


@case("testKernel (simpleAssert: a failing device assert)", "cuda-samples:" + INTRO + "simpleAssert_nvrtc/simpleAssert_kernel.cu",
      "2 blocks x 32 threads, N=60: threads 60..63 fail assert(gtid < N)",
      devices=("cpu",), note="a device-side assert leaves a GPU context unusable (a sticky error) for the cases after it")
def _assert(env):
    m = env.sample(INTRO + "simpleAssert_nvrtc/simpleAssert_kernel.cu")
    try:
        env.launch(m.kernels["testKernel"], 2, 32, 60)
        xcuda.synchronize()
    except xcuda.KernelCheckError as e:
        thread = tuple(getattr(e, "thread", ()) or ())
        block = tuple(getattr(e, "block", ()) or ())
        gtid = block[0] * 32 + thread[0] if thread and block else -1
        ok = getattr(e, "kind", "") in ("assert", "device_assert", "assertion") and gtid >= 60
        return {"finding": np.array([gtid], np.int64)}, {
            "finding": Verdict(ok, "finding kind %r at thread %s block %s" % (getattr(e, "kind", None), thread, block))}
    return {}, {"finding": Verdict(False, "the assert did not fire")}


@case("simple_wmma_gemm (cudaTensorCoreGemm, wmma)", "cuda-samples:" + FEATURES + "cudaTensorCoreGemm/cudaTensorCoreGemm.cu",
      "M=N=K=64 half of small integers, alpha=1.1 beta=1.2, block 128x4",
      note="wmma/mma is not emulated by the CPU device (DESIGN.md, 'What it refuses'): GPU only")
def _wmma(env):
    if env.device == "cpu":
        raise Skip("wmma/mma: the CPU device refuses it by design (DESIGN.md: What it refuses)")
    m = env.sample(FEATURES + "cudaTensorCoreGemm/cudaTensorCoreGemm.cu")
    M = N = K = 64
    a = env.integers(M * K, -2, 3).astype(np.float16).reshape(M, K)
    bt = env.integers(N * K, -2, 3).astype(np.float16).reshape(N, K)     # B column-major: row n holds column n
    c = env.uniform(M * N, -1, 1).reshape(M, N)
    d = np.zeros((M, N), np.float32)
    grid = (ceil_div(M, 16 * 128 // 32), ceil_div(N, 16 * 4))
    env.launch(m.kernels["simple_wmma_gemm"], grid, (128, 4), a, bt, c, d, M, N, K, 1.1, 1.2)
    ref = np.float32(1.1) * (a.astype(np.float64) @ bt.T.astype(np.float64)) + np.float32(1.2) * c
    return {"D": d}, {"D": Close(ref, rtol=1e-6, atol=1e-5)}



# ============================================================================================
# cuda-samples: 5_Domain_Specific (approximate math lives here)
# ============================================================================================

BLACK_SCHOLES = DOMAIN + "BlackScholes/BlackScholes_kernel.cuh"


def _black_scholes_reference(S, X, T, R, V):
    """BlackScholes_gold.cpp in float64 (numpy)."""
    S, X, T = (a.astype(np.float64) for a in (S, X, T))
    R, V = float(np.float32(R)), float(np.float32(V))

    def cnd(d):
        A1, A2, A3, A4, A5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        c = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))))
        return np.where(d > 0, 1.0 - c, c)
    sqrtT = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
    d2 = d1 - V * sqrtT
    expRT = np.exp(-R * T)
    call = S * cnd(d1) - X * expRT * cnd(d2)
    put = X * expRT * (1.0 - cnd(d2)) - S * (1.0 - cnd(d1))
    return call.astype(np.float32), put.astype(np.float32)


for _src in (BLACK_SCHOLES, DOMAIN + "BlackScholes_nvrtc/BlackScholes_kernel.cuh"):
    @case("BlackScholesGPU" + (" (nvrtc)" if "nvrtc" in _src else ""), "cuda-samples:" + _src,
          "40000 options: S U[5,30), X U[1,100), T U[0.25,10) float32, R=0.02, V=0.30, 157 x 128 threads",
          device_policy={"*": Bound(1e-5, 1e-4, "__expf/__logf/__fdividef/rsqrtf compile to ex2.approx, lg2.approx, "
                                    "div.full, rsqrt.approx (2 ulp, 2^-22 abs, 2 ulp, 2^-22.9 rel per the PTX ISA); "
                                    "a few ulp of error in CND and exp(-RT) becomes |error| <= ~1e-5 of the larger of "
                                    "S and X (<= 100): 1e-4 absolute, 1e-5 relative")})
    def _black_scholes(env, src=_src):
        m = env.sample(src)
        n = 40000
        S, X, T = env.uniform(n, 5, 30), env.uniform(n, 1, 100), env.uniform(n, 0.25, 10)
        call, put = np.zeros(n, np.float32), np.zeros(n, np.float32)
        k = m.kernels["BlackScholesGPU"]
        env.launch(k, ceil_div(n // 2, 128), 128, call, put, S, X, T, 0.02, 0.30, n)
        ref_call, ref_put = _black_scholes_reference(S, X, T, 0.02, 0.30)
        # the sample: L1 norm of (GPU - CPU) over the call prices < 1e-6 (and it prints the max)
        l1 = float(np.abs(call.astype(np.float64) - ref_call).sum() / np.abs(ref_call.astype(np.float64)).sum())
        return {"call": call, "put": put}, {
            "call": Verdict(l1 < 1e-6, "L1 norm %.3g (the sample's bound: 1e-6)" % l1, float(np.abs(call - ref_call).max())),
            "put": Close(ref_put, rtol=1e-4, atol=1e-4)}


BINOMIAL = DOMAIN + "binomialOptions/binomialOptions_kernel.cu"


def _binomial_reference(S, X, T, R, V, steps=2048):
    """binomialOptions_gold.cpp's tree in float64, vectorised over the options."""
    S, X, T = (a.astype(np.float64) for a in (S, X, T))
    dt = T / steps
    vDt = V * np.sqrt(dt)
    rDt = R * dt
    If, Df = np.exp(rDt), np.exp(-rDt)
    u, d = np.exp(vDt), np.exp(-vDt)
    pu = (If - d) / (u - d)
    pd = 1.0 - pu
    puByDf, pdByDf = (pu * Df)[:, None], (pd * Df)[:, None]
    i = np.arange(steps + 1)
    call = np.maximum(S[:, None] * np.exp(vDt[:, None] * (2.0 * i - steps)) - X[:, None], 0.0)
    for n in range(steps, 0, -1):
        call = puByDf * call[:, 1:n + 1] + pdByDf * call[:, :n]
    return call[:, 0]


for _double in (False, True):
    @case("binomialOptionsKernel (%s)" % ("double" if _double else "float"), "cuda-samples:" + BINOMIAL,
          "8 options: S U[5,30), X U[1,100), T U[0.25,10), R=0.06, V=0.10; 2048 steps, 128 threads an option%s" % (
              ", DOUBLE_PRECISION" if _double else ""),
          device_policy={} if _double else {"*": Bound(1e-5, 1e-5, "expiryCallValue uses __expf (ex2.approx.ftz.f32, "
                                                      "2 ulp): a relative error of ~2.4e-7 in the leaves, averaged by "
                                                      "the tree's convex combinations")})
    def _binomial(env, double=_double):
        m = env.sample(BINOMIAL, defines={"DOUBLE_PRECISION": None} if double else None)
        real = np.float64 if double else np.float32
        n, steps = 8, 2048
        S, X, T = env.uniform(n, 5, 30, real), env.uniform(n, 1, 100, real), env.uniform(n, 0.25, 10, real)
        R, V = real(0.06), real(0.10)
        # binomialOptionsGPU(): the per-option constants in `real`, as the host computes them
        dt = T / real(steps)
        vDt = (V * np.sqrt(dt)).astype(real)
        rDt = R * dt
        If, Df = np.exp(rDt).astype(real), np.exp(-rDt).astype(real)
        u, d = np.exp(vDt).astype(real), np.exp(-vDt).astype(real)
        pu = ((If - d) / (u - d)).astype(real)
        pd = (real(1.0) - pu).astype(real)
        table = np.zeros(1024, dtype=[("S", real), ("X", real), ("vDt", real), ("puByDf", real), ("pdByDf", real)])
        table["S"][:n], table["X"][:n], table["vDt"][:n] = S, X, vDt
        table["puByDf"][:n], table["pdByDf"][:n] = pu * Df, pd * Df
        m.get_global("d_OptionData").set(np.frombuffer(table.tobytes(), np.uint8))
        env.launch(m.kernels["binomialOptionsKernel"], n, 128)
        xcuda.synchronize()
        raw = m.get_global("d_CallValue").get()   # `real d_CallValue[]`: xcuda gives a typedef'd array as bytes
        got = (raw.view(real) if raw.dtype == np.uint8 else raw)[:n].astype(real)
        ref = _binomial_reference(S, X, T, float(R), float(V), steps)
        l1 = float(np.abs(got - ref).sum() / np.abs(ref).sum())
        return {"call": got}, {"call": Verdict(l1 < 5e-4, "L1 norm %.3g vs the float64 tree (the sample's bound: 5e-4)" % l1,
                                               float(np.abs(got - ref).max()))}


QRNG = DOMAIN + "quasirandomGenerator/quasirandomGenerator_kernel.cu"


@case("quasirandomGeneratorKernel", "cuda-samples:" + QRNG,
      "random 3x31 direction table in __constant__, seed 1, N=65536, 128 blocks x (128, 3) threads")
def _qrng(env):
    m = env.sample(QRNG)
    dims, res, n = 3, 31, 65536
    table = env.integers(dims * res, 0, 1 << 31, np.uint32).reshape(dims, res)
    m.get_global("c_Table").set(table.reshape(-1))
    out = np.zeros(dims * n, np.float32)
    seed = 1
    env.launch(m.kernels["quasirandomGeneratorKernel"], 128, (128, dims), out, seed, n)
    data = (seed + np.arange(n, dtype=np.uint64)).astype(np.uint32)
    ref = np.zeros((dims, n), np.float32)
    for dim in range(dims):
        result = np.zeros(n, np.uint32)
        for bit in range(res):
            result ^= np.where((data >> np.uint32(bit)) & 1, table[dim, bit], 0).astype(np.uint32)
        ref[dim] = (result + np.uint32(1)).astype(np.float32) * np.float32(1.0 / 2147483648.0)
    return {"out": out}, {"out": Exact(ref.reshape(-1))}


def _moro_inv_cnd(x: np.ndarray) -> np.ndarray:
    """MoroInvCNDcpu in float64."""
    a = [2.50662823884, -18.61500062529, 41.39119773534, -25.44106049637]
    b = [-8.4735109309, 23.08336743743, -21.06224101826, 3.13082909833]
    c = [0.337475482272615, 0.976169019091719, 0.160797971491821, 2.76438810333863E-02, 3.8405729373609E-03,
         3.951896511919E-04, 3.21767881768E-05, 2.888167364E-07, 3.960315187E-07]
    x = x.astype(np.uint64)
    negate = x >= 0x80000000
    x = np.where(negate, 0xffffffff - x, x).astype(np.float64)
    x1 = 1.0 / 0xffffffff
    p1 = x * x1 + x1 / 2.0
    p2 = p1 - 0.5
    z = p2 * p2
    central = p2 * (((a[3] * z + a[2]) * z + a[1]) * z + a[0]) / ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.log(-np.log(p1))
    tail = c[8]
    for coef in reversed(c[:8]):
        tail = coef + t * tail
    z = np.where(p2 > -0.42, central, -tail)
    return np.where(negate, -z, z)


@case("inverseCNDKernel", "cuda-samples:" + QRNG,
      "pathN=65536 evenly spaced points (d_Input NULL, the sample's mode) and 65536 random uint32, 128 x 128 threads",
      device_policy={"*": Bound(2e-6, 2e-6, "the tails use __logf twice (lg2.approx.ftz.f32: 2^-22 absolute); "
                                 "z = log(-log p) amplifies it by 1/|log p| <= ~1.2 and the polynomial's slope is <= 1.5")})
def _inverse_cnd(env):
    m = env.sample(QRNG)
    n = 65536
    even = np.zeros(n, np.float32)
    env.launch(m.kernels["inverseCNDKernel"], 128, 128, even, None, n)
    distance = np.uint32(0xffffffff // (n + 1))
    ref_even = _moro_inv_cnd((np.arange(1, n + 1, dtype=np.uint64) * int(distance)).astype(np.uint32))
    inputs = env.integers(n, 1, 0xffffffff, np.uint32)
    rand = np.zeros(n, np.float32)
    env.launch(m.kernels["inverseCNDKernel"], 128, 128, rand, inputs, n)
    ref_rand = _moro_inv_cnd(inputs)
    out = {"even": even, "random": rand}
    checks = {}
    for name, got, ref in (("even", even, ref_even), ("random", rand, ref_rand)):
        l1 = float(np.abs(got - ref).sum() / np.abs(ref).sum())   # the sample: L1 norm < 1e-6
        checks[name] = Verdict(l1 < 1e-6, "L1 norm %.3g (the sample's bound: 1e-6)" % l1, float(np.abs(got - ref).max()))
    return out, checks


FWT = DOMAIN + "fastWalshTransform/fastWalshTransform_kernel.cuh"


@case("fwtBatch2Kernel + fwtBatch1Kernel + modulateKernel (dyadic convolution)", "cuda-samples:" + FWT,
      "data 2^14 and kernel 2^7 float32 U[0,1): fwtBatchGPU twice, modulateGPU, fwtBatchGPU")
def _fwt(env):
    m = env.sample(FWT)
    log2_data, log2_kernel = 14, 7
    n = 1 << log2_data
    data_host = env.uniform(n)
    kernel_host = env.uniform(1 << log2_kernel)
    data = xcuda.to_device(data_host)
    padded = np.zeros(n, np.float32)
    padded[:len(kernel_host)] = kernel_host
    kern = xcuda.to_device(padded)

    def fwt_batch(d, M, log2N):   # fwtBatchGPU()
        threads = 256
        N = 1 << log2N
        grid = ((1 << log2N) // (4 * threads), M)
        while log2N > 11:
            env.launch(m.kernels["fwtBatch2Kernel"], grid, threads, d, d, N // 4)
            log2N, N, M = log2N - 2, N >> 2, M << 2
        env.launch(m.kernels["fwtBatch1Kernel"], M, N // 4, d, d, log2N, shared_mem=N * 4)
    fwt_batch(data, 1, log2_data)
    fwt_batch(kern, 1, log2_data)
    env.launch(m.kernels["modulateKernel"], 128, 256, data, kern, n)
    fwt_batch(data, 1, log2_data)
    got = data.get()
    idx = np.arange(n)
    ref = np.zeros(n)
    for j in range(len(kernel_host)):           # dyadicConvolutionCPU: sum_j data[i ^ j] * kernel[j]
        ref += data_host[idx ^ j].astype(np.float64) * kernel_host[j]
    l2 = float(np.sqrt(((got - ref) ** 2).sum() / (ref ** 2).sum()))
    return {"result": got}, {"result": Verdict(l2 < 1e-6, "L2 norm %.3g (the sample's bound: 1e-6)" % l2,
                                               float(np.abs(got - ref).max()))}


DWT = DOMAIN + "dwtHaar1D/dwtHaar1D.cu"


def _haar_reference(signal: np.ndarray) -> np.ndarray:
    """The full decomposition in the kernel's layout and float32 arithmetic: out[0] the last
    approximation, out[2^k:2^(k+1)] the details of level log2(n) - k."""
    s = np.float32(0.70710678118654752440)
    a = signal.astype(np.float32)
    out = np.zeros_like(a)
    while len(a) > 1:
        even, odd = a[0::2], a[1::2]
        out[len(a) // 2:len(a)] = (even - odd) * s
        a = (even + odd) * s
    out[0] = a[0]
    return out


@case("dwtHaar1D (one block, 1024 samples; four blocks then one, 4096 samples)", "cuda-samples:" + DWT,
      "signals of 1024 and 4096 float32 U[-1,1); the sample's host loop and launch shapes")
def _dwt(env):
    m = env.sample(DWT)
    k = m.kernels["dwtHaar1D"]
    outputs, checks = {}, {}
    for n in (1024, 4096):
        signal = env.uniform(n, -1, 1)
        levels = n.bit_length() - 1
        d_in, d_out, approx = xcuda.to_device(signal), xcuda.zeros(n, "float32"), xcuda.zeros(n, "float32")
        left = n // 2                                   # num_threads_total_left
        if levels <= 10:
            grid, block, step, levels_left, approx_is_input = 1, left, levels, levels, False
        else:
            grid, block, step, levels_left, approx_is_input = left // 512, 512, 10, levels - 10, True
        env.launch(m.kernels["initValue"], grid, block, d_out, 0.0)
        while left:
            shared = (2 * block) * 4 + ((2 * block) // 16) * 4
            env.launch(k, grid, block, d_in, d_out, approx, step, left, block, shared_mem=shared)
            device_copy(env, d_in if approx_is_input else d_out, 0, approx, 0, grid * 4)
            if levels_left < 10:
                approx_is_input = False
            step = levels_left - 10 if levels_left > 10 else levels_left
            levels_left -= 10
            left >>= 10
            grid = 1   # the sample's (left / 512) + (left % 512 != 0) ? 1 : 0 parses as (...) ? 1 : 0
            if grid <= 1:
                block = left
        outputs["n%d" % n] = d_out.get()
        checks["n%d" % n] = Exact(_haar_reference(signal))
    return outputs, checks


# ============================================================================================
# CuPy: the CUDA sources of tests/cupy_tests/core_tests/test_raw.py
# ============================================================================================

CUPY_SRC = "cupy:" + CUPY_TESTS + ":"


def _cupy_binary(env, variable, kernel, dtype, op, n=1000, **kw):
    m = env.cupy(variable, **kw)
    x1 = env.uniform(n, -1, 1, dtype)
    x2 = env.uniform(n, -1, 1, dtype)
    y = np.zeros(n, dtype)
    env.launch(m.kernels[kernel], ceil_div(n, 128), 128, x1, x2, y, n)
    return {kernel: y}, {kernel: Exact(op(x1, x2))}


@case("test_sum (_test_source1)", CUPY_SRC + "_test_source1", "n=1000 float32 U[-1,1), 8 x 128")
def _cupy_sum1(env):
    return _cupy_binary(env, "_test_source1", "test_sum", np.float32, np.add)


@case("test_sum + test_multiply (_test_source2)", CUPY_SRC + "_test_source2", "n=1000 float32 U[-1,1), 8 x 128")
def _cupy_source2(env):
    o1, c1 = _cupy_binary(env, "_test_source2", "test_sum", np.float32, np.add)
    o2, c2 = _cupy_binary(env, "_test_source2", "test_multiply", np.float32, np.multiply)
    return {**o1, **o2}, {**c1, **c2}


for _prec, _dt in ((1, np.float32), (2, np.float64)):
    @case("test_sum + test_multiply (_test_source3, PRECISION=%d)" % _prec, CUPY_SRC + "_test_source3",
          "n=1000 %s U[-1,1), 8 x 128" % np.dtype(_dt).name)
    def _cupy_source3(env, prec=_prec, dt=_dt):
        o1, c1 = _cupy_binary(env, "_test_source3", "test_sum", dt, np.add, defines={"PRECISION": str(prec)})
        o2, c2 = _cupy_binary(env, "_test_source3", "test_multiply", dt, np.multiply, defines={"PRECISION": str(prec)})
        return {**o1, **o2}, {**c1, **c2}


@case("test_div (_test_source5: float / (float + 1.0) in double)", CUPY_SRC + "_test_source5",
      "n=1000 float32 U[-1,1), 8 x 128")
def _cupy_div(env):
    return _cupy_binary(env, "_test_source5", "test_div", np.float32,
                        lambda a, b: (a.astype(np.float64) / (b.astype(np.float64) + 1.0)).astype(np.float32))


def _cupy_complex(env, dtype):
    """test_cuFloatComplex / test_cuDoubleComplex: cuComplex.h calls translated to thrust-style
    complex<T> (translate_cucomplex=True). CuPy asserts equality with its own (same-library)
    results for add, sub, div, conj, abs, casts; allclose for mul, fma, make. numpy's complex
    division and abs round differently from thrust's, so those are checked to a few ulp here."""
    f = "f" if dtype == np.complex64 else ""
    m = env.cupy("_test_cuComplex", translate_cucomplex=True)
    n, block = 100, 32
    grid = ceil_div(n, block)
    real_t = np.float32 if dtype == np.complex64 else np.float64
    eps = np.finfo(real_t).eps

    def rand():
        return (env.rng.random(n) + 1j * env.rng.random(n)).astype(dtype)
    a, b, c = rand(), rand(), rand()
    outputs, checks = {}, {}

    def run(kernel, *args, out_dtype=dtype):
        out = np.zeros(n, out_dtype)
        env.launch(m.kernels[kernel], grid, block, *args, out)
        outputs[kernel] = out
        return out
    run("test_add" + f, a, b); checks["test_add" + f] = Exact(a + b)
    run("test_sub" + f, a, b); checks["test_sub" + f] = Exact(a - b)
    run("test_mul" + f, a, b); checks["test_mul" + f] = Close(a * b, rtol=4 * eps)
    run("test_div" + f, a, b); checks["test_div" + f] = Close(a.astype(np.complex128) / b, rtol=8 * eps)
    run("test_conj" + f, a); checks["test_conj" + f] = Exact(np.conj(a))
    run("test_abs" + f, a, out_dtype=real_t); checks["test_abs" + f] = Close(np.abs(a.astype(np.complex128)), rtol=2 * eps)
    out = np.zeros(n, dtype)
    env.launch(m.kernels["test_fma" + f], grid, block, a, b, c, out)
    outputs["test_fma" + f] = out
    checks["test_fma" + f] = Close(a.astype(np.complex128) * b + c, rtol=8 * eps, atol=8 * eps)
    out = np.zeros(n, dtype)
    env.launch(m.kernels["test_make" + f], grid, block, out)
    outputs["test_make" + f] = out
    checks["test_make" + f] = Close(np.full(n, 1.8 - 8.7j, dtype), rtol=4 * eps)
    if dtype == np.complex64:
        run("test_upcast", a, out_dtype=np.complex128); checks["test_upcast"] = Exact(a.astype(np.complex128))
        scalar = np.complex64(2 + 3j)
        run("test_addf_scalar", a, scalar); checks["test_addf_scalar"] = Exact(a + scalar)
    else:
        run("test_downcast", a, out_dtype=np.complex64); checks["test_downcast"] = Exact(a.astype(np.complex64))
        scalar = np.complex128(2 + 3j)
        run("test_add_scalar", a, scalar); checks["test_add_scalar"] = Exact(a + scalar)
    return outputs, checks


HYPOT_BOUND = ("abs() is hypot(), which CUDA computes from an rsqrt.approx.ftz.f64 seed refined by Newton steps "
               "(the PTX ISA does not pin the seed's bits; CUDA's math library documents hypot within 2 ulp)")


@case("cuComplex float kernels (test_addf ... test_addf_scalar)", CUPY_SRC + "_test_cuComplex",
      "n=100 complex64 U[0,1)+U[0,1)j, 4 x 32; translate_cucomplex=True")
def _cupy_complex64(env):
    return _cupy_complex(env, np.complex64)


@case("cuComplex double kernels (test_add ... test_add_scalar)", CUPY_SRC + "_test_cuComplex",
      "n=100 complex128 U[0,1)+U[0,1)j, 4 x 32; translate_cucomplex=True",
      device_policy={"test_abs": Bound(4 * float(np.finfo(np.float64).eps), 0.0, HYPOT_BOUND)})
def _cupy_complex128(env):
    return _cupy_complex(env, np.complex128)


@case("multiply_by_const (test_const_mem)", CUPY_SRC + "test_const_mem", "100 float32, __constant__ some_array = 0..99, 1 x 100")
def _cupy_const(env):
    m = env.cupy("test_const_mem")
    data = np.arange(100, dtype=np.float32)
    m.get_global("some_array").set(data)
    x = np.ones(100, np.float32)
    env.launch(m.kernels["multiply_by_const"], 1, 100, x, 100)
    return {"x": x}, {"x": Exact(data)}


@case("my_sqrt<int|float|complex<double>> + my_func (test_cxx_template)", CUPY_SRC + "test_cxx_template",
      "10 elements of each type (CuPy's shaped_random), 1 x 10")
def _cupy_template(env):
    m = env.cupy("test_cxx_template", instantiate=["my_sqrt<int>", "my_sqrt<float>", "my_sqrt<complex<double>>"])
    outputs, checks = {}, {}
    for targ, dtype in (("int", np.int32), ("float", np.float32), ("complex<double>", np.complex128)):
        if dtype == np.int32:
            x = env.integers(10, 0, 10, np.int32)
        elif dtype == np.complex128:
            x = (env.rng.random(10) + 1j * env.rng.random(10)).astype(dtype)
        else:
            x = env.uniform(10, 0, 10, dtype)
        y = x.copy()
        env.launch(m.kernels["my_sqrt"][targ], 1, 10, y, 10)
        eps = np.finfo(np.float64).eps
        outputs[targ] = y
        checks[targ] = Close(x.astype(np.complex128) ** 2, rtol=4 * eps) if dtype == np.complex128 else Exact(x * x)
    x = env.uniform(10, 0, 10, np.float64)
    y = x.copy()
    env.launch(m.kernels["my_func"], 1, 10, y, 10)
    outputs["my_func"], checks["my_func"] = y, Exact(x * x)
    return outputs, checks


@case("my_func(void*) (test_cast)", CUPY_SRC + "test_cast", "10 float64 U[0,10), 1 x 10")
def _cupy_cast(env):
    m = env.cupy("test_cast")
    x = env.uniform(10, 0, 10, np.float64)
    y = x.copy()
    env.launch(m.kernels["my_func"], 1, 10, y, 10)
    # 3.0 * x - 8.0 contracts to one fma (one rounding); numpy rounds twice: 1 ulp apart at most
    return {"y": y}, {"y": Close(3.0 * x - 8.0, rtol=2 * np.finfo(np.float64).eps)}


@case("test_grid_sync (cooperative launch)", CUPY_SRC + "_test_grid_sync",
      "n=64: 4096 float32 (arange and ones, CuPy's), 32 blocks x 128 threads, cooperative")
def _cupy_grid_sync(env):
    m = env.cupy("_test_grid_sync")
    n, block = 64, 128
    x1 = np.arange(n * n, dtype=np.float32)
    x2 = np.ones(n * n, np.float32)
    y = np.zeros(n * n, np.float32)
    env.launch(m.kernels["test_grid_sync"], ceil_div(n * n, block), block, x1, x2, y, n * n, cooperative=True)
    return {"y": y}, {"y": Exact(x1 + x2)}


@case("shift<int> (std_code: enable_if template)", CUPY_SRC + "std_code", "256 int32 in [0,8), 1 x 256")
def _cupy_shift(env):
    # "shift<int>" is what CuPy asks for; xcuda's --instantiate writes the defaulted second
    # argument out with its `T` unsubstituted (a name-expression error), so the default is spelled out
    m = env.cupy("std_code", instantiate="shift<int, void>")
    a = env.integers(256, 0, 8, np.int32)
    b = a.copy()
    k = m.kernels["shift"]
    k = k[k.instantiations[0]] if isinstance(k, xcuda.KernelTemplate) else k
    env.launch(k, 1, 256, b, 256)
    return {"a": b}, {"a": Exact(a + 100)}


# ============================================================================================
# Running, comparing, reporting
# ============================================================================================

@dataclasses.dataclass
class Result:
    case: Case
    status: str                 # pass / fail / skip
    reason: str
    runs: Dict[str, DeviceRun]
    device_diff: Optional[float] = None     # max |cpu - gpu| (compare mode)
    compare_details: List[str] = dataclasses.field(default_factory=list)

    def max_diff(self) -> str:
        parts = []
        for dev, run in self.runs.items():
            if run.status != "skip" and run.outputs:
                parts.append("%s-ref %s" % (dev, _fmt(run.ref_diff)))
        if self.device_diff is not None:
            parts.append("cpu-gpu %s" % _fmt(self.device_diff))
        return ", ".join(parts)


def _fmt(x: float) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    if not np.isfinite(x):
        return "inf"
    return "%.3g" % x


def is_float_output(a: np.ndarray) -> bool:
    return np.asarray(a).dtype.kind in "fc"


def compare_case(runner: Runner, c: Case, cpu: DeviceRun, gpu: DeviceRun) -> Tuple[bool, float, List[str]]:
    ok, worst, details = True, 0.0, []
    for name in sorted(set(cpu.outputs) | set(gpu.outputs)):
        if name not in cpu.outputs or name not in gpu.outputs:
            ok = False
            details.append("%s: only on one device" % name)
            continue
        policy = c.device_policy.get(name, c.device_policy.get("*"))
        good, diff, detail = compare_devices(cpu.outputs[name], gpu.outputs[name], policy)
        if not isinstance(policy, NotCompared):
            worst = max(worst, diff)
        if detail:
            details.append("%s: %s" % (name, detail))
        ok &= good
    return ok, worst, details


def run_case(runner: Runner, c: Case, mode: str) -> Result:
    devices = ["cpu", "gpu"] if mode == "compare" else [mode]
    runs = {d: runner.run_on(c, d) for d in devices}
    statuses = [r.status for r in runs.values()]
    if all(s == "skip" for s in statuses):
        return Result(c, "skip", "; ".join(sorted({r.reason for r in runs.values()})), runs)
    reasons = ["%s: %s" % (d, r.reason) for d, r in runs.items() if r.status == "fail"]
    res = Result(c, "fail" if reasons else "pass", "; ".join(reasons), runs)
    if mode == "compare" and all(r.status != "skip" and r.outputs for r in runs.values()):
        ok, diff, details = compare_case(runner, c, runs["cpu"], runs["gpu"])
        res.device_diff, res.compare_details = diff, details
        if not ok:
            res.status = "fail"
            note = "cpu and gpu differ: " + "; ".join(d for d in details if "not compared" not in d)
            approx = sorted(set(runs["cpu"].approx) | set(runs["gpu"].approx))
            if approx:
                note += " [approximate instructions in these kernels: %s]" % ", ".join(approx)
            if any(is_float_output(v) for v in runs["cpu"].outputs.values()):
                # the same PTX, both devices, with no contraction left to ptxas' choice
                again = {d: runner.run_on(c, d, ("--fmad=false",)) for d in devices}
                if all(r.outputs for r in again.values()):
                    ok2, diff2, _ = compare_case(runner, c, again["cpu"], again["gpu"])
                    note += " (with --fmad=false: %s, max |cpu-gpu| %s)" % ("equal" if ok2 else "still differ",
                                                                           _fmt(diff2))
            res.reason = (res.reason + "; " if res.reason else "") + note
    return res


def kernel_names(res: Result) -> str:
    names: List[str] = []
    for run in res.runs.values():
        for k in run.kernels:
            if k not in names:
                names.append(k)
    return ", ".join(names) if names else "-"


def result_record(res: Result) -> Dict[str, Any]:
    c = res.case
    rec = {"case": c.name, "source": c.source, "inputs": c.inputs, "result": res.status, "reason": res.reason,
           "kernels": kernel_names(res), "max_diff": res.max_diff(), "device_diff": res.device_diff,
           "compare_details": res.compare_details, "devices": {}}
    for dev, run in res.runs.items():
        rec["devices"][dev] = {
            "status": run.status, "reason": run.reason, "ref_max_diff": None if not run.outputs else run.ref_diff,
            "details": run.details, "seconds": round(run.seconds, 3), "approx_instructions": run.approx,
            "finding": run.finding,
            "policy": {k: dataclasses.asdict(v) | {"kind": type(v).__name__} for k, v in c.device_policy.items()},
        }
    return rec


def print_table(results: List[Result], markdown: bool, out=sys.stdout):
    rows = []
    for r in results:
        approx = sorted({a for run in r.runs.values() for a in run.approx})
        reason = r.reason if r.status != "pass" else ("approx: " + ", ".join(approx) if approx else "")
        rows.append([r.case.name, kernel_names(r), r.case.source.split(":", 1)[1], r.case.inputs,
                     r.status if r.status != "skip" else "skipped", r.max_diff(), reason])
    head = ["case", "kernels launched", "source file", "inputs", "result", "max difference", "reason / note"]
    if markdown:
        out.write("| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n")
        for row in rows:
            out.write("| " + " | ".join(str(x).replace("|", "\\|").replace("\n", " ") for x in row) + " |\n")
        return
    for row in rows:
        out.write("%-7s %-44s %-22s %s\n" % (row[4], row[0][:44], row[5], row[6][:300]))
        out.write("        %s | %s | %s\n" % (row[2], row[3], row[1][:200]))


def export_snapshots(args) -> int:
    for given, label, commit in ((args.samples, "cuda-samples", args.samples_commit), (args.cupy, "cupy", args.cupy_commit)):
        if not given:
            continue
        tree = SourceTree(given, label, commit)
        dest = os.path.join(args.export, label)
        if os.path.exists(dest):
            shutil.rmtree(dest)
        shutil.copytree(tree.root, dest, ignore=lambda d, names: [
            n for n in names if os.path.isfile(os.path.join(d, n)) and not n.endswith(SOURCE_SUFFIXES)])
        if tree.commit:
            with open(os.path.join(dest, ".git-commit"), "w") as f:
                f.write(tree.commit + "\n")
        tree.close()
        print("%s -> %s (commit %s)" % (given, dest, tree.commit or "unknown"))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--samples", help="cuda-samples snapshot: a git directory or a plain directory")
    ap.add_argument("--cupy", help="CuPy snapshot: a git directory or a plain directory")
    ap.add_argument("--samples-commit", help="the cuda-samples commit id, for the report (plain directory)")
    ap.add_argument("--cupy-commit", help="the CuPy commit id, for the report (plain directory)")
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--device", choices=["cpu", "gpu"], help="where to run (default: cpu)")
    group.add_argument("--compare", action="store_true", help="run on both devices and compare")
    ap.add_argument("--only", help="run only the cases whose name matches this regular expression")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--json", help="where to write the results (default real_kernels-<mode>.json)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--no-checks", action="store_true", help="turn the CPU device's checks off")
    ap.add_argument("--export", metavar="DIR",
                    help="write the snapshots' source files to DIR/cuda-samples and DIR/cupy (plain directories "
                         "with a .git-commit file, to carry to a machine without network) and exit")
    args = ap.parse_args(argv)
    if args.export:
        return export_snapshots(args)

    cases = [c for c in CASES if not args.only or re.search(args.only, c.name)]
    if args.list:
        for c in cases:
            print("%-50s %s" % (c.name, c.source))
        return 0
    if not args.samples and not args.cupy:
        ap.error("give --samples and/or --cupy")
    mode = "compare" if args.compare else (args.device or "cpu")
    if mode in ("gpu", "compare") and not xcuda.gpu_available():
        ap.error("--%s needs a GPU: %s" % (mode, xcuda.driver_unavailable_reason()))
    if args.no_checks:
        xcuda.cpu_checks(False)
    runner = Runner(args)
    started = datetime.datetime.now(datetime.timezone.utc)
    results: List[Result] = []
    try:
        for c in cases:
            res = run_case(runner, c, mode)
            results.append(res)
            secs = sum(r.seconds for r in res.runs.values())
            print("[%3d/%d] %-7s %-48s %6.1fs %s" % (len(results), len(cases), res.status, c.name[:48], secs,
                                                 res.reason[:160]), flush=True)
    finally:
        counts = {s: sum(1 for r in results if r.status == s) for s in ("pass", "fail", "skip")}
        # a kernel is its source file and its name (several samples have a `testKernel`)
        kernels = sorted({"%s:%s" % (r.case.source.split(":")[1], k) for r in results
                          for run in r.runs.values() for k in run.kernels})
        print()
        print_table(results, args.markdown)
        print("\n%d cases: %d pass, %d fail, %d skipped; %d distinct kernels launched" % (
            len(results), counts["pass"], counts["fail"], counts["skip"], len(kernels)))
        meta = {
            "mode": mode, "date": started.isoformat(timespec="seconds"), "seed": args.seed,
            "checks": not args.no_checks,
            "cuda_samples": {"path": args.samples, "commit": runner.samples.commit if runner.samples else None},
            "cupy": {"path": args.cupy, "commit": runner.cupy.commit if runner.cupy else None},
            "gpu_available": xcuda.gpu_available(), "counts": counts, "distinct_kernels": kernels,
        }
        path = args.json or "real_kernels-%s.json" % mode
        with open(path, "w") as f:
            json.dump({"meta": meta, "results": [result_record(r) for r in results]}, f, indent=1, default=str)
        print("wrote %s" % path)
        for tree in (runner.samples, runner.cupy):
            if tree:
                tree.close()
    return 0 if counts["fail"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

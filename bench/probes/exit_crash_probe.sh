#!/usr/bin/env bash
# Exit-time abort seen on an H100 (2026-12-07): `import xcuda; xcuda.compile(SRC)` then torch.profiler,
# and the process ends with "free(): invalid pointer". Variants, each in a fresh process, with a
# native backtrace where gdb exists.
SRC='SRC = r"""extern "C" __global__ void inc(float* a) { a[threadIdx.x] += 1.0f; }"""'
run() { local name=$1 code=$2; python3 -X faulthandler -c "$SRC
$code" >/tmp/p.out 2>&1; echo "$name rc=$? $(grep -m1 -E 'free|Fatal|Abort' /tmp/p.out)"; }
run "compile only" "import xcuda; xcuda.compile(SRC)"
run "compile, import torch" "import xcuda; xcuda.compile(SRC); import torch"
run "compile, torch cuda" "import xcuda; xcuda.compile(SRC); import torch; torch.ones(1, device='cuda')"
run "torch cuda, compile" "import torch; torch.ones(1, device='cuda'); import xcuda; xcuda.compile(SRC)"
run "compile, torch profiler" "import xcuda; xcuda.compile(SRC); import torch
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]): torch.ones(1, device='cuda')"
run "compile, del module, torch cuda" "import xcuda, gc; m = xcuda.compile(SRC); del m; gc.collect(); import torch; torch.ones(1, device='cuda')"
SRC='SRC = r"""extern "C" __global__ void inc(float* a) { a[threadIdx.x] += 1.0f; }
extern "C" __global__ void hello() { printf("hi\\n"); }"""'
for i in 1 2 3; do run "printf module: compile, torch profiler ($i)" "import xcuda; xcuda.compile(SRC); import torch
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof: torch.ones(10, device='cuda').sum()
print(len(prof.events()))"; done
run "printf module: compile, torch cuda" "import xcuda; xcuda.compile(SRC); import torch; torch.ones(10, device='cuda').sum()"
run "printf module: compile only" "import xcuda; xcuda.compile(SRC)"
if command -v gdb >/dev/null; then
  gdb -q -batch -ex run -ex bt --args python3 -c "$SRC
import xcuda; xcuda.compile(SRC); import torch; torch.ones(1, device='cuda')" 2>&1 | grep -E '^#' | head -25
else echo "no gdb"; fi

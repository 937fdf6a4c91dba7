"""xcuda.timeline against the profilers a user would otherwise reach for, on the GPU machine.

The same work as a notebook cell would hold (a numpy array copied in through CuPy, CuPy kernels, an
xcuda kernel on CuPy arrays, PyTorch kernels on the same memory, a synchronisation, a copy back and
a host pause) is recorded three ways:
- xcuda.timeline(work), in this process (CUPTI's Activity API);
- torch.profiler (Kineto, also CUPTI, also in process), its Chrome trace exported and read back;
- Nsight Systems (`nsys profile` on the same work as a script, then `nsys stats`), where nsys
  exists and can make a report (it could not on this workplace's GPU machines as of 2026-11).
For each: the kernels, copies and memsets counted, the GPU time of all kernels summed, and the
time from the start of recording to a result a user can read (for xcuda: the Timeline with its
summary and HTML; for torch.profiler: profile, export, read; for nsys: start, profile, export,
read). Goals: the same counts, durations within 5%, and time to the timeline <= 0.2x
the nsys run.

usage: python3 bench/timeline_vs_profilers.py [--iterations 10] [--json FILE]
"""
import argparse
import glob
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

N = 1 << 22
SCALE = r'''
extern "C" __global__ void scale(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3.0f * x[i];
}
'''

SCRIPT = r'''
import sys, time
import numpy as np, cupy, torch, xcuda
N, ITERATIONS = {n}, {iterations}
scale = xcuda.compile({source!r}).kernels["scale"]
host = np.random.default_rng(1).random(N, dtype=np.float32)

def work():
    for _ in range(ITERATIONS):
        x = cupy.asarray(host)                       # pageable HtoD
        y = cupy.empty_like(x)
        scale[(N + 255) // 256, 256](x, y, N)        # xcuda's kernel on CuPy's memory
        z = float((y * 2 + 1).sum())                 # CuPy's kernels, and a DtoH of the sum
        t = torch.as_tensor(y, device="cuda")        # the same memory, zero-copy
        u = torch.relu(t) * 3                        # PyTorch's kernels
        torch.cuda.synchronize()
        back = u.cpu().numpy()                       # DtoH
        time.sleep(0.002)                            # the host busy elsewhere: a gap

work()  # warm: CuPy compiles its kernels, PyTorch loads its own
'''


def device_counts_from_xcuda(timeline):
    recs = timeline.records
    kernels = [r for r in recs if r["kind"] == "kernel"]
    return {"kernels": len(kernels), "copies": sum(r["kind"] == "memcpy" for r in recs),
            "memsets": sum(r["kind"] == "memset" for r in recs),
            "kernel_ms": sum(r["end_ns"] - r["start_ns"] for r in kernels) / 1e6}


def device_counts_from_chrome(events):
    xs = [e for e in events if e.get("ph") == "X"]
    kernels = [e for e in xs if e.get("cat") == "kernel"]
    return {"kernels": len(kernels), "copies": sum(e.get("cat") == "gpu_memcpy" for e in xs),
            "memsets": sum(e.get("cat") == "gpu_memset" for e in xs),
            "kernel_ms": sum(float(e["dur"]) for e in kernels) / 1e3}


def find_nsys():
    found = shutil.which("nsys")
    if found:
        return found
    for pattern in ("/usr/local/cuda*/bin/nsys", "/opt/nvidia/nsight-systems*/bin/nsys",
                    "/opt/nvidia/nsight-systems*/*/bin/nsys"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def run_nsys(nsys, script_text, folder):
    """nsys profile on the work as a script, then its cuda_gpu_trace as CSV: counts and time."""
    path = os.path.join(folder, "work.py")
    with open(path, "w") as f:
        f.write(script_text + "\nwork()\n")
    report = os.path.join(folder, "work")
    t0 = time.perf_counter()
    profiled = subprocess.run([nsys, "profile", "-t", "cuda,nvtx", "-o", report, "--force-overwrite", "true",
                               sys.executable, path], capture_output=True, text=True, timeout=300)
    if profiled.returncode != 0 or not os.path.exists(report + ".nsys-rep"):
        return {"error": f"nsys profile exit {profiled.returncode}: {(profiled.stderr or profiled.stdout)[-400:]}"}
    stats = subprocess.run([nsys, "stats", "-r", "cuda_gpu_trace", "-f", "csv", "-o", report, report + ".nsys-rep"],
                           capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - t0
    csvs = glob.glob(report + "*cuda_gpu_trace*.csv")
    if stats.returncode != 0 or not csvs:
        return {"error": f"nsys stats exit {stats.returncode}: {(stats.stderr or stats.stdout)[-400:]}",
                "seconds": seconds}
    import csv
    with open(csvs[0]) as f:
        rows = list(csv.DictReader(f))
    # The script ran work() twice (warm-up, then measured): halve for one run's counts.
    names = [r.get("Name", "") for r in rows]
    copies = sum("[CUDA memcpy" in n for n in names)
    memsets = sum("[CUDA memset" in n for n in names)
    kernels = len(names) - copies - memsets
    kernel_ns = sum(float(r.get("Duration (ns)", 0) or 0) for r in rows if not r.get("Name", "").startswith("[CUDA"))
    return {"seconds": seconds, "kernels": kernels / 2, "copies": copies / 2, "memsets": memsets / 2,
            "kernel_ms": kernel_ns / 2e6}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--json")
    args = ap.parse_args()
    import xcuda
    if not xcuda.gpu_available():
        print("needs a GPU:", xcuda.driver_unavailable_reason())
        return 1
    script_text = SCRIPT.format(n=N, iterations=args.iterations, source=SCALE)
    namespace = {"__name__": "work_script"}
    exec(compile(script_text, "work_script", "exec"), namespace)
    work = namespace["work"]
    import torch

    out = {"device": str(xcuda.Device(0).name), "iterations": args.iterations}
    t0 = time.perf_counter()
    timeline = xcuda.timeline(work)
    summary, html = timeline.summary(), timeline._repr_html_()
    out["xcuda"] = dict(device_counts_from_xcuda(timeline), seconds=time.perf_counter() - t0,
                        summary=summary, html_bytes=len(html), dropped=timeline.trace.notes)

    folder = tempfile.mkdtemp(prefix="timeline-bench-")
    t0 = time.perf_counter()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]) as prof:
        work()
    trace_path = os.path.join(folder, "torch.json")
    prof.export_chrome_trace(trace_path)
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    out["torch_profiler"] = dict(device_counts_from_chrome(events), seconds=time.perf_counter() - t0)

    nsys = find_nsys()
    out["nsys"] = run_nsys(nsys, script_text, folder) if nsys else {"error": "no nsys on this machine (PATH, "
                                                                              "/usr/local/cuda*/bin, /opt/nvidia)"}
    out["nsys"]["path"] = nsys

    x, k = out["xcuda"], out["torch_profiler"]
    print("| recorder | kernels | copies | memsets | kernel time (ms) | start to result (s) |")
    print("|---|---|---|---|---|---|")
    for name in ("xcuda", "torch_profiler", "nsys"):
        r = out[name]
        if "error" in r and "kernels" not in r:
            print(f"| {name} | - | - | - | - | {r.get('seconds', '-')} ({r['error'][:120]}) |")
            continue
        print(f"| {name} | {r['kernels']} | {r['copies']} | {r['memsets']} | {r['kernel_ms']:.3f} | {r['seconds']:.2f} |")
    print(f"kernel time xcuda / torch.profiler: {x['kernel_ms'] / k['kernel_ms']:.3f}; "
          f"start to result xcuda / torch.profiler: {x['seconds'] / k['seconds']:.2f}")
    if "seconds" in out["nsys"] and "kernels" in out["nsys"]:
        print(f"start to result xcuda / nsys: {x['seconds'] / out['nsys']['seconds']:.3f} (goal <= 0.2)")
    print("xcuda's summary:", summary)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

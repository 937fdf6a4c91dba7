"""What compute-sanitizer prints for each kind of wrong kernel %%cuda_check must report, from an
xcuda launch in a child Python (the shape of the GPU path of %%cuda_check): the raw text goes to
OUT/sanitizer-<case>.txt, for the parser's fixtures and to check the parser against.
GPU machine: python3 bench/probes/sanitizer_formats.py OUT_DIR"""
import os
import shutil
import subprocess
import sys
import time

CASES = {
    # case: (tool, kernel source, launch code)
    "memcheck-oob-write": ("memcheck", r'''
extern "C" __global__ void twice(float* p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i] *= 2.0f;
}''', "a = xcuda.to_device(np.ones(1000, np.float32)); m.twice[4, 256](a, 1000)"),
    "racecheck-shared": ("racecheck", r'''
extern "C" __global__ void shift(float* p) {
    __shared__ float s[256];
    s[threadIdx.x] = p[threadIdx.x];
    p[threadIdx.x] = s[(threadIdx.x + 1) % 256];
}''', "a = xcuda.to_device(np.ones(256, np.float32)); m.shift[1, 256](a)"),
    "synccheck-divergent": ("synccheck", r'''
extern "C" __global__ void half_barrier(float* p) {
    if (threadIdx.x < 16) __syncthreads();
    p[threadIdx.x] = 1.0f;
}''', "a = xcuda.to_device(np.ones(64, np.float32)); m.half_barrier[1, 64](a)"),
    "initcheck-uninitialised": ("initcheck", r'''
extern "C" __global__ void copy(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}''', "src = xcuda.empty(512, np.float32); dst = xcuda.zeros(512, np.float32); m.copy[2, 256](src, dst, 512)"),
}


def main(out):
    os.makedirs(out, exist_ok=True)
    tool_path = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    for case, (tool, source, launch) in CASES.items():
        child = (f"import numpy as np, xcuda\nm = xcuda.compile({source!r}, lineinfo=True)\n{launch}\n"
                 "try:\n    xcuda.synchronize()\nexcept Exception as e:\n    print('SYNC', type(e).__name__, e)\n"
                 "print('CHILD DONE')\n")
        for extra in ([], ["--xml", "--save", os.path.join(out, f"{case}.xml")]) if case.startswith("memcheck") else ([],):
            start = time.monotonic()
            run = subprocess.run([tool_path, "--tool", tool, *extra, sys.executable, "-c", child],
                                 capture_output=True, text=True, timeout=120)
            name = case + ("-xml" if extra else "")
            with open(os.path.join(out, f"sanitizer-{name}.txt"), "w") as f:
                f.write(f"# rc={run.returncode} wall={time.monotonic() - start:.2f}s\n# STDOUT\n{run.stdout}\n# STDERR\n{run.stderr}")
            print(f"{name}: rc={run.returncode} {time.monotonic() - start:.2f} s, "
                  f"{sum('=========' in l for l in run.stdout.splitlines())} report lines")


if __name__ == "__main__":
    main(sys.argv[1])

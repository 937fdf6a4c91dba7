"""What compute-sanitizer prints for each kind of wrong kernel %%cuda_check must report, from an
xcuda launch in a child Python (the shape of the GPU path of %%cuda_check): the tool's report as
--log-file writes it, and the program's own stdout and stderr apart (a failed device assert prints
its line there), go to OUT/sanitizer-<case>.txt, for the parser's fixtures
(tests/magics/python/sanitizer_logs/) and to check the parser against. Each case's kernel is the
matching standalone probe's (bench/probes/checks/), as a cell.
GPU machine: python3 bench/probes/sanitizer_formats.py OUT_DIR [CASE ...]"""
import os
import shutil
import subprocess
import sys
import tempfile
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
    # m1: a float4 load one float past an aligned array
    "memcheck-misaligned-float4": ("memcheck", r'''
extern "C" __global__ void k(const float* in, float* out) {
    const float4* v = reinterpret_cast<const float4*>(in + 1);
    float4 a = v[threadIdx.x];
    out[threadIdx.x] = a.x + a.y + a.z + a.w;
}''', "i = xcuda.zeros(1024, np.float32); o = xcuda.zeros(32, np.float32); m.k[1, 32](i, o)"),
    # m2: a failed assert (its message is the program's output, not the tool's)
    "memcheck-assert": ("memcheck", r'''
#include <cassert>
extern "C" __global__ void k(const float* in, float* out) {
    int i = threadIdx.x;
    assert(in[i] > 0.0f);
    out[i] = 1.0f / in[i];
}''', "i = xcuda.zeros(32, np.float32); o = xcuda.zeros(32, np.float32); m.k[1, 32](i, o)"),
    # m3: saxpy with x null
    "memcheck-null-argument": ("memcheck", r'''
extern "C" __global__ void k(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}''', "y = xcuda.zeros(256, np.float32); m.k[1, 256](2.0, None, y, 256)"),
    # m8: a __device__ pointer nothing set; and (set) the same kernel once the notebook set it
    "memcheck-device-pointer-unset": ("memcheck", r'''
__device__ float* table;
extern "C" __global__ void k(float* out) { out[threadIdx.x] = table[threadIdx.x]; }''',
        "o = xcuda.zeros(32, np.float32); m.k[1, 32](o)"),
    "memcheck-device-pointer-set": ("memcheck", r'''
__device__ float* table;
extern "C" __global__ void k(float* out) { out[threadIdx.x] = table[threadIdx.x]; }''',
        "t = xcuda.to_device(np.arange(32, dtype=np.float32)); m.globals['table'].set(np.uint64(t.ptr))\n"
        "o = xcuda.zeros(32, np.float32); m.k[1, 32](o); xcuda.synchronize(); print('OUT', o.get()[:4])"),
    # m4, m5, m6, m10: the device heap
    "memcheck-heap-use-after-free": ("memcheck", r'''
extern "C" __global__ void k(int* out) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    p[threadIdx.x % 16] = threadIdx.x;
    free(p);
    out[threadIdx.x] = p[threadIdx.x % 16];
}''', "o = xcuda.zeros(32, np.int32); m.k[1, 32](o)"),
    "memcheck-heap-double-free": ("memcheck", r'''
extern "C" __global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    out[0] = p[0];
    free(p);
    free(p);
}''', "o = xcuda.zeros(32, np.int32); m.k[1, 32](o)"),
    "memcheck-heap-bad-free": ("memcheck", r'''
extern "C" __global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(64));
    p[0] = 1;
    free(p + 4);
    free(out);
}''', "o = xcuda.zeros(32, np.int32); m.k[1, 32](o)"),
    "memcheck-heap-overflow": ("memcheck", r'''
extern "C" __global__ void k(int* out) {
    if (threadIdx.x != 0) return;
    int* p = static_cast<int*>(malloc(4 * sizeof(int)));
    for (int i = 0; i <= 4; ++i) p[i] = i;
    out[0] = p[0];
    free(p);
}''', "o = xcuda.zeros(32, np.int32); m.k[1, 32](o)"),
}


def main(out, only=()):
    os.makedirs(out, exist_ok=True)
    tool_path = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    for case, (tool, source, launch) in CASES.items():
        if only and case not in only:
            continue
        child = (f"import numpy as np, xcuda\nm = xcuda.compile({source!r}, lineinfo=True)\n{launch}\n"
                 "try:\n    xcuda.synchronize()\nexcept Exception as e:\n    print('SYNC', type(e).__name__, e)\n"
                 "print('CHILD DONE')\n")
        for extra in ([], ["--xml", "--save", os.path.join(out, f"{case}.xml")]) if case == "memcheck-oob-write" else ([],):
            start = time.monotonic()
            with tempfile.TemporaryDirectory() as work:
                log_path = os.path.join(work, "tool.log")
                run = subprocess.run([tool_path, "--tool", tool, "--log-file", log_path, *extra, sys.executable, "-c",
                                      child], capture_output=True, text=True, timeout=120)
                log = open(log_path).read() if os.path.exists(log_path) else ""
            name = case + ("-xml" if extra else "")
            with open(os.path.join(out, f"sanitizer-{name}.txt"), "w") as f:
                f.write(f"# rc={run.returncode} wall={time.monotonic() - start:.2f}s\n# LOG\n{log}\n"
                        f"# STDOUT\n{run.stdout}\n# STDERR\n{run.stderr}")
            print(f"{name}: rc={run.returncode} {time.monotonic() - start:.2f} s, "
                  f"{sum(line.startswith('=========') for line in log.splitlines())} report lines")


if __name__ == "__main__":
    main(sys.argv[1], set(sys.argv[2:]))

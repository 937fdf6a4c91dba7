"""Probe: where an xcuda launch's host time goes, beside CuPy and cuda.core, on one stream.
Interleaved, 15 reps x 5000 calls, batch synced between reps (untimed). Prints median/min ns."""
import statistics, time, sys, os
import numpy as np
import cupy as cp
import xcuda

SRC = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + y[i];
}
extern "C" __global__ void empty() {}
'''
N, B = 4096, 256
G = N // B
s = cp.cuda.Stream(non_blocking=True)
h = s.ptr
mod = xcuda.compile(SRC, arch="sm_90")
k = mod.kernels["saxpy"]
ke = mod.kernels["empty"]
x, y, o = (cp.asarray(np.random.rand(N).astype(np.float32)) for _ in range(3))
xd, yd, od = (xcuda.to_device(np.random.rand(N).astype(np.float32)) for _ in range(3))
cubin = "/tmp/probe.cubin"
open(cubin, "wb").write(bytes(mod.cubin))
rk = cp.RawModule(path=cubin).get_function("saxpy")
rke = cp.RawModule(path=cubin).get_function("empty")
n32 = np.int32(N)
L = k[G, B, 0, h]
Le = ke[1, 32, 0, h]
rows = {
    "xcuda k[G,B,0,s](cupy x3, int)": lambda: k[G, B, 0, h](x, y, o, N),
    "xcuda prebound L(cupy x3, int)": lambda: L(x, y, o, N),
    "xcuda prebound L(DeviceArray x3, int)": lambda: L(xd, yd, od, N),
    "xcuda prebound empty kernel": lambda: Le(),
    "CuPy RawKernel (cupy x3, int32)": lambda: rk((G,), (B,), (x, y, o, n32)),
    "CuPy RawKernel empty": lambda: rke((1,), (32,), ()),
    "python: lambda + 4 cupy attr reads x3": lambda: (x.dtype, x._c_contiguous, x.size, x.data.ptr, y.dtype, y._c_contiguous, y.size, y.data.ptr, o.dtype, o._c_contiguous, o.size, o.data.ptr),
    "python: cupy get_current_stream().ptr": lambda: cp.cuda.get_current_stream().ptr,
    "python: empty lambda": lambda: None,
}
try:
    from cuda import core
    core.Device(0).set_current()
    kk = core.ObjectCode.from_cubin(cubin).get_kernel("saxpy")
    cs = core.Stream.from_handle(h)
    lc = core.LaunchConfig(grid=G, block=B)
    rows["cuda.core launch (cupy ptrs)"] = lambda: core.launch(cs, lc, kk, x.data.ptr, y.data.ptr, o.data.ptr, n32)
except Exception as e:
    print("cuda.core unavailable:", e)
try:
    import torch
    torch.cuda.set_stream(torch.cuda.ExternalStream(h))
    tx, ty, to = (torch.rand(N, device="cuda") for _ in range(3))
    rows["xcuda prebound L(torch x3, int)"] = lambda: L(tx, ty, to, N)
except Exception as e:
    print("torch unavailable:", e)

ITERS = int(os.environ.get("ITERS", "5000"))
samples = {r: [] for r in rows}
with s:
    for f in rows.values():
        for _ in range(300): f()
    s.synchronize()
    names = list(rows)
    for rep in range(15):
        k0 = rep % len(names)
        for name in names[k0:] + names[:k0]:
            f = rows[name]
            t0 = time.perf_counter_ns()
            for _ in range(ITERS): f()
            samples[name].append((time.perf_counter_ns() - t0) / ITERS)
            s.synchronize()
for name, v in samples.items():
    print(f"{name:45s} median {statistics.median(v):8.0f}  min {min(v):8.0f} ns")

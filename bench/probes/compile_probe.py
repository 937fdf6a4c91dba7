"""Probe: where a cold small-kernel compile's time goes on this machine. NVRTC phases (-time),
NVRTC->cubin vs NVRTC->PTX + the driver's JIT (cuModuleLoadDataEx) vs PTX + cuLink, vs nvcc -cubin.
Unique device-variable salt per trial; CUDA_CACHE_DISABLE=1 so the driver's cache cannot answer."""
import ctypes, csv, os, statistics, subprocess, sys, tempfile, time, uuid
os.environ["CUDA_CACHE_DISABLE"] = "1"
nvrtc = ctypes.CDLL(os.environ.get("NVRTC", "/usr/local/cuda/lib64/libnvrtc.so"))
cuda = ctypes.CDLL("libcuda.so.1")
SAXPY = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + y[i];
}
'''
def ck(r, what):
    if r: raise RuntimeError(f"{what} -> {r}")
ck(cuda.cuInit(0), "cuInit")
dev = ctypes.c_int(); ck(cuda.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p(); ck(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain"); ck(cuda.cuCtxSetCurrent(ctx), "set")
tmp = tempfile.mkdtemp()
phases = {}

def salted():
    return SAXPY + f"\n__device__ int bench_salt_{uuid.uuid4().hex};\n"

def nvrtc_compile(src, opts, want):
    p = ctypes.c_void_p()
    ck(nvrtc.nvrtcCreateProgram(ctypes.byref(p), src.encode(), b"cell.cu", 0, None, None), "create")
    tf = os.path.join(tmp, "t.csv")
    if os.path.exists(tf): os.remove(tf)
    o = list(opts) + [f"-time={tf}"]
    arr = (ctypes.c_char_p * len(o))(*[x.encode() for x in o])
    r = nvrtc.nvrtcCompileProgram(p, len(o), arr)
    if r:
        n = ctypes.c_size_t(); nvrtc.nvrtcGetProgramLogSize(p, ctypes.byref(n)); log = ctypes.create_string_buffer(n.value); nvrtc.nvrtcGetProgramLog(p, log)
        raise RuntimeError(log.value.decode())
    n = ctypes.c_size_t()
    if want == "cubin":
        ck(nvrtc.nvrtcGetCUBINSize(p, ctypes.byref(n)), "cubinsize"); b = ctypes.create_string_buffer(n.value); ck(nvrtc.nvrtcGetCUBIN(p, b), "cubin")
    else:
        ck(nvrtc.nvrtcGetPTXSize(p, ctypes.byref(n)), "ptxsize"); b = ctypes.create_string_buffer(n.value); ck(nvrtc.nvrtcGetPTX(p, b), "ptx")
    nvrtc.nvrtcDestroyProgram(ctypes.byref(p))
    key = " ".join(opts)
    for row in list(csv.reader(open(tf)))[1:]:
        phases.setdefault(key, {}).setdefault(row[1].strip(), []).append(float(row[2]))
    return b

def load(image):
    m = ctypes.c_void_p()
    ck(cuda.cuModuleLoadData(ctypes.byref(m), image), "load")
    f = ctypes.c_void_p(); ck(cuda.cuModuleGetFunction(ctypes.byref(f), m, b"saxpy"), "getfn")
    cuda.cuModuleUnload(m)

def link(ptx):
    st = ctypes.c_void_p()
    ck(cuda.cuLinkCreate_v2(0, None, None, ctypes.byref(st)), "linkcreate")
    ck(cuda.cuLinkAddData_v2(st, 1, ptx, len(ptx.raw), b"cell.ptx", 0, None, None), "linkadd")  # CU_JIT_INPUT_PTX = 1
    out = ctypes.c_void_p(); sz = ctypes.c_size_t()
    ck(cuda.cuLinkComplete(st, ctypes.byref(out), ctypes.byref(sz)), "linkcomplete")
    img = ctypes.string_at(out, sz.value)
    cuda.cuLinkDestroy(st)
    return img

base = ["-std=c++17", "-minimal"]
trials = {
    "nvrtc cubin -minimal (xcuda today)": lambda: load(nvrtc_compile(salted(), ["-arch=sm_90", *base, "-Xptxas", "-v"], "cubin")),
    "nvrtc cubin -minimal, no -Xptxas -v": lambda: load(nvrtc_compile(salted(), ["-arch=sm_90", *base], "cubin")),
    "nvrtc ptx -minimal + driver JIT load": lambda: load(nvrtc_compile(salted(), ["-arch=compute_90", *base], "ptx")),
    "nvrtc ptx -minimal + cuLink + load": lambda: load(link(nvrtc_compile(salted(), ["-arch=compute_90", *base], "ptx"))),
    "nvrtc ptx -minimal only": lambda: nvrtc_compile(salted(), ["-arch=compute_90", *base], "ptx"),
}
def nvcc():
    cu = os.path.join(tmp, "k.cu"); open(cu, "w").write(salted())
    subprocess.run(["/usr/local/cuda/bin/nvcc", "-cubin", "-arch=sm_90", "-o", cu + ".cubin", cu], check=True)
trials["nvcc -cubin"] = nvcc
for f in trials.values(): f()
phases.clear()
samples = {k: [] for k in trials}
names = list(trials)
for rep in range(int(os.environ.get('REPS', '25'))):
    k0 = rep % len(names)
    for nm in names[k0:] + names[:k0]:
        t0 = time.perf_counter(); trials[nm](); samples[nm].append((time.perf_counter() - t0) * 1e3)
for nm, v in samples.items():
    print(f"{nm:42s} median {statistics.median(v):7.1f} min {min(v):7.1f} ms")
for key, ph in phases.items():
    print(key, {k: statistics.median(v) for k, v in ph.items()})

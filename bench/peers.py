"""Imports of xcuda and the peers (each recorded as a module or the exact reason it is
missing), the CUDA sources every part shares, nvcc helpers, and the few adapters that
turn one shared stream / one shared cubin into each library's own objects."""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Sequence

from timing import describe

ARCH = "sm_90"
NVCC = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")

# 3 device arrays + an int: the launch part's goals are stated for this signature.
SAXPY = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * x[i] + y[i];
}
'''

# No arguments, no work: what a launch costs before any argument is read (launch part's context rows).
EMPTY = r'''
extern "C" __global__ void empty() {}
'''

# One source, two kernels: the vectorised add (one float4 per thread) and a scalar add.
ADD = r'''
extern "C" __global__ void add4(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n >> 2;
    if (i < n4) {
        float4 x = reinterpret_cast<const float4*>(a)[i];
        float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    int t = (n4 << 2) + i;
    if (i < (n & 3)) c[t] = a[t] + b[t];
}
extern "C" __global__ void add1(const float* __restrict__ a, const float* __restrict__ b,
                                float* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
'''

# A header-heavy cell: libcu++ maths and cooperative groups.
HEAVY = r'''
#include <cuda/std/cmath>
#include <cuda/std/limits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
extern "C" __global__ void norm_rows(const float* x, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float s = cg::reduce(warp, v * v, cg::plus<float>());
    if (warp.thread_rank() == 0 && i < n) out[i / 32] = cuda::std::sqrt(s) + cuda::std::numeric_limits<float>::epsilon();
}
'''

# A compute-heavy cell for --fast-compile: C = A B (n x n row-major floats, n a multiple of 128),
# 128 x 128 tiles per block of 256 threads, 8 x 8 outputs per thread, every inner loop unrolled
# and the k loop by 4: most of its compile time is optimisation, which --Ofast-compile trades.
MATMUL = r'''
#include <cuda/std/cmath>
constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = (BM / TM) * (BN / TN);
extern "C" __global__ void __launch_bounds__(THREADS) matmul(const float* __restrict__ a, const float* __restrict__ b,
                                                            float* __restrict__ c, int n) {
    __shared__ float as[BK][BM];
    __shared__ float bs[BK][BN];
    const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
#pragma unroll 4
    for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            const int idx = threadIdx.x + l * THREADS;
            as[idx % BK][idx / BK] = a[(row0 + idx / BK) * n + k0 + idx % BK];
            bs[idx / BN][idx % BN] = b[(k0 + idx / BN) * n + col0 + idx % BN];
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float ar[TM], br[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) ar[i] = as[kk][ty * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j) br[j] = bs[kk][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) c[(row0 + ty * TM + i) * n + col0 + tx * TN + j] = cuda::std::copysign(cuda::std::abs(acc[i][j]), acc[i][j]);
}
'''
MATMUL_TILE, MATMUL_THREADS = 128, 256


def salted(src: str, salt: str) -> str:
    """A source no cache has seen; the salt goes last so that the #include prefix, which
    precompiled headers key on, stays the same. The salt is a device variable, not a comment:
    a comment leaves the PTX unchanged, and the driver's compute cache, which NVRTC consults
    when a GPU is present, then hands back the CUBIN without running ptxas, so a "cold"
    compile would time the front end alone (seen on the H200, 2026-12-02)."""
    return f"{src}\n__device__ int bench_salt_{salt};\n"


class Env:
    """What this process could import; every failure keeps its exact reason."""

    def __init__(self, xcuda_path: Optional[str], want: Optional[Sequence[str]] = None):
        """`want` limits the imports (child processes skip torch's seconds of import);
        numpy and CuPy are always tried: CuPy is how the benchmark finds the GPU."""
        self.reasons: Dict[str, str] = {}
        if xcuda_path:
            sys.path.insert(0, os.path.abspath(xcuda_path))

        def wanted(name):
            return want is None or name in want
        self.xcuda = self._try("xcuda") if wanted("xcuda") else None
        self.np = self._try("numpy")
        self.cp = self._try("cupy")
        self.torch = self._try("torch") if wanted("torch") else None
        # what the benchmark changed in other libraries so that a peer imports; in the report
        self.shims: List[str] = []
        if wanted("numba.cuda"):
            self.shims += numpy_row_stack_shim(self.np)
            self.numba_cuda = self._try("numba.cuda")
        else:
            self.numba_cuda = None
        self.cuda_core = self._try_core() if wanted("cuda.core") else None
        self.gpu_reason = self._probe_gpu()

    def _try(self, name: str):
        try:
            return importlib.import_module(name)
        except Exception as exc:
            self.reasons[name] = describe(exc)
            return None

    def _try_core(self):
        # cuda.core moved out of cuda.core.experimental in 0.4; accept either.
        for name in ("cuda.core", "cuda.core.experimental"):
            try:
                mod = importlib.import_module(name)
                if hasattr(mod, "Program"):
                    return mod
            except Exception as exc:
                self.reasons["cuda.core"] = describe(exc)
        self.reasons.setdefault("cuda.core", "cuda.core has no Program")
        return None

    def _probe_gpu(self) -> Optional[str]:
        if self.cp is None:
            return "cupy is needed to drive the GPU parts: " + self.reasons.get("cupy", "")
        try:
            n = self.cp.cuda.runtime.getDeviceCount()
            return None if n > 0 else "no CUDA device (device count 0)"
        except Exception as exc:
            return "no CUDA device: " + describe(exc)

    @property
    def has_gpu(self) -> bool:
        return self.gpu_reason is None

    def why(self, name: str) -> str:
        return "import failed: " + self.reasons.get(name, "unknown")

    def xcuda_or_raise(self):
        if self.xcuda is None:
            raise RuntimeError(self.why("xcuda") + " (pass --xcuda-path DIR holding the built xcuda module)")
        return self.xcuda


def numpy_row_stack_shim(np) -> List[str]:
    """numba 0.68 reads numpy.row_stack at import, which numpy 2.5 removed (an alias of vstack
    until then; seen on the H200 machine: numba 0.68, numpy 2.5). Put the alias back, only where
    it is missing, and say so: the report lists every such change."""
    if np is None or hasattr(np, "row_stack"):
        return []
    np.row_stack = np.vstack
    return [f"numpy.row_stack = numpy.vstack (numpy {getattr(np, '__version__', '?')} has no "
            "row_stack; numba reads it at import)"]


# ---------------------------------------------------------------- xcuda adapters
# The Python contract (docs/DESIGN.md): xcuda.compile(src, **options) -> Module with .kernels
# and .cubin; Kernel[grid, block, shared_mem, stream](*args).

def xcuda_compile(xc, src: str, extra: Sequence[str] = ()):
    """Compile to an sm_90 cubin; `extra` are raw NVRTC options such as -pch, passed through
    xcuda.compile's `options=` (its other keywords: name, arch, std, include_dirs, defines,
    instantiate, fast_math, lineinfo, no_cache)."""
    if extra:
        return xc.compile(src, arch=ARCH, options=list(extra))
    return xc.compile(src, arch=ARCH)


def xcuda_kernel(module, name: str):
    return module.kernels[name]


def xcuda_loaded_kernel(module, name: str, gpu: bool):
    """The kernel with its module loaded on the device, as CuPy's `.kernel` and cuda.core's
    get_kernel leave it: xcuda loads lazily, and reading `.attributes` forces the load."""
    kernel = module.kernels[name]
    if gpu:
        kernel.attributes
    return kernel


def expect_cache(module, want: str) -> None:
    """xcuda says where a compile came from ('none', 'memory', 'disk'): a timed hit that was
    really a compile (or the reverse) would be a wrong number, so it fails the row."""
    got = getattr(module, "cache", want)
    if got != want:
        raise RuntimeError(f"xcuda.compile reported cache={got!r} where the benchmark expects {want!r}")


def xcuda_cubin(module) -> bytes:
    return bytes(module.cubin)


def xcuda_stream(handle: int):
    """xcuda's launch takes a stream as an xcuda.Stream, any object with __cuda_stream__, or an
    int handle; the benchmark's stream belongs to CuPy, so xcuda gets its int handle (the same
    CUstream every other peer launches on)."""
    return handle


# ---------------------------------------------------------------- nvcc helpers

def nvcc_cubin(src: str, workdir: str, stem: str = "k", extra: Sequence[str] = ()) -> str:
    cu = os.path.join(workdir, stem + ".cu")
    out = os.path.join(workdir, stem + ".cubin")
    with open(cu, "w") as f:
        f.write(src)
    run_checked([NVCC, "-cubin", f"-arch={ARCH}", *extra, "-o", out, cu])
    return out


def run_checked(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    p = subprocess.run(list(cmd), capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}: {(p.stderr or p.stdout).strip()[-600:]}")
    return p


def fresh_dir(prefix: str) -> str:
    return tempfile.mkdtemp(prefix=f"xcuda-bench-{prefix}-")


# ---------------------------------------------------------------- cuda.core adapters

def core_stream(core, handle: int):
    stream_type = core.Stream
    if hasattr(stream_type, "from_handle"):
        return stream_type.from_handle(handle)

    class _Foreign:
        def __cuda_stream__(self):
            return (0, handle)
    return core.Device().create_stream(_Foreign())


# ---------------------------------------------------------------- descriptions

def versions(env: Env) -> Dict[str, str]:
    from importlib import metadata
    out = {"python": sys.version.split()[0] + f" ({sys.executable})"}
    for dist in ("numpy", "cupy-cuda13x", "cupy-cuda12x", "cupy", "torch", "numba", "numba-cuda",
                 "cuda-core", "cuda-bindings", "cuda-python", "jupyter_client", "ipykernel"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            pass
    xc = env.xcuda
    if xc is not None:
        out["xcuda"] = f"{getattr(xc, '__version__', 'no __version__')} ({getattr(xc, '__file__', '?')})"
    else:
        out["xcuda"] = env.why("xcuda")
    try:
        line = run_checked([NVCC, "--version"]).stdout.strip().splitlines()[-1]
        out["nvcc"] = line
    except Exception as exc:
        out["nvcc"] = "unavailable: " + describe(exc)
    out["nvrtc"] = nvrtc_version()
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        rev = run_checked(["git", "-C", here, "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = run_checked(["git", "-C", here, "status", "--porcelain", "--", "."]).stdout.strip()
        out["bench git"] = rev + (" (bench/ has uncommitted changes)" if dirty else "")
    except Exception as exc:
        out["bench git"] = "unavailable: " + describe(exc)
    return out


def nvrtc_version() -> str:
    import ctypes
    for name in ("libnvrtc.so", "libnvrtc.so.13", os.path.join(CUDA_HOME, "lib64", "libnvrtc.so")):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        major, minor = ctypes.c_int(), ctypes.c_int()
        if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) == 0:
            return f"{major.value}.{minor.value}"
    return "unavailable: libnvrtc not found"


def device_info(env: Env) -> Dict[str, str]:
    info = {"device": "cpu-only", "driver": "none"}
    try:
        q = run_checked(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                         "--format=csv,noheader"], timeout=30).stdout.strip().splitlines()[0]
        name, driver, mem, clk = [s.strip() for s in q.split(",")]
        info.update(device=name, driver=driver, memory=mem, max_sm_clock=clk)
    except Exception as exc:
        info["nvidia-smi"] = "unavailable: " + describe(exc)
    if env.has_gpu:
        rt = env.cp.cuda.runtime
        props = rt.getDeviceProperties(0)
        name = props["name"]
        info["device"] = name.decode() if isinstance(name, bytes) else str(name)
        info["compute capability"] = f"{props['major']}.{props['minor']}"
        info["driver API version"] = str(rt.driverGetVersion())
        info["runtime version (CuPy)"] = str(rt.runtimeGetVersion())
    else:
        info["gpu"] = env.gpu_reason
    return info


def shared_cubin(env: Env, src: str, stem: str, workdir: str):
    """Build `src` once with xcuda and write its cubin so that every peer loads the very
    same code; when xcuda fails, fall back to nvcc -cubin so the peers still run.
    Returns (xcuda module or None, why xcuda failed or None, cubin path, note)."""
    try:
        xc = env.xcuda_or_raise()
        module = xcuda_compile(xc, src)
        path = os.path.join(workdir, stem + ".cubin")
        with open(path, "wb") as f:
            f.write(xcuda_cubin(module))
        return module, None, path, "cubin built by xcuda.compile"
    except Exception as exc:
        path = nvcc_cubin(src, workdir, stem)
        return None, describe(exc), path, "cubin built by nvcc -cubin (xcuda failed)"

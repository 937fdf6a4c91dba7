"""Which xcuda step leaves torch.profiler without CUPTI: each step in a fresh process, then torch.profiler."""
import subprocess, sys
STEPS = {
    "torch only": "",
    "import xcuda": "import xcuda",
    "compile": "import xcuda; xcuda.compile(SRC)",
    "launch": "import xcuda, numpy as np; k = xcuda.compile(SRC).kernels['inc']; a = np.zeros(64, np.float32); k[1, 64](a); assert a[0] == 1",
    "launch+device array": "import xcuda, numpy as np; k = xcuda.compile(SRC).kernels['inc']; d = xcuda.to_device(np.zeros(64, np.float32)); k[1, 64](d); xcuda.synchronize()",
    "printf": "import xcuda, numpy as np; k = xcuda.compile(SRC).kernels['hello']; k[1, 1](); xcuda.synchronize()",
    "ipython ext": "from IPython.testing.globalipapp import start_ipython; ip = start_ipython(); ip.run_line_magic('load_ext', 'xcuda')",
}
TAIL = r'''
import torch
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    torch.ones(10, device="cuda").sum()
print(len(prof.events()))
'''
SRC = 'SRC = r"""extern "C" __global__ void inc(float* a) { a[threadIdx.x] += 1.0f; }\nextern "C" __global__ void hello() { printf("hi\\n"); }"""\n'
for name, step in STEPS.items():
    r = subprocess.run([sys.executable, "-c", SRC + step + "\n" + TAIL], capture_output=True, text=True, timeout=120)
    print(f"{name:22s} rc={r.returncode} torch events={r.stdout.strip().splitlines()[-1] if r.stdout.strip() else '-'} {r.stderr.strip().splitlines()[-1][:150] if r.returncode else ''}")

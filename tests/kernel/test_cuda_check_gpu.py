"""%%cuda_check in the hosted kernel on a GPU: an out-of-bounds write, a
shared-memory race, a barrier not every thread reaches and a read of memory nothing wrote, each
found under compute-sanitizer at its cell line with the parameter named, and a correct launch
working in the same notebook after each (the checked launches never ran in its context).
GPU machine only: skipped, with the reason, where the kernel has no GPU or no compute-sanitizer."""
import pytest

from conftest import execute, run_ok, stream_text

CELL = r'''%%cuda
extern "C" __global__ void scale(float* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) v[i] *= 2.0f;
}
extern "C" __global__ void shift(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
extern "C" __global__ void half_barrier(float* p) {
    if (threadIdx.x < 16) __syncthreads();
    p[threadIdx.x] = 1.0f;
}
extern "C" __global__ void copy(const float* src, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[i];
}
'''

# (tool, setup, launch, (kind, line, parameter or None))
CASES = {
    "out_of_bounds_write": ("memcheck", "a = np.ones(100, np.float32)", "scale[1, 128](a, 100)",
                            ("out_of_bounds", 4, "v")),
    "shared_race": ("racecheck", "a = np.zeros(64, np.int32)", "shift[1, 64](a)", ("shared_race", 8, None)),
    "divergent_barrier": ("synccheck", "a = np.zeros(64, np.float32)", "half_barrier[1, 64](a)",
                          ("divergent_barrier", 12, None)),
    "uninitialised_read": ("initcheck", "a = xcuda.empty(512, np.float32); b = xcuda.zeros(512, np.float32)",
                           "copy[2, 256](a, b, 512)", ("uninitialised_read", 17, "src")),
}


@pytest.fixture(scope="module")
def gpu_checking_kernel(isolated_kernel):
    km, kc = isolated_kernel
    messages = run_ok(kc, "import numpy as np, xcuda\nfrom xcuda import _sanitizer\n"
                          "print(xcuda.gpu_available(), _sanitizer.find_tool() is not None)")
    if stream_text(messages).split() != ["True", "True"]:
        pytest.skip("the kernel has no CUDA GPU or no compute-sanitizer (xcuda.gpu_available(), "
                    f"_sanitizer.find_tool(): {stream_text(messages).split()}); the GPU machine runs these")
    run_ok(kc, CELL)
    return km, kc


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_kind_of_wrong_kernel_is_found_at_its_line_and_the_notebook_gpu_still_works(gpu_checking_kernel, case):
    km, kc = gpu_checking_kernel
    tool, setup, launch, (kind, line, parameter) = CASES[case]
    run_ok(kc, setup)
    reply, messages = execute(kc, f"%%cuda_check --tool {tool}\n{launch}\n", timeout=120)
    assert reply["content"]["status"] == "ok"
    run_ok(kc, "r = _\nprint(r)\nf = r.findings[0]")  # the report, in the log of the GPU machine's run
    messages = run_ok(kc, "print(f.kind, f.line, f.parameter)")
    assert stream_text(messages).split() == [kind, str(line), str(parameter)], stream_text(messages)
    # the notebook's own GPU context: a correct launch right after
    messages = run_ok(kc, "w = np.ones(100, np.float32)\nscale[1, 128](w, 99)\nxcuda.synchronize()\n"
                          "print(float(w.sum()))")
    assert stream_text(messages).strip() == "200.0"

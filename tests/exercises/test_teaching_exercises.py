"""02-teaching's three exercises, graded by xcuda.grade: defined in its hidden cell, each solved by a
right kernel and not by its stub."""
import nbformat
import pytest

import xcuda
from conftest import ROOT, kernel_of, requires_device

pytestmark = requires_device
TEACHING = ROOT / "notebooks" / "02-teaching.ipynb"

SOLUTIONS = {
    "teaching-affine": ("affine", r'''
extern "C" __global__ void affine(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 3 * x[i] + 1;
}'''),
    "teaching-block-max": ("block_max", r'''
#include <cmath>
extern "C" __global__ void block_max(const float* x, float* partial, int n) {
    extern __shared__ float buf[];
    float m = -INFINITY;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) m = fmaxf(m, x[i]);
    buf[threadIdx.x] = m;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) buf[threadIdx.x] = fmaxf(buf[threadIdx.x], buf[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = buf[0];
}'''),
    "teaching-histogram": ("histogram", r'''
extern "C" __global__ void histogram(const int* values, int* bins, int n, int nbins) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[values[i]], 1);
}'''),
}


@pytest.fixture(scope="module")
def cells():
    nb = nbformat.read(TEACHING, as_version=4)
    defs = next(c.source for c in nb.cells if c.cell_type == "code" and "xcuda.exercise(" in c.source)
    exec(defs, {"np": __import__("numpy"), "xcuda": xcuda})
    return {c.source.split("__global__ void ")[1].split("(")[0]: c.source[len("%%cuda\n"):]
            for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%cuda\n")}


@pytest.mark.parametrize("name", SOLUTIONS)
def test_each_teaching_exercise_is_solved_by_a_right_kernel_and_not_by_its_stub(name, cells):
    kernel, source = SOLUTIONS[name]
    assert xcuda.grade(kernel_of(source, kernel), name).solved
    stub = xcuda.grade(kernel_of(cells[kernel], kernel), name)
    assert stub.not_started, str(stub)


def test_block_max_without_the_launchs_shared_memory_size_in_mind_overruns_it(cells):
    kernel, source = SOLUTIONS["teaching-block-max"]
    # A tree over 256 slots where the launch gives 128 floats (512 bytes) of dynamic shared memory.
    wrong = source.replace("for (unsigned s = blockDim.x / 2;", "for (unsigned s = blockDim.x;")
    t = next(t for t in xcuda.grade(kernel_of(wrong, kernel), "teaching-block-max").tests if not t.passed)
    assert t.finding is not None and t.finding.kind == "out_of_bounds", t.outcome

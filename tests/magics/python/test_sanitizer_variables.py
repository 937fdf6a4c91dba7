"""%%cuda_check on a GPU carries the notebook's __constant__/__device__ variables into its checking
process: their values, and each pointer among them moved to the child's copy of what it points
into (a launch argument, another variable, an array the notebook's namespace holds). Tested here
with two modules of one process standing for the notebook's and the child's (no GPU or
compute-sanitizer needed: any device that runs kernels)."""
import numpy as np
import pytest

import xcuda
from xcuda import _sanitizer, _sanitizer_child
from conftest import requires_kernels

pytestmark = requires_kernels

SOURCE = r'''
__device__ float* table;
__device__ int counter;
__constant__ float scale[2];
extern "C" __global__ void lookup(const float* in, float* out) {
    out[threadIdx.x] = table[threadIdx.x] * scale[0] + in[threadIdx.x];
    atomicAdd(&counter, 1);
}
'''


def child_run(variables, extras, args):
    """What the child does with the payload: its own module (compiled apart from the notebook's),
    copies of the arguments and extras, the variables set, one launch."""
    kernel = xcuda.compile(SOURCE, no_cache=True).lookup
    device_args, arrays = _sanitizer_child.device_arguments([_sanitizer._host_copy(a, any_device=True)[0] for a in args])
    _, extra_arrays = _sanitizer_child.device_arguments(extras)
    _sanitizer_child.set_variables(kernel, variables, arrays, extra_arrays)
    kernel(*device_args, grid=1, block=32)
    xcuda.synchronize()
    return kernel, arrays


def test_a_pointer_into_an_array_of_the_notebooks_namespace_is_carried_with_that_array(ip):
    notebook = xcuda.compile(SOURCE).lookup
    t = xcuda.to_device(np.arange(40, dtype=np.float32))
    ip.user_ns["lookup_table"] = t
    notebook._globals["table"].set(np.uint64(t.ptr + 8))  # two elements in
    notebook._globals["counter"].set(5)
    notebook._globals["scale"].set(np.float32([3, 0]))
    x = xcuda.to_device(np.ones(32, np.float32))
    out = xcuda.zeros(32, np.float32)
    variables, extras, nulls = _sanitizer._module_variables(notebook, [(0, x.ptr, x.nbytes), (1, out.ptr, out.nbytes)])
    assert nulls == []
    pointers = {name: p for name, _, p in variables}
    assert pointers["table"] == [(0, "extra", 0, 8)] and pointers["counter"] == [] and pointers["scale"] == []
    assert len(extras) == 1 and extras[0][0][1].tolist() == list(range(40))
    kernel, arrays = child_run(variables, [spec for spec, _ in extras], [x, out])
    assert arrays[1][4].get().tolist() == [3.0 * (i + 2) + 1.0 for i in range(32)]
    assert int(kernel._globals["counter"].get()) == 37
    del ip.user_ns["lookup_table"]


def test_a_pointer_into_a_launch_argument_points_at_the_childs_copy_of_it():
    notebook = xcuda.compile(SOURCE).lookup
    x = xcuda.to_device(np.full(32, 2.0, np.float32))
    out = xcuda.zeros(32, np.float32)
    notebook._globals["table"].set(np.uint64(x.ptr))
    notebook._globals["scale"].set(np.float32([1, 0]))
    variables, extras, _ = _sanitizer._module_variables(notebook, [(0, x.ptr, x.nbytes), (1, out.ptr, out.nbytes)])
    assert dict((name, p) for name, _, p in variables)["table"] == [(0, "argument", 0, 0)] and extras == []
    _, arrays = child_run(variables, [], [x, out])
    assert arrays[1][4].get().tolist() == [4.0] * 32


def test_a_device_pointer_the_notebook_never_set_is_named_as_null():
    notebook = xcuda.compile(SOURCE.replace("table", "unset_table")).lookup
    variables, _, nulls = _sanitizer._module_variables(notebook, [])
    assert nulls == ["unset_table"]
    assert dict((name, p) for name, _, p in variables)["unset_table"] == []


def test_a_null_device_pointer_is_offered_as_the_culprit_only_for_the_kernels_that_read_it():
    # compute-sanitizer says only "address 0x0": of a null argument and a null __device__ pointer,
    # the pointer is a suspect only for a kernel whose code names it.
    m = xcuda.compile(r'''
__device__ float* lut;
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void gather(float* out) { out[threadIdx.x] = lut[threadIdx.x]; }
''')
    assert not _sanitizer._kernel_may_read(m.axpy, "lut")
    assert _sanitizer._kernel_may_read(m.gather, "lut")

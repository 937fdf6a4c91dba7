"""Relocatable device code: -dc cells are device-linked with nvJitLink, so kernels
can launch kernels, and a later cell can call a __device__ function an earlier cell defined."""
import numpy as np
import pytest

import xcuda
from conftest import CPU_DEVICE, LOADED, requires_gpu, requires_kernels

DEFINES = r'''%%cuda -- -dc
__device__ int twice_dl(int x) { return 2 * x; }
extern "C" __global__ void child_dl(int* out) { out[threadIdx.x] = twice_dl(threadIdx.x); }
extern "C" __global__ void parent_dl(int* out) { child_dl<<<1, 8>>>(out); }
'''
USES = r'''%%cuda -- -dc
__device__ int twice_dl(int x);
extern "C" __global__ void user_dl(int* out) { out[threadIdx.x] = twice_dl(threadIdx.x) + 1; }
'''


def run(ip, cell):
    r = ip.run_cell(cell)
    return r


def test_a_later_cell_links_against_an_earlier_cells_device_function(ip):
    assert run(ip, DEFINES).success
    r = run(ip, USES)
    assert r.success, r.error_in_exec
    assert "user_dl" in ip.user_ns


def test_a_declared_but_never_defined_function_is_named_with_the_fix(ip):
    r = run(ip, '%%cuda -- -dc\n__device__ float never_defined_dl(float);\n'
                'extern "C" __global__ void k_dl(float* p) { p[0] = never_defined_dl(p[0]); }\n')
    assert not r.success
    e = r.error_in_exec
    assert type(e).__name__ == "CompileError"
    assert "uses `never_defined_dl(float)`" in str(e) and "no earlier %%cuda -dc cell defines" in str(e)


@requires_kernels  # dynamic parallelism: the GPU links the device runtime, the CPU device implements it
def test_a_kernel_launches_a_kernel_from_the_device(ip):
    assert run(ip, DEFINES).success
    out = np.zeros(8, np.int32)
    ip.user_ns["parent_dl"][1, 1](out)
    assert out.tolist() == [2 * i for i in range(8)]


@requires_gpu  # the CPU device does not link -dc cells (it runs each cell's own PTX)
def test_the_linked_function_runs_the_newest_definition(ip):
    assert run(ip, DEFINES).success
    assert run(ip, USES).success
    out = np.zeros(8, np.int32)
    ip.user_ns["user_dl"][1, 8](out)
    assert out.tolist() == [2 * i + 1 for i in range(8)]
    assert run(ip, '%%cuda -- -dc\n__device__ int twice_dl(int x) { return 20 * x; }\n').success
    assert run(ip, USES).success
    ip.user_ns["user_dl"][1, 8](out)
    assert out.tolist() == [20 * i + 1 for i in range(8)]


@pytest.mark.skipif(LOADED is not CPU_DEVICE, reason="checks the CPU device; this run uses another")
def test_on_the_cpu_device_a_call_into_another_cell_says_where_to_define_it(ip):
    assert run(ip, DEFINES).success
    assert run(ip, USES).success
    with pytest.raises(xcuda.KernelCheckError) as e:
        ip.user_ns["user_dl"][1, 8](np.zeros(8, np.int32))
    assert e.value.kind == "unsupported" and e.value.line == 3
    assert "-dc" in str(e.value) and "%%cuda_header" in str(e.value)

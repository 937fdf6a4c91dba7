"""Parameters passed by value that are not plain scalars: aliases of scalars, CUDA
vector types, complex numbers, enums, structs; C++ default arguments. Their sizes come from the
compiled PTX; packing is checked byte for byte without a GPU, and the launches on one."""
import ctypes
import struct

import numpy as np
import pytest

import xcuda
from conftest import requires_kernels

SOURCE = r'''
#include <cuComplex.h>
#include <cuda_fp16.h>
typedef unsigned int uint;
using real = double;
struct Particle { int id; double mass; char tag; };
enum Color { red, green, blue };
extern "C" __global__ void by_value(uint u, real r, float2 f2, double3 d3, int4 i4, cuDoubleComplex z,
                                    cuFloatComplex zf, Particle p, Color c, __half2 h2, uint* pu,
                                    float2* pf2, float scale = 1.5f, int n = -3) {}
'''
PARTICLE = np.dtype([("id", "i4"), ("mass", "f8"), ("tag", "i1")], align=True)


class CParticle(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("mass", ctypes.c_double), ("tag", ctypes.c_byte)]


@pytest.fixture(scope="module")
def kernel():
    return xcuda.compile(SOURCE, arch="sm_90").kernels["by_value"]


def particle(id=7, mass=2.5, tag=3):
    p = np.zeros(1, PARTICLE)[0]
    p["id"], p["mass"], p["tag"] = id, mass, tag
    return p


def args(**over):
    a = dict(u=4000000000, r=2.0, f2=(1.0, 2.0), d3=(1, 2, 3), i4=np.array([1, 2, 3, 4], np.int32), z=1 + 2j,
             zf=np.complex64(3 - 1j), p=particle(), c=2, h2=(1.0, 0.5), pu=None, pf2=None)
    a.update(over)
    return list(a.values())


def test_parameters_report_the_compiled_layout(kernel):
    by_name = {p["name"]: p for p in kernel.parameter_layout}
    assert by_name["u"]["kind"] == "scalar" and by_name["u"]["size"] == 4
    assert (by_name["f2"]["kind"], by_name["f2"]["size"], by_name["f2"]["components"]) == ("vector", 8, 2)
    assert (by_name["d3"]["size"], by_name["d3"]["align"]) == (24, 8)
    assert (by_name["i4"]["size"], by_name["i4"]["align"]) == (16, 16)
    assert (by_name["z"]["kind"], by_name["z"]["element"]) == ("complex", "float64")
    assert (by_name["p"]["kind"], by_name["p"]["size"], by_name["p"]["align"]) == ("struct", 24, 8)
    assert (by_name["c"]["kind"], by_name["c"]["size"]) == ("integer", 4)
    assert by_name["scale"]["default"] == "1.5f"


def test_each_value_becomes_exactly_the_bytes_cpp_reads(kernel):
    b = kernel._packed_arguments(*args())
    assert b[0] == struct.pack("<I", 4000000000)
    assert b[1] == struct.pack("<d", 2.0)
    assert b[2] == struct.pack("<2f", 1.0, 2.0)
    assert b[3] == struct.pack("<3d", 1, 2, 3)
    assert b[4] == struct.pack("<4i", 1, 2, 3, 4)
    assert b[5] == struct.pack("<2d", 1, 2)
    assert b[6] == struct.pack("<2f", 3, -1)
    assert b[7] == particle().tobytes() and len(b[7]) == 24
    assert b[8] == struct.pack("<i", 2)
    assert b[9] == np.array([1.0, 0.5], np.float16).tobytes()
    assert b[12] == struct.pack("<f", 1.5) and b[13] == struct.pack("<i", -3)  # the C++ defaults


def test_structs_come_as_numpy_records_ctypes_or_bytes(kernel):
    want = particle().tobytes()
    fields = lambda b: (len(b), b[0:4], b[8:16], b[16:17])  # padding bytes are whatever the source left there
    assert fields(kernel._packed_arguments(*args(p=np.array([particle()])))[7]) == fields(want)  # one-element array
    assert fields(kernel._packed_arguments(*args(p=CParticle(7, 2.5, 3)))[7]) == fields(want)
    assert kernel._packed_arguments(*args(p=want))[7] == want


def test_passed_arguments_override_the_defaults(kernel):
    b = kernel._packed_arguments(*args(), 2.0, 7)
    assert b[12] == struct.pack("<f", 2.0) and b[13] == struct.pack("<i", 7)


@pytest.mark.parametrize("over, exc, match", [
    (dict(f2=(1.0,)), TypeError, r"argument `f2` \(float2\) takes 2 numbers, got 1"),
    (dict(d3="abc"), TypeError, r"argument `d3` \(double3\) .*pass 3 numbers"),
    (dict(p=np.zeros(1, np.dtype([("id", "i4"), ("mass", "f8"), ("tag", "i1")]))[0]), TypeError,
     r"argument `p` \(Particle\) is 24 bytes, alignment 8: got 13 bytes .*packs the fields \(id: int32, mass: "
     r"float64, tag: int8: 13 bytes\).*take 24: build it with np.dtype\(\[...\], align=True\)"),
    # A field missing: aligning would not help, and the hint says so (it used to advise align=True).
    (dict(p=np.zeros(1, np.dtype([("id", "i4"), ("mass", "f8")], align=True))[0]), TypeError,
     r"got 16 bytes .*fields \(id: int32, mass: float64\) take 16 bytes .*not 24: a field is missing, extra or of "
     r"another type; compare them with Particle's declaration"),
    (dict(p=np.zeros(2, PARTICLE)), TypeError, r"got 48 bytes .*pass one element \(a\[0\]\)"),
    (dict(p=5), TypeError, r"argument `p` \(Particle\) is passed by value \(24 bytes, alignment 8\).*ctypes.Structure"),
    (dict(p=b"x" * 23), TypeError, r"is 24 bytes, alignment 8: got 23 bytes from bytes"),
    (dict(z="x"), TypeError, r"argument `z` \(cuDoubleComplex\) got str 'x': pass a complex number"),
    (dict(c=2 ** 33), OverflowError, r"argument `c` \(Color\) got 8589934592: out of range for an integer of 4 bytes"),
    (dict(u=-1), OverflowError, r"argument `u` \(uint\) got -1: out of range for uint32"),
    (dict(pu=np.zeros(3, np.int32)), TypeError, r"argument `pu` expects uint\*: got a int32 array"),
    (dict(pf2=np.zeros(3, np.float64)), TypeError, r"argument `pf2` expects float2\*: got a float64 array"),
])
def test_a_mismatch_names_the_parameter_the_layout_and_the_fix(kernel, over, exc, match):
    with pytest.raises(exc, match=match):
        kernel._packed_arguments(*args(**over))


def test_pointers_to_vector_types_take_their_component_or_complex_arrays(kernel):
    kernel._packed_arguments(*args(pu=np.zeros(3, np.uint32), pf2=np.zeros(3, np.complex64)))
    kernel._packed_arguments(*args(pf2=np.zeros(6, np.float32)))


def test_too_few_arguments_says_how_many_are_needed(kernel):
    with pytest.raises(TypeError, match=r"takes 12 to 14 arguments, got 1: missing `r` \(real\)"):
        kernel._packed_arguments(1)


def test_a_default_that_is_not_a_literal_must_be_passed():
    k = xcuda.compile('#define N 4\nextern "C" __global__ void d(int a, int b = N * 2) {}', arch="sm_90").kernels["d"]
    assert k._packed_arguments(1, 2)[1] == struct.pack("<i", 2)
    with pytest.raises(TypeError, match=r"argument `b` \(int\) was left out, and its default `N\s*\*\s*2` is not a literal"):
        k._packed_arguments(1)


def test_defaults_read_as_cpp_literals():
    k = xcuda.compile('extern "C" __global__ void d(int a = 0x1F, unsigned b = 1\'000u, double c = -2.5e-1, '
                      'bool e = true, const float* p = nullptr, char ch = \'A\') {}', arch="sm_90").kernels["d"]
    b = k._packed_arguments()
    assert b[0] == struct.pack("<i", 31) and b[1] == struct.pack("<I", 1000)
    assert b[2] == struct.pack("<d", -0.25) and b[3] == b"\x01"
    assert b[4] == bytes(8) and b[5] == b"A"


CHECK = r'''
#include <cuComplex.h>
struct Particle { int id; double mass; char tag; };
enum Color { red, green, blue };
typedef unsigned int uint;
extern "C" __global__ void unpack(Particle p, float3 v, cuDoubleComplex z, Color c, uint u, double* out,
                                  double scale = 0.5) {
    out[0] = p.id; out[1] = p.mass; out[2] = p.tag;
    out[3] = v.x; out[4] = v.y; out[5] = v.z;
    out[6] = cuCreal(z); out[7] = cuCimag(z);
    out[8] = c; out[9] = u; out[10] = scale;
}
extern "C" __global__ void scale_complex(cuFloatComplex* z, cuFloatComplex by, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = cuCmulf(z[i], by);
}
'''


@requires_kernels
def test_a_kernel_reads_every_by_value_argument_as_passed():
    m = xcuda.compile(CHECK)
    out = np.zeros(11)
    m.kernels["unpack"][1, 1](particle(7, 2.5, 3), (1.0, 2.0, 3.0), 4 - 5j, 2, 4000000000, out)
    assert out.tolist() == [7, 2.5, 3, 1, 2, 3, 4, -5, 2, 4000000000, 0.5]


@requires_kernels
def test_a_complex_array_and_a_complex_scalar_in_one_launch():
    m = xcuda.compile(CHECK)
    z = (np.arange(1000) + 1j).astype(np.complex64)
    expected = z * (2 - 1j)
    m.kernels["scale_complex"][4, 256](z, np.complex64(2 - 1j), z.size)
    assert np.allclose(z, expected)

"""Argument checking happens before any device work, so all of it runs without a GPU."""
import numpy as np
import pytest

import xcuda
from conftest import requires_no_device, requires_kernels

KINDS = r'''
extern "C" __global__ void kinds(signed char a, unsigned char b, short c, unsigned short d, int e,
                                 unsigned int f, long long g, unsigned long long h, float i, double j,
                                 bool k, __half l, void* m, int* n, double** o) {}
'''
HEADER = "#include <cuda_fp16.h>\n"


@pytest.fixture(scope="module")
def kinds():
    return xcuda.compile(HEADER + KINDS).kernels["kinds"]


def good_kind_args():
    n = np.zeros(4, np.int32)
    return [1, 2, 3, 4, 5, 6, 7, 8, 1.5, 2.5, True, 0.5, n, n, None]


def call(kernel, *args):
    kernel[1, 32](*args)


def expect_error_before_device(kernel, args, exc, match):
    with pytest.raises(exc, match=match):
        call(kernel, *args)


def test_wrong_count_names_the_missing_parameters(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, (2.0, x, x), TypeError, r"takes 4 arguments, got 3: missing `n` \(int\)")
    expect_error_before_device(saxpy, (2.0, x, x, 4, 5), TypeError, "takes 4 arguments, got 5")


def test_float_for_an_int_parameter(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, (2.0, x, x, 3.5), TypeError, r"argument `n` \(int\) got 3.5: pass an int")


def test_str_for_a_float_parameter(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, ("2", x, x, 4), TypeError, r"argument `a` \(float\) got str '2': pass a float")


def test_out_of_range_int(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, (2.0, x, x, 2**31), OverflowError, r"argument `n` \(int\).*out of range for int32")
    expect_error_before_device(saxpy, (1e39, x, x, 4), OverflowError, r"argument `a` \(float\).*out of range for float32")


def test_wrong_dtype_names_the_parameter_and_the_fix(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, (2.0, x.astype(np.float64), x, 4), TypeError,
                               r"argument `x` expects const float\*: got a float64 array; pass x.astype\(np.float32\)")


def test_a_list_for_a_pointer_says_what_to_pass(saxpy):
    x = np.zeros(4, np.float32)
    expect_error_before_device(saxpy, (2.0, [1.0], x, 4), TypeError, r"argument `x` \(const float\*\) got list: pass a numpy array")


def test_non_contiguous_numpy_array_is_refused_with_the_fix(saxpy):
    x = np.zeros(8, np.float32)
    expect_error_before_device(saxpy, (2.0, x[::2], x, 4), TypeError, r"non-contiguous.*np.ascontiguousarray\(x\)")


def test_read_only_array_for_a_writable_pointer(saxpy):
    x = np.zeros(4, np.float32)
    y = np.zeros(4, np.float32)
    y.flags.writeable = False
    expect_error_before_device(saxpy, (2.0, x, y, 4), TypeError, r"read-only numpy array.*`y`")


@pytest.mark.parametrize("index,value,exc,match", [
    (0, 128, OverflowError, r"`a` \(signed char\).*-128..127"),
    (1, -1, OverflowError, r"`b` \(unsigned char\).*0..255"),
    (2, 40000, OverflowError, r"`c` \(short\)"),
    (3, 70000, OverflowError, r"`d` \(unsigned short\)"),
    (5, -1, OverflowError, r"`f` \(unsigned int\)"),
    (6, 2**63, OverflowError, r"`g` \(long long\)"),
    (7, -1, OverflowError, r"`h` \(unsigned long long\)"),
    (10, 2, TypeError, r"`k` \(bool\).*pass True or False"),
    (11, 70000.0, OverflowError, r"`l` \(__half\).*float16"),
    (13, np.zeros(4, np.int64), TypeError, r"`n` expects int\*: got a int64 array"),
])
def test_every_scalar_type_is_range_checked(kinds, index, value, exc, match):
    args = good_kind_args()
    args[index] = value
    expect_error_before_device(kinds, args, exc, match)


def test_numpy_integers_are_accepted_for_int_parameters(kinds):
    args = good_kind_args()
    args[4] = np.int64(5)
    args[7] = 2**64 - 1
    try:
        call(kinds, *args)
    except xcuda.NoDeviceError:
        pass  # every argument was accepted; only the device was missing


def test_void_pointer_takes_any_dtype(kinds):
    args = good_kind_args()
    args[12] = np.zeros(3, np.complex128)
    try:
        call(kinds, *args)
    except xcuda.NoDeviceError:
        pass


@pytest.mark.parametrize("grid,block,match", [
    (0, 32, r"grid 0: every dimension must be a positive int"),
    (1, (32, 1, 1, 1), r"block \(32, 1, 1, 1\): give 1 to 3 dimensions"),
    (1.5, 32, r"grid must be an int or a tuple"),
    (1, (32, -1), r"block \(32, -1\)"),
])
def test_grid_and_block_are_checked(saxpy, grid, block, match):
    x = np.zeros(4, np.float32)
    with pytest.raises((TypeError, ValueError), match=match):
        saxpy[grid, block](2.0, x, x, 4)


def test_keyword_launch_needs_grid_and_block(saxpy):
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="needs grid= and block="):
        saxpy(2.0, x, x, 4, grid=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'blocks'"):
        saxpy(2.0, x, x, 4, grid=1, blocks=32)


def test_bad_launch_tuple(saxpy):
    with pytest.raises(TypeError, match=r"kernel\[grid, block\]"):
        saxpy[1]


@requires_no_device
def test_launch_without_gpu_raises_no_device_error_after_checking_arguments(saxpy):
    x = np.ones(4, np.float32)
    with pytest.raises(xcuda.NoDeviceError, match="driver|GPU|device"):
        saxpy[1, 32](2.0, x, x.copy(), 4)
    with pytest.raises(xcuda.NoDeviceError):
        saxpy(2.0, x, x.copy(), 4, grid=1, block=32)
    with pytest.raises(xcuda.NoDeviceError):
        xcuda.to_device(x)
    with pytest.raises(xcuda.NoDeviceError, match="needs a GPU"):
        saxpy.attributes["max_threads_per_block"]
    with pytest.raises(xcuda.NoDeviceError):
        saxpy.attributes["max_dynamic_shared_size_bytes"] = 65536
    with pytest.raises(xcuda.NoDeviceError):
        saxpy(2.0, x, x.copy(), 4, grid=1, block=32, cooperative=True)


@requires_no_device
def test_without_gpu_kernel_attributes_the_compile_knows_come_from_it(saxpy):
    a = saxpy.attributes
    assert a["num_regs"] == saxpy.resources["registers"]
    assert a["shared_size_bytes"] == saxpy.resources["shared_bytes"] == 0
    assert a["local_size_bytes"] == saxpy.resources["stack_frame_bytes"]
    assert a["binary_version"] == 90 and a["ptx_version"] >= 80
    assert "(the others need a GPU)" in repr(a)
    with pytest.raises(KeyError, match="the attributes are max_threads_per_block"):
        a["registers"]


@requires_kernels
def test_correct_arguments_launch(saxpy):
    x = np.ones(4, np.float32)
    y = np.ones(4, np.float32)
    saxpy[1, 32](2.0, x, y, 4)
    assert np.allclose(y, 3.0)


def test_a_launcher_takes_no_keyword_arguments(saxpy):
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"saxpy\[grid, block\]\(\.\.\.\) takes the kernel's arguments by position, "
                                        r"not by keyword \(got 1 keyword argument\)"):
        saxpy[1, 32](2.0, x, x, n=4)

"""The benchmark's changes to other libraries (no GPU needed): the numpy.row_stack alias that
lets numba 0.68 import under numpy 2.5 is added only where it is missing, and reported."""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from peers import numpy_row_stack_shim  # noqa: E402


def test_row_stack_is_aliased_to_vstack_when_numpy_lacks_it():
    def vstack(arrays):
        return arrays
    np = types.SimpleNamespace(vstack=vstack, __version__="2.5.0")
    shims = numpy_row_stack_shim(np)
    assert np.row_stack is vstack
    assert len(shims) == 1 and "numpy.row_stack = numpy.vstack" in shims[0] and "2.5.0" in shims[0]


def test_an_existing_row_stack_is_left_alone_and_not_reported():
    def row_stack(arrays):
        return arrays
    np = types.SimpleNamespace(vstack=lambda a: a, row_stack=row_stack)
    assert numpy_row_stack_shim(np) == []
    assert np.row_stack is row_stack


def test_no_numpy_no_shim():
    assert numpy_row_stack_shim(None) == []

"""Is a test's output right, and if not, what does the pattern of wrong elements say? The first
wrong element, what it should be, and a hint where a usual mistake is recognisable."""
import dataclasses
import math

import numpy as np


@dataclasses.dataclass
class Verdict:
    passed: bool
    untouched: bool  # every output is as it was before the launch
    outcome: str  # what the rubric shows
    hint: str = ""
    output: str = None  # the first wrong output's name
    index: int = None  # its first wrong element (flat)
    got: object = None
    expected: object = None
    wrong: np.ndarray = None  # flat mask of the wrong elements of that output


def value_text(v):
    if isinstance(v, (float, np.floating)):
        return "nan" if np.isnan(v) else f"{float(v):.6g}"
    if isinstance(v, (np.bool_, bool)):
        return str(bool(v)).lower()
    return str(v)


def element_name(name, index, shape):
    if len(shape) == 2:
        return f"{name}[{index}] (row {index // shape[1]}, column {index % shape[1]})"
    return f"{name}[{index}]"


def wrong_mask(got, expected, rtol, atol):
    got, expected = np.asarray(got).ravel(), np.asarray(expected).ravel()
    if np.issubdtype(expected.dtype, np.floating):
        close = np.isclose(got.astype(np.float64), expected.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
        return ~close
    return got != expected


def close_but_not_within(got, expected, wrong, rtol, atol):
    """Wrong only by rounding: every wrong element within 100x the tolerance."""
    if not np.issubdtype(np.asarray(expected).dtype, np.floating):
        return False
    g, e = np.asarray(got, np.float64).ravel()[wrong], np.asarray(expected, np.float64).ravel()[wrong]
    return bool(np.all(np.isfinite(g)) and np.all(np.abs(g - e) <= 100 * (atol + rtol * np.abs(e))))


def pattern_hint(got, expected, initial, wrong, config, size):
    """What a recognisable pattern of wrong elements says (empty when none is recognised). With
    `expected` None (a published exercise's digests) only the patterns of what was never written."""
    got, initial = np.asarray(got).ravel(), np.asarray(initial).ravel()
    n = got.size
    first = int(np.argmax(wrong))
    (gx, gy, gz), (bx, by, bz), _ = config
    block, threads = bx * by * bz, gx * gy * gz * bx * by * bz
    untouched = got == initial
    tail_untouched = bool(np.all(untouched[first:]) and not np.any(wrong[:first]))
    fill = value_text(initial[first]) if np.all(initial[first:] == initial[first]) else "as they were"
    if tail_untouched and first > 0:
        if by == bz == 1 and first == bx and gx > 1:
            return (f"elements {first} and up are {fill}: {first} is your block size: does the index use blockIdx? "
                    "(i = blockIdx.x * blockDim.x + threadIdx.x)")
        if first == threads and threads < n:
            return (f"elements {first} and up were never written: {first} is the number of threads launched "
                    f"({gx * gy * gz} blocks x {block}): each thread must handle every element a grid-stride loop "
                    "gives it (i += blockDim.x * gridDim.x)")
        if first == n - 1:
            return "the last element was never written: is the bound `i < n` (not `i < n - 1`)?"
        return f"elements {first} and up were never written ({fill}): which thread should write element {first}?"
    if np.all(untouched[wrong]) and np.count_nonzero(wrong) < n:
        count = np.count_nonzero(wrong)
        return (f"{count} element{'s were' if count != 1 else ' was'} never written; the first is element {first}: "
                "which thread should write it?")
    if expected is None:
        return ""
    expected = np.asarray(expected).ravel()
    # Shifted by one: (nearly) every wrong element holds its neighbour's right value.
    region = np.flatnonzero(wrong)
    after, before = region[region + 1 < n], region[region >= 1]
    if after.size >= max(1, region.size - 1) and np.array_equal(got[after], expected[after + 1]):
        return "each wrong element holds the right value of the element after it: an index is one too high"
    if before.size >= max(1, region.size - 1) and np.array_equal(got[before], expected[before - 1]):
        return "each wrong element holds the right value of the element before it: an index is one too low"
    if block > 1 and gx > 1 and n > block and by == bz == 1:
        if np.array_equal(got[block:2 * block], expected[:block]) and np.any(wrong[block:2 * block]):
            return (f"block 1's elements hold block 0's values: every block computes elements 0..{block - 1}: the "
                    "index must add blockIdx.x * blockDim.x")
    if isinstance(size, tuple) and len(size) == 2:
        h, w = size
        if h == w and np.array_equal(got.reshape(h, w), expected.reshape(h, w).T):
            return "the output is the transpose of the expected one: rows and columns are swapped"
    return ""


def judge(outputs, expected, initial, config, size, rtol, atol, hints=(), inputs=None):
    """The verdict on one run: every output element compared with the expected one."""
    untouched = all(np.array_equal(outputs[name], initial[name], equal_nan=True) for name in expected)
    for name, want in expected.items():
        got = outputs[name]
        hashed = hasattr(want, "wrong_mask")  # a published exercise: digests, not values
        wrong = want.wrong_mask(got) if hashed else wrong_mask(got, want, rtol, atol)
        if not wrong.any():
            continue
        flat_got = np.asarray(got).ravel()
        flat_want = None if hashed else np.asarray(want).ravel()
        first = int(np.argmax(wrong))
        count, total = int(np.count_nonzero(wrong)), wrong.size
        should = "is wrong (the expected values are not in this notebook)" if hashed else \
            f"expected {value_text(flat_want[first])}"
        outcome = (f"{element_name(name, first, np.shape(got))} is {value_text(flat_got[first])}, {should} "
                   f"({count} of {total} element{'s' if total != 1 else ''} wrong)")
        hint = ""
        for test, text in ([] if hashed else hints):
            try:
                if test(got, want, inputs):
                    hint = text
                    break
            except Exception as e:  # a teacher's hint that cannot judge this output says so, and grading goes on
                hint = f"(the exercise's hint {text[:40]!r} could not judge this output: {type(e).__name__}: {e})"
                break
        if not hint:
            hint = pattern_hint(got, None if hashed else want, initial[name], wrong, config, size)
        if not hint and not hashed and close_but_not_within(got, want, wrong, rtol, atol):
            hint = (f"close, but not within the tolerance (rtol {rtol:g}, atol {atol:g}): the order of "
                    "floating-point operations matters; follow the reference's order")
        return Verdict(False, untouched, outcome, hint, name, first, flat_got[first],
                       None if hashed else flat_want[first], wrong)
    total = sum(math.prod(np.shape(outputs[name])) or 1 for name in expected)
    return Verdict(True, untouched, f"all {total} output element{'s' if total != 1 else ''} right")

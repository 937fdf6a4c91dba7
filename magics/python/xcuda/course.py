"""The course of notebooks/06-course.ipynb: ten kernel exercises in order, each defined as a teacher
defines one (xcuda.exercise: a signature, a numpy reference, seeded inputs at sizes that expose
the usual mistakes, the launch, gates measured exactly on the CPU device). `import xcuda.course`
registers them; a student grades a kernel with `%%cuda --exercise NAME` or xcuda.grade(kernel, NAME).

Sizes are small on purpose: the CPU device runs every test with every check on."""
import math

import numpy as np

import xcuda

__all__ = ["NAMES"]


def _blocks(n, per_block):
    return (n + per_block - 1) // per_block


def _floats(rng, shape):
    """Small integers as floats: every sum and product is exact in float32, whatever the order."""
    return rng.integers(-8, 9, size=shape).astype(np.float32)


# 1. map: one thread per element, one block exactly as large as the data.
xcuda.exercise(
    "map",
    title="y[i] = x[i] + 10 for each i: one block with one thread per element.",
    kernel="void add_ten(const float* x, float* y)",
    reference=lambda x: x + 10,
    inputs=lambda rng, n: {"x": _floats(rng, n)},
    sizes=[4, 32, 100, 256],
    launch=lambda n: (1, n),
    gates={"global_loads_per_element": 1, "global_stores_per_element": 1, "sectors_per_request": 4},
    hints=[(lambda got, want, args: np.array_equal(got[1:], want[:-1]),
            "each element is one place to the right of where it belongs: the index must be threadIdx.x itself")],
)

# 2. guard: more threads than elements.
xcuda.exercise(
    "guard",
    title="y[i] = x[i] + 10 for i < n: one block of 256 threads, often more than there are elements.",
    kernel="void add_ten_guarded(const float* x, float* y, int n)",
    reference=lambda x, n: x + 10,
    inputs=lambda rng, n: {"x": _floats(rng, n), "n": n},
    sizes=[5, 100, 255, 256],
    gate_size=255,
    launch=lambda n: (1, 256),
    gates={"global_loads_per_element": 1, "global_stores_per_element": 1, "divergent_branches": 2},
)

# 3. 2-D: a 2-D block over a 2-D array, rows * cols elements in row-major order.
xcuda.exercise(
    "map2d",
    title="out[r][c] = a[r][c] + 10 for a rows x cols array in row-major order: one 16 x 16 block, x the "
          "column and y the row.",
    kernel="void add_ten_2d(const float* a, float* out, int rows, int cols)",
    reference=lambda a, rows, cols: a + 10,
    inputs=lambda rng, size: {"a": _floats(rng, size), "rows": size[0], "cols": size[1]},
    sizes=[(3, 5), (16, 16), (9, 16), (16, 11)],
    launch=lambda size: (1, (16, 16)),
    gates={"global_loads_per_element": 1, "sectors_per_request": 4},
)

# 4. blocks: a fixed grid of 4 blocks of 128 threads covers any n with a grid-stride loop.
xcuda.exercise(
    "blocks",
    title="y[i] = a * x[i] + y[i] for every i < n with 4 blocks of 128 threads: a grid-stride loop "
          "(each thread handles i, i + 512, i + 1024, ...).",
    kernel="void saxpy(float a, const float* x, float* y, int n)",
    reference=lambda a, x, y, n: a * x + y,
    inputs=lambda rng, n: {"a": 3.0, "x": _floats(rng, n), "y": _floats(rng, n), "n": n},
    sizes=[100, 512, 1000, 3000],
    launch=lambda n: (4, 128),
    gates={"global_loads_per_element": 2, "global_stores_per_element": 1, "sectors_per_request": 4},
)

# 5. a 3-point stencil with a tile in shared memory: each input element is loaded once per block.
STENCIL_BLOCK = 128
xcuda.exercise(
    "stencil",
    title="y[i] = x[i - 1] + x[i] + x[i + 1] (x is 0 outside 0..n-1), blocks of 128 threads: each block "
          "loads its 128 elements and the two beside them into shared memory once, then every thread "
          "reads its three from there.",
    kernel="void stencil(const float* x, float* y, int n)",
    reference=lambda x, n: x + np.concatenate(([0], x[:-1])) + np.concatenate((x[1:], [0])),
    inputs=lambda rng, n: {"x": _floats(rng, n), "n": n},
    sizes=[100, 128, 1000, 2050],
    launch=lambda n: (_blocks(n, STENCIL_BLOCK), STENCIL_BLOCK),
    gates={"global_loads_per_element": 1.1, "shared_memory_bytes": ">= 520", "bank_conflicts": 0},
)

# 6. a dot product: per-block tree reduction in shared memory, one atomicAdd per block.
DOT_BLOCK = 256
xcuda.exercise(
    "dot",
    title="result[0] = sum of a[i] * b[i] (result starts at 0): each block of 256 threads sums its "
          "products in shared memory, halving the active threads each step, and thread 0 adds the "
          "block's sum to result[0] with atomicAdd.",
    kernel="void dot(const float* a, const float* b, float* result, int n)",
    reference=lambda a, b, result, n: np.array([np.dot(a.astype(np.float64), b)], np.float32),
    inputs=lambda rng, n: {"a": _floats(rng, n), "b": _floats(rng, n), "result": np.zeros(1, np.float32), "n": n},
    sizes=[100, 256, 1000, 5000],
    launch=lambda n: (_blocks(n, DOT_BLOCK), DOT_BLOCK),
    elements=lambda n: n,
    gates={"global_loads_per_element": 2.2, "global_atomics_per_element": 0.01, "bank_conflicts": 0,
           "divergent_branches": 8 * _blocks(5000, DOT_BLOCK), "shared_memory_bytes": ">= 1024"},
    hints=[(lambda got, want, args: not np.isclose(got[0], want[0]) and
            any(np.isclose(got[0], np.dot(args["a"][i:i + DOT_BLOCK], args["b"][i:i + DOT_BLOCK]))
                for i in range(0, args["n"], DOT_BLOCK)),
            "the result is one block's sum: every block must add its sum to result[0] (atomicAdd)")],
)

# 7. an inclusive prefix sum of up to 1024 elements in one block.
xcuda.exercise(
    "scan",
    title="y[i] = x[0] + ... + x[i] for n <= 1024 with one block of 1024 threads, in shared memory: "
          "log2(1024) steps, each adding the element d places back (d = 1, 2, 4, ...), with barriers "
          "so that no thread reads a value another is rewriting.",
    kernel="void scan(const int* x, int* y, int n)",
    reference=lambda x, n: np.cumsum(x).astype(np.int32),
    inputs=lambda rng, n: {"x": rng.integers(-9, 10, n).astype(np.int32), "n": n},
    sizes=[7, 100, 1000, 1024],
    launch=lambda n: (1, 1024),
    gates={"global_loads_per_element": 1, "global_stores_per_element": 1, "shared_memory_bytes": ">= 4096"},
)

# 8. a histogram: many threads add to the same bin at once.
HISTOGRAM_GRID = (8, 256)
xcuda.exercise(
    "histogram",
    title="bins[v] = how many values equal v (0 <= v < nbins; bins start at 0), with 8 blocks of 256 threads "
          "and a grid-stride loop: threads that meet at a bin must not lose each other's updates.",
    kernel="void histogram(const int* values, int* bins, int n, int nbins)",
    reference=lambda values, bins, n, nbins: np.bincount(values, minlength=nbins).astype(np.int32),
    inputs=lambda rng, n: {"values": rng.integers(0, 16, n).astype(np.int32), "bins": np.zeros(16, np.int32),
                           "n": n, "nbins": 16},
    sizes=[100, 2048, 5000],
    launch=lambda n: HISTOGRAM_GRID,
    elements=lambda n: n,
    gates={"global_atomics_per_element": 1, "global_loads_per_element": 1},
    hints=[(lambda got, want, args: 0 < got.sum() < want.sum() and got.sum() != math.prod(HISTOGRAM_GRID),
            "the bins add up to fewer values than there are: updates were lost where threads met at one bin "
            "(bins[v]++ is a read, an add and a write): use atomicAdd"),
           (lambda got, want, args: got.sum() == math.prod(HISTOGRAM_GRID) < want.sum(),
            f"the bins count only {math.prod(HISTOGRAM_GRID)} values, one per thread: loop over i, "
            f"i + blockDim.x * gridDim.x, ... up to n")],
)

# 9. a tiled matrix product: 16 x 16 tiles of a and b in shared memory.
TILE = 16
xcuda.exercise(
    "matmul",
    title="c = a @ b for n x n matrices (row-major) with 16 x 16 blocks: each block loads 16 x 16 tiles of a "
          "and b into shared memory, one element per thread, and multiplies them from there.",
    kernel="void matmul(const float* a, const float* b, float* c, int n)",
    reference=lambda a, b, n: (a.astype(np.float64) @ b).astype(np.float32),
    inputs=lambda rng, n: {"a": _floats(rng, (n, n)), "b": _floats(rng, (n, n)), "n": n},
    sizes=[5, 16, 40, 48],
    launch=lambda n: ((_blocks(n, TILE), _blocks(n, TILE)), (TILE, TILE)),
    elements=lambda n: n * n,
    gates={"global_loads_per_element": 2 * _blocks(48, TILE), "shared_memory_bytes": ">= 2048", "bank_conflicts": 0},
)

# 10. a transpose: coalesced reads and writes through a padded tile.
xcuda.exercise(
    "transpose",
    title="out (cols x rows) = the transpose of a (rows x cols), with 32 x 8 blocks each moving a 32 x 32 tile "
          "(every thread 4 elements): read a row of the tile from a, write a row of the transposed tile to out, "
          "so both are coalesced, through a shared tile padded so that a column read hits 32 different banks.",
    kernel="void transpose(const float* a, float* out, int rows, int cols)",
    reference=lambda a, rows, cols: a.reshape(rows, cols).T.copy(),
    inputs=lambda rng, size: {"a": _floats(rng, size), "rows": size[0], "cols": size[1]},
    sizes=[(5, 7), (32, 32), (40, 70), (64, 96)],
    launch=lambda size: ((_blocks(size[1], 32), _blocks(size[0], 32)), (32, 8)),
    gates={"sectors_per_request": 4, "bank_conflicts": 0, "shared_memory_bytes": ">= 4096",
           "global_loads_per_element": 1},
)

NAMES = ["map", "guard", "map2d", "blocks", "stencil", "dot", "scan", "histogram", "matmul", "transpose"]

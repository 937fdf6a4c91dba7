"""Median time of complete() in a 300-line %%cuda cell, in-process (no kernel, no sockets):
what a Tab costs the kernel in the CUDA completer (goal: under 50 ms). A bench, not a test.

    PYTHONPATH=build/python python3 bench/cuda_completion.py
"""
import statistics
import time

from IPython.testing.globalipapp import start_ipython

from xcuda import _hosted_shell

ROUNDS = 30


def cell_of_300_lines():
    lines = ["%%cuda --std c++17", "#include <cuda_fp16.h>", "struct Body { float4 pos; float4 vel; float mass; };"]
    k = 0
    while len(lines) < 296:
        lines += [f"__global__ void step_{k}(Body* bodies, const float* __restrict__ w, int n) {{",
                  "    __shared__ float tile[256];",
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;  // one body per thread",
                  "    if (i < n) { bodies[i].mass += w[i]; }",
                  "    __syncthreads();",
                  "}"]
        k += 1
    lines += ["// filler"] * (300 - len(lines))
    return "\n".join(lines[:300]) + "\n"


def main():
    ip = start_ipython()
    ip.run_line_magic("load_ext", "xcuda")
    cell = cell_of_300_lines()
    positions = {
        "start of body, `__sync`": (cell[:200] + "__sync" + cell[200:], 200 + len("__sync")),
        "end, `bodies[i].`": (cell + "bodies[i].", len(cell) + len("bodies[i].")),
        "end, `ste` (own kernels)": (cell + "ste", len(cell) + 3),
        "`#include <cub/`": (cell + "#include <cub/", len(cell) + len("#include <cub/")),
        "magic line `--st`": ("%%cuda --st" + cell[len("%%cuda --std c++17"):], len("%%cuda --st")),
    }
    print(f"complete() in a {cell.count(chr(10))}-line %%cuda cell, median of {ROUNDS}:")
    medians = []
    for label, (code, cursor) in positions.items():
        _hosted_shell.complete(ip, code, cursor)  # directory listings and option table cached
        times = []
        for _ in range(ROUNDS):
            t0 = time.perf_counter()
            reply = _hosted_shell.complete(ip, code, cursor)
            times.append(time.perf_counter() - t0)
        medians.append(statistics.median(times))
        print(f"  {label:28s} {medians[-1] * 1e3:7.2f} ms  ({len(reply['matches'])} matches)")
    print(f"worst median: {max(medians) * 1e3:.2f} ms (goal < 50 ms)")


if __name__ == "__main__":
    main()

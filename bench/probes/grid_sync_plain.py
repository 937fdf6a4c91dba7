"""What a GPU does with a kernel that calls cooperative_groups::this_grid().sync() when it is
launched plainly (no cooperative=True): with a grid that can be resident at once, and with one
block more than that. The CPU device runs such a launch cooperatively and refuses the larger grid
with the cooperative launch's message; this says whether the GPU agrees (an error, a hang, or a
result). Each launch runs in a child process with a time limit, since a grid.sync() that can never
complete spins until its process ends.
GPU machine: python3 bench/probes/grid_sync_plain.py"""
import subprocess
import sys
import textwrap

KERNEL = r'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_sum(const float* x, float* partial, float* out, int n) {
    cg::grid_group grid = cg::this_grid();
    float s = 0.0f;
    for (long long i = grid.thread_rank(); i < n; i += grid.size()) s += x[i];
    atomicAdd(&partial[blockIdx.x], s);
    grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0.0f;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        *out = t;
    }
}
'''

CHILD = textwrap.dedent('''
    import numpy as np, xcuda
    k = xcuda.compile({kernel!r}).grid_sum
    most = k.occupancy(256)["active_blocks_per_sm"] * xcuda.Device(0).properties["multiprocessor_count"]
    blocks = most + {extra}
    n = 1 << 20
    partial, out = xcuda.zeros(blocks, np.float32), xcuda.zeros(1, np.float32)
    print("most resident", most, "launching", blocks, flush=True)
    try:
        k(np.ones(n, np.float32), partial, out, n, grid=blocks, block=256)
        xcuda.synchronize()
        print("RESULT", out.get()[0], "expected", n, flush=True)
    except Exception as e:
        print("ERROR", type(e).__name__, e, flush=True)
''')


def main():
    for extra, what in ((0, "a grid that fits"), (1, "one block more than fits")):
        try:
            run = subprocess.run([sys.executable, "-c", CHILD.format(kernel=KERNEL, extra=extra)], capture_output=True,
                                 text=True, timeout=60)
            print(f"## plain launch, {what}: rc={run.returncode}\n{run.stdout}{run.stderr[-2000:]}")
        except subprocess.TimeoutExpired as e:
            seen = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout or ""
            print(f"## plain launch, {what}: still running after 60 s (killed)\n{seen}")


if __name__ == "__main__":
    main()

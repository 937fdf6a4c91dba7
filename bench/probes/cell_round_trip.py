"""A `%%cuda` cell through a kernel, as a notebook sends it: the execute request's round trip
(jupyter_client's execute_interactive, request sent to reply read) and the kernel process's CPU
time (all its threads, /proc/PID/task/*/schedstat), for a cold saxpy cell (unique source), an
empty cell and the same saxpy cell again, in rotation, medians of --reps.

Run by a Python with jupyter_client, with JUPYTER_PATH naming the build's kernelspec and
PYTHONPATH its package, e.g.
    JUPYTER_PATH=build/prefix/share/jupyter PYTHONPATH=build/python \\
        /usr/bin/python3 bench/probes/cell_round_trip.py --reps 15
A CMake build's kernelspec runs the package installed in build/prefix: `cmake --install build`
after building, or the kernel runs the older code. Two builds against each other: run it for
each, alternating. The kernel selects its device as
in a notebook (XCUDA_DEVICE is passed on); the compile cache is a fresh XDG_CACHE_HOME."""
import argparse
import glob
import os
import statistics
import tempfile
import time
import uuid

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * x[i] + y[i];
}
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--kernel-name", default="xcuda")
    a = ap.parse_args()
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="xcuda-round-trip-")
    from jupyter_client import KernelManager

    km = KernelManager(kernel_name=a.kernel_name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        pid = km.provisioner.process.pid
        printed = []

        def cpu_ms():
            ns = 0
            for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
                try:
                    with open(path) as f:
                        ns += int(f.read().split()[0])
                except OSError:  # a thread that ended between the glob and the read
                    pass
            return ns / 1e6

        def run(code, expect=None):
            printed.clear()
            c0, t0 = cpu_ms(), time.perf_counter()
            reply = kc.execute_interactive(code, timeout=60,
                                           output_hook=lambda m: printed.append(m["content"].get("text", "")))
            wall = (time.perf_counter() - t0) * 1e3
            if reply["content"]["status"] != "ok":
                raise RuntimeError(f"the cell failed: {reply['content']}")
            if expect and not any(expect in p for p in printed):
                raise RuntimeError(f"the cell printed {printed!r}, expected {expect!r}")
            return wall, cpu_ms() - c0

        run("%%cuda\n" + SAXPY, "Compiled for")  # first compile in the kernel: not a sample
        rows = {"cold %%cuda cell": [], "empty cell": [], "unchanged %%cuda cell again": []}
        for _ in range(a.reps):
            rows["cold %%cuda cell"].append(run("%%cuda\n" + SAXPY + "// " + uuid.uuid4().hex, "Compiled for"))
            rows["empty cell"].append(run("pass"))
            rows["unchanged %%cuda cell again"].append(run("%%cuda\n" + SAXPY, "From the compile cache"))
        print(f"load average at the end: {os.getloadavg()}")
        for name, samples in rows.items():
            print(f"{name:28s} round trip median {statistics.median(s[0] for s in samples):7.2f} ms "
                  f"(min {min(s[0] for s in samples):.2f}) | kernel CPU median "
                  f"{statistics.median(s[1] for s in samples):.2f} ms")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()

"""Start to the first kernel_info reply, hosted xcuda vs ipykernel in one Python, as part 5 of
bench/run.py measures it (bench/startup.py's `_one`: jupyter_client's KernelManager, start_kernel
then wait_for_ready), without the cells: N rounds, the two kernels interleaved (the first of each
round alternates), the median and the ratio. Run it with the Python that has both kernels:
    build/hosted-venv-3.11/bin/python bench/probes/startup_kernel_info.py [--reps 10]"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from startup import _one  # noqa: E402  (bench/startup.py)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    kernels = {"xcuda": [sys.executable, "-m", "xcuda", "-f", "{connection_file}"],
               "ipykernel": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]}
    samples = {name: [] for name in kernels}
    for rep in range(args.reps):
        for name in (list(kernels) if rep % 2 == 0 else list(reversed(kernels))):
            samples[name].append(_one(kernels[name], [], want_rss=False)["kernel_info_ms"])
    med = {name: statistics.median(values) for name, values in samples.items()}
    for name, values in samples.items():
        print(f"{name:10s} median {med[name]:6.1f} ms  min {min(values):6.1f}  max {max(values):6.1f}  "
              f"({', '.join(f'{v:.0f}' for v in values)})")
    print(f"ratio xcuda/ipykernel (medians): {med['xcuda'] / med['ipykernel']:.3f}  "
          f"({args.reps} starts each, Python {sys.version.split()[0]} at {sys.executable})")


if __name__ == "__main__":
    main()

"""Instructions per launch, counted by callgrind on the simulated driver (no GPU needed), split
into the Python call, argument packing (of which the __cuda_array_interface__ reads), xcuda's own
launch code and the driver's cuLaunchKernel; beside the floor of any Python -> C++ call with the
same four arguments (bare_call.cpp: a tp_call that does nothing, and a pybind11 function).
Each case runs N1 and N2 times in one loop; the difference over N2 - N1 is one launch, so the
start-up (imports, the disk-cache hit of the compile) cancels.
usage, from the repository root after the CMake build:
    python3 bench/probes/launch_callgrind.py [--build build]"""
import argparse
import os
import re
import subprocess
import sys
import sysconfig
import tempfile

N1, N2 = 100, 1100
SOURCE = r'''
extern "C" __global__ void saxpy(const float* x, const float* y, float* out, int n) {}
extern "C" __global__ void empty() {}
'''
CASES = {
    "cai": "saxpy[4, 256](3 CAI objects, int)",
    "device_array": "saxpy[4, 256](3 xcuda.DeviceArray, int)",
    "empty": "empty[1, 1]() (no arguments)",
    "nop_tp_call": "floor: a tp_call that does nothing, 4 arguments",
    "pybind11_f4": "floor: a pybind11 function of 4 arguments",
}
# (label, pattern of the function whose inclusive count it is) for the breakdown
PARTS = (
    ("launch (Launcher's tp_call)", r"launcher_call\("),
    ("argument packing", r"ArgumentPacker::pack\("),
    ("of which CAI reads", r"read_cuda_array_interface\("),
    ("driver cuLaunchKernel (sim)", r"^\S*cuLaunchKernel\b|[ :]cuLaunchKernel\b"),
)


def inner(case, n):
    import numpy as np
    import xcuda
    import xcuda_bare_call
    m = xcuda.compile(SOURCE, arch="compute_90")

    class Cai:
        """A CAI producer as Python or Cython code builds one (CuPy, Numba): literal keys."""
        def __init__(self, a):
            c = a.__cuda_array_interface__
            self.__cuda_array_interface__ = {"shape": c["shape"], "typestr": c["typestr"], "data": c["data"],
                                             "strides": None, "version": 3, "stream": 1}

    arrays = [xcuda.to_device(np.zeros(1024, np.float32)) for _ in range(3)]
    if case == "cai":
        f, args = m.saxpy[4, 256], [Cai(a) for a in arrays] + [1024]
    elif case == "device_array":
        f, args = m.saxpy[4, 256], arrays + [1024]
    elif case == "empty":
        f, args = m.empty[1, 1], []
    elif case == "nop_tp_call":
        f, args = xcuda_bare_call.Nop(), [Cai(a) for a in arrays] + [1024]
    else:
        f, args = xcuda_bare_call.f4, [Cai(a) for a in arrays] + [1024]
    if len(args) == 4:
        a, b, c, d = args
        for _ in range(n):
            f(a, b, c, d)
    else:
        for _ in range(n):
            f()


def counts(out_file):
    """total Ir, and {part label: inclusive Ir}."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                          capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text).group(1).replace(",", ""))
    parts = {}
    for label, pattern in PARTS:
        for line in text.splitlines():
            m = re.match(r"\s*([\d,]+) \([\s\d.]+%\)\s+(\S.*)$", line)
            if m and re.search(pattern, m.group(2).split(" [")[0]):
                parts[label] = int(m.group(1).replace(",", ""))
                break
    return total, parts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--cases", default=",".join(CASES), help="a comma-separated subset of: " + ", ".join(CASES))
    ap.add_argument("--inner", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return inner(args.inner[0], int(args.inner[1]))
    build = os.path.abspath(args.build)
    work = tempfile.mkdtemp(prefix="xcuda-callgrind-")
    includes = ["-I" + sysconfig.get_paths()["include"]]
    try:  # pybind11 from pip where there is one; else the system's (Debian: pybind11-dev)
        import pybind11
        includes.append("-I" + pybind11.get_include())
    except ImportError:
        pass
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-std=c++17", *includes,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "bare_call.cpp"),
                    "-o", os.path.join(work, "xcuda_bare_call" + suffix)], check=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(build, "python"), work]),
               XCUDA_CUDA_DRIVER=os.path.join(build, "tests", "cuda-runtime", "libxcuda-sim-cuda.so"),
               XDG_CACHE_HOME=os.path.join(work, "cache"), PYTHONHASHSEED="0")
    me = os.path.abspath(__file__)
    subprocess.run([sys.executable, me, "--inner", "cai", "1"], env=env, check=True)  # fills the compile cache
    print(f"instructions per launch (callgrind, simulated driver, ({N2} - {N1}) launches; Python {sys.version.split()[0]})")
    for case in args.cases.split(","):
        what = CASES[case]
        runs = []
        for n in (N1, N2):
            out = os.path.join(work, f"{case}-{n}.out")
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, me,
                            "--inner", case, str(n)], env=env, check=True, capture_output=True)
            runs.append(counts(out))
        per = lambda a, b: (b - a) / (N2 - N1)  # noqa: E731
        total = per(runs[0][0], runs[1][0])
        line = f"{what:52s} {total:8.0f}"
        parts = {label: per(runs[0][1].get(label, 0), runs[1][1].get(label, 0)) for label, _ in PARTS}
        if parts["launch (Launcher's tp_call)"]:
            launch = parts["launch (Launcher's tp_call)"]
            own = launch - parts["argument packing"] - parts["driver cuLaunchKernel (sim)"]
            line += (f"  = Python call {total - launch:.0f} + packing {parts['argument packing']:.0f}"
                     f" (CAI reads {parts['of which CAI reads']:.0f}) + xcuda launch code {own:.0f}"
                     f" + sim cuLaunchKernel {parts['driver cuLaunchKernel (sim)']:.0f}")
        print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())

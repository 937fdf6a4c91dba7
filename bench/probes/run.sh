#!/usr/bin/env bash
# Runs the probes on the GPU machine: bash bench/probes/run.sh (logs to $OUT).
set -u
OUT=${OUT:-/tmp/probe-out}; mkdir -p "$OUT"
which perf gdb valgrind py-spy 2>&1 | tee "$OUT/tools.txt"
cmake -S . -B /tmp/b312 -G Ninja -DXCUDA_BUILD_KERNEL=OFF -DXCUDA_BUILD_PYTHON_MODULE=ON -DXCUDA_BUILD_TESTS=OFF \
  -DPython_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" >"$OUT/build.log" 2>&1 &&
  cmake --build /tmp/b312 -j16 --target xcuda-python-module >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
modpath=$(dirname "$(find /tmp/b312 -name 'xcuda*.so' | head -1)")
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
PYTHONPATH=$modpath timeout 200 python3 bench/probes/launch_probe.py 2>&1 | tee "$OUT/launch_probe.txt"
/usr/local/cuda/bin/nvcc -O2 -std=c++17 bench/probes/launch_probe.cpp -lcuda -o /tmp/launch_probe &&
  timeout 120 /tmp/launch_probe /tmp/probe.cubin 2>&1 | tee "$OUT/launch_probe_cpp.txt"
timeout 200 python3 bench/probes/compile_probe.py 2>&1 | tee "$OUT/compile_probe.txt"

#!/usr/bin/env bash
# Packs what tests/gpu/run-on-device.sh needs into .device/ (ignored by git, carried to the GPU
# machine): the GoogleTest binaries (static gtest; the runtime dlopens libcuda there) and the
# xcuda wheel for that machine's Python 3.12, as .ci/wheel releases it (`pip wheel .` made
# self-contained by `auditwheel repair`: libxeus, libzmq and their libraries grafted).
# usage: tests/gpu/pack.sh [BUILD_DIR]   (default build/, made by `bash .ci/build`)
#   XCUDA_WHEEL_PYTHON  the CPython 3.12 that builds the wheel (default: pyenv's 3.12)
#   XCUDA_REAL_KERNELS  "SAMPLES_GIT_DIR:CUPY_GIT_DIR": snapshots of NVIDIA/cuda-samples and
#                       cupy/cupy (the fetch tool's), whose sources bench/cpu-device/real_kernels.py
#                       exports into .device/real-kernels for run-on-device.sh's part compare
#   XCUDA_OLD_WHEEL     another tree's repaired cp312 wheel, for part launch-ab (.device/wheel-old)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
dest=$root/.device
rm -rf "$dest"; mkdir -p "$dest/bin" "$dest/wheel"
find "$build/tests" -maxdepth 3 -type f -perm -u+x -name 'xcuda-*tests' ! -name 'xcuda-kernel-*' -exec cp {} "$dest/bin/" \;
find "$build/tests/cuda-runtime" -maxdepth 1 -name 'libxcuda-*.so' -exec cp {} "$dest/bin/" \;
strip --strip-debug "$dest"/bin/*

python=${XCUDA_WHEEL_PYTHON:-$(ls -d "$(pyenv root 2>/dev/null)"/versions/3.12*/bin/python3.12 2>/dev/null | tail -1)}
[ -x "$python" ] || { echo "pack: no CPython 3.12 to build the wheel with; set XCUDA_WHEEL_PYTHON" >&2; exit 1; }
XCUDA_DIST_DIR="$dest/wheel" XCUDA_WHEEL_NO_SDIST=1 bash "$root/.ci/wheel" "$python"  # the release build
if [ -n "${XCUDA_REAL_KERNELS:-}" ]; then
  PYTHONPATH="$build/python" "${XCUDA_BUILD_PYTHON:-/usr/bin/python3}" "$root/bench/cpu-device/real_kernels.py" --samples "${XCUDA_REAL_KERNELS%%:*}" \
    --cupy "${XCUDA_REAL_KERNELS##*:}" --export "$dest/real-kernels"
fi
if [ -n "${XCUDA_OLD_WHEEL:-}" ]; then mkdir -p "$dest/wheel-old" && cp "$XCUDA_OLD_WHEEL" "$dest/wheel-old/"; fi
du -sh "$dest"/*

#!/usr/bin/env bash
# Packs what tests/gpu/run-on-device.sh needs into .device/ (ignored by git, carried to the GPU
# machine): the GoogleTest binaries (static gtest; the runtime dlopens libcuda there), the installed
# kernel, and ../shared/tools/device-bundle's libraries and Debian Python 3.11 for that kernel
# (with ipykernel: bench part 5's ipykernel peer runs on that same Python as the kernel).
# usage: tests/gpu/pack.sh [BUILD_DIR]   (default build/, made by `bash .ci/build`)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
dest=$root/.device
rm -rf "$dest"; mkdir -p "$dest/bin"
find "$build/tests" -maxdepth 3 -type f -perm -u+x -name 'xcuda-*tests' -exec cp {} "$dest/bin/" \;
find "$build/tests/cuda-runtime" -maxdepth 1 -name 'libxcuda-*.so' -exec cp {} "$dest/bin/" \;
cp -r "$build/prefix" "$dest/prefix"
bundle=${XCUDA_DEVICE_BUNDLE:-$root/../shared/tools/device-bundle}
"$bundle" "$dest/bundle" "$dest/prefix/bin/xcuda" -- \
  IPython xeus_python_shell jupyter_client nest_asyncio numpy nbclient nbformat pytest jupyter_kernel_test \
  ipykernel.kernelapp ipykernel_launcher
# What the GPU machine has itself, or builds itself: its NVRTC (CUDA 13 there too), and the
# extension module (built there for its Python 3.12). Debug info stripped: the call carries 64 MiB.
rm -f "$dest"/bundle/lib/libnvrtc*.so* "$dest"/bundle/lib/libstdc++.so*
rm -rf "$dest/prefix/lib"
strip --strip-debug "$dest"/bin/* "$dest/prefix/bin/xcuda"
du -sh "$dest"

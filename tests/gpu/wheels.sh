#!/usr/bin/env bash
# Downloads into .whl/ (ignored by git; carried to the GPU machine, which reaches no registry)
# the wheels that give that machine's Python 3.12 (CuPy, PyTorch, no Jupyter) an ipykernel and
# nbclient: for run-on-device.sh's interop part and bench part 5's "ipykernel + CuPy" peer.
# debugpy, jedi and parso stay out (10 MB of the 64 MiB a device call carries with .device/):
# ipykernel runs without its debugger and IPython without jedi, and both start a little faster
# for it, so the CuPy peer's start-up is, if anything, flattered.
# usage: tests/gpu/wheels.sh   (needs PyPI; about 6.5 MB)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.whl
rm -rf "$dest"; mkdir -p "$dest"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 -d "$dest" ipykernel nbclient nbformat
rm -f "$dest"/debugpy-*.whl "$dest"/jedi-*.whl "$dest"/parso-*.whl
du -sh "$dest"

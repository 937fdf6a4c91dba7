#!/usr/bin/env bash
# Downloads into .whl/ (ignored by git; carried to the GPU machine, which reaches no registry)
# the wheels that give that machine's Python 3.12 (CuPy, PyTorch, no Jupyter) what the xcuda
# wheel needs (IPython, xeus-python-shell, comm, numpy) and what the tests and bench part 5 run there
# (jupyter_client, nbclient, ipykernel, jupyter_kernel_test; distributed for the Dask tests and
# notebook 05), with their dependencies, so that
# `pip install --no-index --find-links .whl xcuda` resolves there as it would from PyPI.
# usage: tests/gpu/wheels.sh   (needs PyPI; about 18 MB, and numpy's wheel)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dest=$root/.whl
rm -rf "$dest"; mkdir -p "$dest"
python3 -m pip download -q --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_27_x86_64 \
  --platform manylinux_2_28_x86_64 -d "$dest" \
  ipython xeus-python-shell comm numpy matplotlib-inline ipykernel jupyter_client jupyter_kernel_test nbclient nbformat ipywidgets \
  debugpy cloudpickle distributed
du -sh "$dest"

#!/usr/bin/env bash
# The checks that only the GPU machine can make, in one call of about 9 minutes (the device
# tool runs it from the repository root with .device and .whl carried; see run-on-device.sh for
# what those hold): the GPU %%cuda_check tests in-process and in the hosted kernel, the real
# kernels on the CPU device vs the GPU, and the notebooks executed with their outputs kept in
# $OUT/logs.tgz (notebooks/) for tests/notebooks/stored_outputs.py.
set -u; export PYTHONUNBUFFERED=1; R=$OUT; L=/tmp/L; mkdir -p $L/notebooks; root=$(pwd)
date +%T
python3 -m pip install -q --no-index --find-links .whl --find-links .device/wheel xcuda > $L/pip.log 2>&1 && python3 -m pip install -q --no-index --find-links .whl jupyter_client jupyter_kernel_test nbclient nbformat ipykernel ipywidgets distributed >> $L/pip.log 2>&1; echo "pip rc=$?"
python3 -m xcuda install --sys-prefix > $L/spec.log 2>&1; echo "kernelspec rc=$?"
export JUPYTER_DATA_DIR=/tmp/no-user-specs XCUDA_GPU_TESTS=1 XCUDA_REQUIRE_INTEROP=1
timeout 80 python3 -m pytest -q -rs -p no:cacheprovider tests/magics/python/test_cuda_check_gpu.py tests/magics/python/test_cuda_check.py tests/magics/python/test_launch_diverter.py tests/magics/python/test_sanitizer_report.py > $L/check.log 2>&1; echo "check rc=$?"; tail -1 $L/check.log
(cd tests/kernel && timeout 80 python3 -m pytest -q -rs -s -p no:cacheprovider test_cuda_check_gpu.py) > $L/kcheck.log 2>&1; echo "kernel check rc=$?"; tail -1 $L/kcheck.log; date +%T
timeout 200 python3 bench/cpu-device/real_kernels.py --compare --samples .device/real-kernels/cuda-samples --cupy .device/real-kernels/cupy --json $L/real_kernels-compare.json --markdown > $L/real-kernels-compare.md 2>&1; echo "compare rc=$?"; tail -3 $L/real-kernels-compare.md; date +%T
XCUDA_ARTIFACTS_DIR=$L/notebooks timeout 150 python3 -m pytest -q -rs -p no:cacheprovider tests/notebooks > $L/notebook-tests.log 2>&1; echo "notebooks rc=$?"; tail -3 $L/notebook-tests.log; date +%T
tar -C $L -czf $R/logs.tgz .; cp $L/check.log $L/kcheck.log $L/real-kernels-compare.md $L/notebook-tests.log $R/ 2>/dev/null

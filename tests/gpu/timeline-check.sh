#!/usr/bin/env bash
# The timeline, the autotuner and the CUPTI claim on the GPU machine, in one call of about 6
# minutes (the device tool runs it from the repository root with .device and .whl carried: the
# repaired xcuda wheel from tests/gpu/pack.sh, the wheels from tests/gpu/wheels.sh, and Kernel
# Tuner's for the autotune bench). Installs them as a user would, then: the timeline and autotune
# tests (the GPU-only ones run here), the counter and check tests that share CUPTI or changed
# with them, both benches, and the notebooks with their outputs kept in $OUT/logs.tgz.
set -u; export PYTHONUNBUFFERED=1; R=$OUT; L=/tmp/L; mkdir -p $L/notebooks
date +%T
python3 -m pip install -q --no-index --find-links .whl --find-links .device/wheel xcuda > $L/pip.log 2>&1 \
  && python3 -m pip install -q --no-index --find-links .whl jupyter_client jupyter_kernel_test nbclient nbformat ipykernel ipywidgets distributed >> $L/pip.log 2>&1 \
  && python3 -m pip install -q --no-index --no-deps --find-links .whl kernel_tuner python-constraint2 xmltodict jsonschema jsonschema-specifications referencing rpds-py >> $L/pip.log 2>&1
echo "pip rc=$?"; tail -3 $L/pip.log
python3 -m xcuda install --sys-prefix > $L/spec.log 2>&1; echo "kernelspec rc=$?"
export JUPYTER_DATA_DIR=/tmp/no-user-specs XCUDA_GPU_TESTS=1 XCUDA_REQUIRE_INTEROP=1
(cd tests/magics/python && timeout 170 python3 -m pytest -q -rs -p no:cacheprovider test_timeline.py test_timeline_view.py \
  test_autotune.py test_cuda_check.py test_cuda_check_gpu.py test_hardware_profile_gpu.py test_profiling.py) > $L/tests.log 2>&1
echo "tests rc=$?"; tail -4 $L/tests.log; date +%T
timeout 100 python3 bench/timeline_vs_profilers.py --json $L/timeline-bench.json > $L/timeline-bench.md 2>&1; echo "timeline bench rc=$?"; cat $L/timeline-bench.md | tail -12; date +%T
timeout 120 python3 bench/autotune_vs_kernel_tuner.py --json $L/autotune-bench.json > $L/autotune-bench.md 2>&1; echo "autotune bench rc=$?"; tail -8 $L/autotune-bench.md; date +%T
XCUDA_ARTIFACTS_DIR=$L/notebooks timeout 120 python3 -m pytest -q -rs -p no:cacheprovider tests/notebooks/test_notebooks.py > $L/notebook-tests.log 2>&1; echo "notebooks rc=$?"; tail -3 $L/notebook-tests.log; date +%T
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C $L -czf $R/logs.tgz .; cp $L/tests.log $L/timeline-bench.md $L/autotune-bench.md $L/notebook-tests.log $R/ 2>/dev/null

#!/usr/bin/env bash
# The timeline's GPU tests alone (graphs, NVTX, CUPTI next to torch.profiler), about 1 minute:
# the device tool runs it from the repository root with .device and .whl carried, as timeline-check.sh.
set -u; export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --find-links .whl --find-links .device/wheel xcuda > /tmp/pip.log 2>&1; echo "pip rc=$?"
(cd tests/magics/python && timeout 120 python3 -m pytest -q -rs -p no:cacheprovider test_timeline.py) 2>&1 | tee $OUT/timeline-tests.log | tail -15
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

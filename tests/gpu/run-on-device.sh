#!/usr/bin/env bash
# Runs every GPU-only suite on the lent GPU machine, from the repository root, in one go.
# Inputs carried in .device/ (built on the CPU machine by tests/gpu/pack.sh):
#   .device/bin/      GoogleTest binaries of cuda-runtime and magics (static gtest)
#   .device/wheel/    the xcuda wheel for cp312, repaired by auditwheel (libxeus, libzmq grafted)
# and, carried beside it, .whl/: cp312 wheels of what that machine's python3 lacks (IPython,
# xeus-python-shell, comm, jupyter_client, nbclient, ipykernel, jupyter_kernel_test: wheels.sh).
# The wheel is installed into that machine's own python3 (a venv holding PyTorch and CuPy), as a
# user installs it; the kernel then runs hosted by that Python.
# and, for part compare, .device/real-kernels/{cuda-samples,cupy}: the sources real_kernels.py
# exported (tests/gpu/pack.sh does it where the snapshots are).
# Logs go to $OUT. Parts: runtime | module | cpu | exercises | kernel | notebooks | compare | restart | checks | launch-ab | probe |
# bench (default: all but probe, bench/probes/startup_probe.sh). restart: bench/restart.py (1 GiB) and
# bench/probes/sanitizer_formats.py (compute-sanitizer's text for the parser's fixtures). checks:
# bench/checks_corpus.py on the GPU and on its CPU device, and bench/probes/checks. cpu: the module suite again on the
# CPU device of the GPU machine; exercises: the exercise grader and the course, graded with the GPU selected;
# compare: the same real kernels on the CPU device and the GPU.
set -u
# At most 8 files come back from $OUT: the logs go to one tarball at the end.
RESULTS=${OUT:-/tmp/xcuda-out}; OUT=/tmp/xcuda-logs; rm -rf "$OUT"; mkdir -p "$OUT" "$RESULTS"
parts=${1:-runtime,module,cpu,exercises,kernel,notebooks,compare,restart,bench}
root=$(pwd)
summary=()
note() { summary+=("$1"); echo "== $1"; }
has() { [[ ",$parts," == *",$1,"* ]]; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 --version

gtest() {  # NAME ENV... -- BINARY ARGS...
  local name=$1; shift; local envs=(); while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" timeout 300 "$@" --gtest_brief=1 >"$OUT/$name.log" 2>&1; local rc=$?
  note "$name rc=$rc $(grep -E '^\[  (PASSED|FAILED|SKIPPED)' "$OUT/$name.log" | tr '\n' ' ')"
}

if has runtime; then
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  b=.device/bin
  gtest rt -- $b/xcuda-rt-tests
  gtest rt-context-lost -- $b/xcuda-rt-context-lost-tests
  gtest rt-no-driver XCUDA_CUDA_DRIVER=/nonexistent/libcuda.so.1 XCUDA_DEVICE=none -- $b/xcuda-rt-no-driver-tests --gtest_filter='NoDriver.*'
  gtest rt-no-driver-cpu XCUDA_CUDA_DRIVER=/nonexistent/libcuda.so.1 -- $b/xcuda-rt-no-driver-tests --gtest_filter='NoDriverCpuDevice.*'
  # the runtime's suite on the CPU device of a GPU machine: the same tests, the other backend
  gtest rt-cpu-device XCUDA_DEVICE=cpu -- $b/xcuda-rt-tests
  gtest rt-sim XCUDA_CUDA_DRIVER=$b/libxcuda-sim-cuda.so -- $b/xcuda-rt-sim-driver-tests
  for k in no-device too-old; do
    gtest rt-fake-$k XCUDA_CUDA_DRIVER=$b/libxcuda-fake-cuda-$k.so XCUDA_FAKE_EXPECT=$k XCUDA_DEVICE=none -- $b/xcuda-rt-fake-driver-tests
  done
  for t in $b/xcuda-*tests; do
    case $(basename "$t") in xcuda-rt-*|xcuda-kernel-*) continue;; esac  # kernel ones need the bundle
    gtest "$(basename "$t")" XDG_CACHE_HOME=/tmp/xcuda-gtest-cache -- "$t"
  done
fi

if has module || has cpu || has exercises || has kernel || has notebooks || has compare || has restart || has checks || has launch-ab || has probe || has bench; then
  # As a user installs it: into the environment's own python3, from wheels only (no registry there).
  time_start=$(date +%s.%N)
  python3 -m pip install --no-index --find-links .whl --find-links .device/wheel xcuda >"$OUT/pip-install.log" 2>&1; rc=$?
  note "pip install --no-index xcuda (into $(python3 -c 'import sys; print(sys.prefix)')) rc=$rc in $(python3 -c "import time; print(round(time.time() - $time_start, 1))") s"
  # the test tools (and ipykernel, bench part 5's peer): not the package's own dependencies
  python3 -m pip install --no-index --find-links .whl jupyter_client jupyter_kernel_test nbclient nbformat ipykernel ipywidgets distributed >>"$OUT/pip-install.log" 2>&1
  python3 -m xcuda install --sys-prefix >"$OUT/xcuda-install.log" 2>&1; rc=$?
  note "python -m xcuda install --sys-prefix rc=$rc: $(head -1 "$OUT/xcuda-install.log")"
  python3 -c "import xcuda, sys; print(xcuda.__file__, sys.version.split()[0])" >>"$OUT/xcuda-install.log" 2>&1
  export JUPYTER_DATA_DIR=/tmp/no-user-specs XCUDA_GPU_TESTS=1 XCUDA_REQUIRE_INTEROP=1
fi

if has module; then
  XDG_CACHE_HOME=/tmp/xcuda-py-cache timeout 240 python3 -m pytest -q -rs -s -p no:cacheprovider tests/magics/python >"$OUT/module-tests.log" 2>&1; rc=$?
  note "module pytest (installed package) rc=$rc $(tail -1 "$OUT/module-tests.log")"
fi

if has cpu; then
  XCUDA_DEVICE=cpu XDG_CACHE_HOME=/tmp/xcuda-py-cache-cpu timeout 300 python3 -m pytest -q -rs -p no:cacheprovider tests/magics/python >"$OUT/module-tests-cpu-device.log" 2>&1; rc=$?
  note "module pytest on the CPU device (XCUDA_DEVICE=cpu) rc=$rc $(tail -1 "$OUT/module-tests-cpu-device.log")"
fi

if has exercises; then
  # the same grades on the GPU as on the CPU device, every test run on both, the kernel timed
  XDG_CACHE_HOME=/tmp/xcuda-py-cache-ex timeout 300 python3 -m pytest -q -rs -p no:cacheprovider \
    tests/exercises/test_exercise_api.py tests/exercises/test_course.py tests/exercises/test_teaching_exercises.py \
    >"$OUT/exercise-tests.log" 2>&1; rc=$?
  note "exercise pytest (graded on the GPU and the CPU device) rc=$rc $(tail -1 "$OUT/exercise-tests.log")"
fi

if has compare; then
  src=.device/real-kernels
  if [ -d "$src/cuda-samples" ] && [ -d "$src/cupy" ]; then
    timeout 400 python3 bench/cpu-device/real_kernels.py --compare --samples "$src/cuda-samples" --cupy "$src/cupy" \
      --json "$OUT/real_kernels-compare.json" --markdown >"$OUT/real-kernels-compare.md" 2>&1; rc=$?
    note "real kernels, CPU device vs GPU rc=$rc $(tail -1 "$OUT/real-kernels-compare.md")"
    cp "$OUT/real-kernels-compare.md" "$RESULTS/" 2>/dev/null || true
  else
    note "compare skipped: no $src/cuda-samples and $src/cupy (tests/gpu/pack.sh exports them where the snapshots are)"
  fi
fi

if has kernel; then
  # the simulated-fault cases too, against the simulated libcuda carried in .device/bin
  (cd tests/kernel && XCUDA_SIM_DRIVER="$root/.device/bin/libxcuda-sim-cuda.so" timeout 300 python3 -m pytest -q -rs -p no:cacheprovider .) >"$OUT/kernel-tests.log" 2>&1; rc=$?
  note "kernel pytest (hosted kernel) rc=$rc $(tail -1 "$OUT/kernel-tests.log")"
fi

if has notebooks; then
  XCUDA_ARTIFACTS_DIR="$OUT/notebooks" timeout 300 python3 -m pytest -q -rs -p no:cacheprovider tests/notebooks >"$OUT/notebook-tests.log" 2>&1; rc=$?
  note "notebook pytest (xcuda kernel, CuPy/PyTorch required) rc=$rc $(tail -1 "$OUT/notebook-tests.log")"
fi

if has restart; then
  timeout 120 python3 bench/restart.py --size-mb 1024 --json "$OUT/restart.json" >"$OUT/restart.md" 2>&1; rc=$?
  note "%cuda_restart with 1 GiB rc=$rc"; tail -4 "$OUT/restart.md"
  mkdir -p "$OUT/sanitizer"; timeout 60 python3 bench/probes/sanitizer_formats.py "$OUT/sanitizer" >"$OUT/sanitizer.log" 2>&1
  note "compute-sanitizer formats rc=$? $(tr '\n' ' ' <"$OUT/sanitizer.log")"
fi

if has checks; then
  # The checks' corpus (typical bugs and their correct twins): compute-sanitizer through
  # Kernel.check on the GPU, then the CPU device of this machine, case by case.
  timeout 500 python3 bench/checks_corpus.py --device gpu --markdown --json "$OUT/checks-gpu.json" >"$OUT/checks-gpu.md" 2>&1; rc=$?
  note "checks corpus on the GPU (compute-sanitizer) rc=$rc $(grep '^gpu:' "$OUT/checks-gpu.md")"
  timeout 300 python3 bench/checks_corpus.py --device cpu --markdown --json "$OUT/checks-cpu.json" >"$OUT/checks-cpu.md" 2>&1; rc=$?
  note "checks corpus on the CPU device rc=$rc $(grep '^cpu:' "$OUT/checks-cpu.md")"
  mkdir -p "$OUT/probes"; bash bench/probes/checks/run.sh "$OUT/probes" >/dev/null 2>&1
  cp "$OUT/probes/all.txt" "$OUT/checks-probes.txt"; rm -rf "$OUT/probes"
  note "compute-sanitizer on bench/probes/checks: $(grep -c '^###' "$OUT/checks-probes.txt") runs"
fi

if has launch-ab; then
  # The launch cost of another tree's wheel (.device/wheel-old, e.g. the tree of 2026-12-04) against
  # this one's, alternating in fresh processes, each against CuPy on the same cubin (launch_ab.py).
  if ls .device/wheel-old/xcuda-*.whl >/dev/null 2>&1; then
    rm -rf /tmp/old-site
    python3 -m pip install -q --no-index --no-deps --target /tmp/old-site .device/wheel-old/xcuda-*.whl >>"$OUT/pip-install.log" 2>&1
    for round in 1 2 3 4 5; do
      PYTHONPATH=/tmp/old-site timeout 60 python3 bench/probes/launch_ab.py >>"$OUT/launch-ab.jsonl" 2>>"$OUT/launch-ab.log"
      timeout 60 python3 bench/probes/launch_ab.py >>"$OUT/launch-ab.jsonl" 2>>"$OUT/launch-ab.log"
    done
    cp "$OUT/launch-ab.jsonl" "$RESULTS/"
    note "launch A/B (old wheel, this wheel; xcuda/CuPy ratio per run): $(python3 -c "import json,sys; print(' '.join('%s:%.3f' % ('old' if 'old-site' in r['module'] else 'new', r['ratio']) for r in map(json.loads, open(sys.argv[1]))))" "$OUT/launch-ab.jsonl")"
  else
    note "launch-ab skipped: no .device/wheel-old/xcuda-*.whl"
  fi
fi

if has probe; then
  bash bench/probes/startup_probe.sh python3 >"$OUT/startup-probe.log" 2>&1; rc=$?
  note "startup probe rc=$rc"; cat "$OUT/startup-probe.log"
fi

if has bench; then
  # XCUDA_BENCH_ARGS: extra bench/run.py arguments (e.g. --only launch,startup when device time is short).
  # Part 5: the hosted kernel and ipykernel started by the same python3 (the same environment).
  startup=(--kernel-cmd "$(command -v python3) -m xcuda -f {connection_file}" --jupyter-python "$(command -v python3)")
  timeout 420 python3 bench/run.py --out "$OUT" "${startup[@]}" ${XCUDA_BENCH_ARGS:-} >"$OUT/bench.log" 2>&1; rc=$?
  note "bench rc=$rc"; tail -40 "$OUT/bench.log"
fi

printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
tar -C "$OUT" -czf "$RESULTS/logs.tgz" .
cp "$OUT"/*.md "$RESULTS/" 2>/dev/null || true

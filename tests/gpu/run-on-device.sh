#!/usr/bin/env bash
# Runs every GPU-only suite on the lent GPU machine, from the repository root, in one go.
# Inputs carried in .device/ (built on the CPU machine by tests/gpu/pack.sh):
#   .device/bin/      GoogleTest binaries of cuda-runtime and magics (static gtest)
#   .device/bundle/   ../shared/tools/device-bundle output: the xcuda kernel's libraries and Debian's Python 3.11
#   .device/prefix/   the installed kernel (bin/xcuda, share/jupyter/kernels/xcuda)
# and, for the interop part and bench part 5's "ipykernel + CuPy" peer, carried beside it:
#   .whl/             cp312 wheels of ipykernel and nbclient (tests/gpu/wheels.sh)
# Logs go to $OUT. Parts: runtime | module | interop | kernel | notebooks | bench (default: all but interop).
set -u
# At most 8 files come back from $OUT: the logs go to one tarball at the end.
RESULTS=${OUT:-/tmp/xcuda-out}; OUT=/tmp/xcuda-logs; rm -rf "$OUT"; mkdir -p "$OUT" "$RESULTS"
parts=${1:-runtime,module,kernel,notebooks,bench}
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
  gtest rt-no-driver XCUDA_CUDA_DRIVER=/nonexistent/libcuda.so.1 -- $b/xcuda-rt-no-driver-tests
  gtest rt-sim XCUDA_CUDA_DRIVER=$b/libxcuda-sim-cuda.so -- $b/xcuda-rt-sim-driver-tests
  for k in no-device too-old; do
    gtest rt-fake-$k XCUDA_CUDA_DRIVER=$b/libxcuda-fake-cuda-$k.so XCUDA_FAKE_EXPECT=$k -- $b/xcuda-rt-fake-driver-tests
  done
  for t in $b/xcuda-*tests; do
    case $(basename "$t") in xcuda-rt-*|xcuda-kernel-*) continue;; esac  # kernel ones need the bundle
    gtest "$(basename "$t")" XDG_CACHE_HOME=/tmp/xcuda-gtest-cache -- "$t"
  done
fi

if has module || has bench || has interop; then
  cmake -S . -B /tmp/b312 -G Ninja -DXCUDA_BUILD_KERNEL=OFF -DXCUDA_BUILD_PYTHON_MODULE=ON \
    -DXCUDA_BUILD_TESTS=OFF -DPython_EXECUTABLE="$(command -v python3)" \
    -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" >"$OUT/module-build.log" 2>&1 &&
  cmake --build /tmp/b312 -j16 --target xcuda-python-module >>"$OUT/module-build.log" 2>&1; rc=$?
  note "module build (python3.12) rc=$rc"
  modpath=$(dirname "$(find /tmp/b312 -name 'xcuda*.so' | head -1)")
fi

if has module; then
  PYTHONPATH="$modpath" XDG_CACHE_HOME=/tmp/xcuda-py-cache timeout 150 python3 -m pytest -q -rs -s tests/magics/python >"$OUT/module-tests.log" 2>&1; rc=$?
  note "module pytest rc=$rc $(tail -1 "$OUT/module-tests.log")"
fi

if has interop; then
  # Notebooks in ipykernel on the GPU machine's own Python 3.12, where CuPy and PyTorch are, with
  # the extension module: the kernel's Debian Python 3.11 has neither. Needs wheels of ipykernel,
  # nbclient and their dependencies carried in .whl/ (the GPU machine reaches no registry).
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
  python3 -m ipykernel install --prefix /tmp/jk --name python3 >/dev/null 2>&1
  PYTHONPATH="/tmp/site:$modpath" JUPYTER_PATH=/tmp/jk/share/jupyter XCUDA_NOTEBOOK_KERNEL=python3 XCUDA_NOTEBOOK_GLOB='0[234]-*.ipynb' \
    XCUDA_GPU_TESTS=1 XCUDA_REQUIRE_INTEROP=1 XCUDA_ARTIFACTS_DIR="$OUT/notebooks-ipykernel" \
    timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/notebooks/test_notebooks.py \
    >"$OUT/interop-notebooks.log" 2>&1; rc=$?
  note "notebooks in ipykernel + CuPy/PyTorch (python3.12) rc=$rc $(tail -1 "$OUT/interop-notebooks.log")"
fi

saved_ld=${LD_LIBRARY_PATH:-}
if has kernel || has notebooks || has bench; then
  # enter.sh sets PYTHONHOME=/usr for Debian's 3.11: undone below, before the venv's python3 runs again
  source .device/bundle/enter.sh
  bundle_ld=$LD_LIBRARY_PATH
  # Debian installs byte-code with its packages (py3compile); the bundle carries sources only, so
  # it is compiled once here: otherwise every fresh kernel (part 5 of the bench) compiles IPython
  # again (2.2 s to kernel_info on 2026-12-03 08:19, for xcuda and ipykernel alike).
  /usr/bin/python3.11 -m compileall -q -j 0 /usr/lib/python3/dist-packages /usr/lib/python3.11 >/dev/null 2>&1
  note "bundle byte-compiled rc=$?"
  export JUPYTER_PATH="$root/.device/prefix/share/jupyter"
  # the kernelspec's argv points at the CPU machine's build prefix: point it here
  sed -i "s#\"[^\"]*/bin/xcuda\"#\"$root/.device/prefix/bin/xcuda\"#" "$JUPYTER_PATH/kernels/xcuda/kernel.json"
fi

if has kernel; then
  for t in .device/bin/xcuda-kernel-*tests; do gtest "$(basename "$t")" -- "$t"; done
  XCUDA_GPU_TESTS=1 timeout 280 /usr/bin/python3.11 -m pytest -q -rs tests/kernel >"$OUT/kernel-tests.log" 2>&1; rc=$?
  note "kernel pytest rc=$rc $(tail -1 "$OUT/kernel-tests.log")"
fi

if has notebooks; then
  XCUDA_GPU_TESTS=1 XCUDA_ARTIFACTS_DIR="$OUT/notebooks" timeout 150 /usr/bin/python3.11 -m pytest -q -rs tests/notebooks >"$OUT/notebook-tests.log" 2>&1; rc=$?
  note "notebook pytest rc=$rc $(tail -1 "$OUT/notebook-tests.log")"
fi

unset PYTHONHOME; export LD_LIBRARY_PATH=$saved_ld

if has bench; then
  # Part 5 (fresh kernels) in the same run as the other parts, so that all ratios come from one run.
  # jupyter_client, the xcuda kernel and the plain ipykernel peer run on the bundle's Debian Python
  # 3.11 (the one the kernel embeds: same interpreter, same IPython) in enter.sh's environment; the
  # CuPy peer is ipykernel on this machine's Python 3.12 (CuPy is only there), from .whl/.
  py311="env -u PYTHONPATH PYTHONHOME=/usr LD_LIBRARY_PATH=$bundle_ld:/usr/local/cuda/lib64 /usr/bin/python3.11"
  startup=(--kernel-cmd "$root/.device/prefix/bin/xcuda -f {connection_file}" --jupyter-python "$py311")
  if ls .whl/ipykernel-*.whl >/dev/null 2>&1; then
    [ -d /tmp/site/ipykernel ] ||
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    python3 -m compileall -q -j 0 /tmp/site >/dev/null 2>&1  # as pip would have: a fair start for the peer
    startup+=(--cupy-kernel-cmd "env -u PYTHONHOME PYTHONPATH=/tmp/site LD_LIBRARY_PATH=$saved_ld $(command -v python3) -m ipykernel_launcher -f {connection_file}")
  else
    note "bench: no .whl/ carried (tests/gpu/wheels.sh): part 5's CuPy peer falls back to Python 3.11's ipykernel, which has no CuPy"
  fi
  # XCUDA_BENCH_ARGS: extra bench/run.py arguments (e.g. --only launch,startup when device time is short)
  PYTHONPATH="$modpath" timeout 420 python3 bench/run.py --out "$OUT" "${startup[@]}" ${XCUDA_BENCH_ARGS:-} >"$OUT/bench.log" 2>&1; rc=$?
  note "bench rc=$rc"; tail -40 "$OUT/bench.log"
fi

printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
tar -C "$OUT" -czf "$RESULTS/logs.tgz" .
cp "$OUT"/*.md "$RESULTS/" 2>/dev/null || true

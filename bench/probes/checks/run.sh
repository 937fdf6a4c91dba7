#!/usr/bin/env bash
# Runs each probe under the compute-sanitizer tool its name's first letter picks (s: synccheck,
# m: memcheck, i: initcheck, r: racecheck), and memcheck on every probe, on a GPU machine.
# The CPU device's checks are held to what these logs say (their rules are written from them).
# usage: bench/probes/checks/run.sh OUTDIR
set -u
out=${1:?usage: run.sh OUTDIR}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
export PATH=/usr/local/cuda/bin:$PATH
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
for f in "$here"/*.cu; do
  n=$(basename "$f" .cu)
  nvcc -lineinfo -arch=sm_$arch -o "$out/$n" "$f" >"$out/$n.build.log" 2>&1 &
done
wait
for f in "$here"/*.cu; do
  n=$(basename "$f" .cu)
  case $n in s*) tool=synccheck;; i*) tool=initcheck;; r*) tool=racecheck;; *) tool=memcheck;; esac
  {
    echo "### $n ($tool)"
    timeout 60 compute-sanitizer --tool "$tool" --show-backtrace no "$out/$n" 2>&1
    if [ "$tool" != memcheck ]; then
      echo "### $n (memcheck)"
      timeout 60 compute-sanitizer --tool memcheck --show-backtrace no "$out/$n" 2>&1
    fi
    echo "### $n (no tool)"
    timeout 60 "$out/$n" 2>&1
  } >"$out/$n.log"
done
cat "$out"/*.log | grep -v '^$' >"$out/all.txt"

# Sourced by .ci/test: each stage of the suite timed, and a summary of their wall times (and of
# the slowest tests each stage ran) printed when the run ends, passed or failed, so every CI log
# says where its minutes went.
#   stage NAME COMMAND...          runs COMMAND in the foreground as stage NAME
#   stage_background NAME COMMAND... starts it beside the next stages (its output goes to
#                                  $stage_logs/NAME.log, printed when it is waited for)
#   stage_wait NAME                waits for a background stage; its status counts as the stage's
#   stage_slowest NAME FILE...     the ten longest tests of a stage, from ctest logs and pytest
#                                  JUnit XML files (.ci/slowest), shown in the summary
# Needs $stage_logs (a directory) set before it is sourced. The free disk space of the build's
# file system is sampled every 5 s: the summary says how low it went (a CI machine once ran out
# while linking the ASan build), and the run warns at its start when less than it needs is free.

mkdir -p "$stage_logs"
: >"$stage_logs/stages.tsv"
stage_run_start=$SECONDS
declare -A stage_pids=() stage_starts=()

stage_free_mib() { df -Pm "$stage_logs" | awk 'NR == 2 { print $4 }'; }
stage_disk_needed_mib=12288  # a cold run's build directories, venvs and compiler cache, with margin
stage_disk_start=$(stage_free_mib)
if [ "$stage_disk_start" -lt "$stage_disk_needed_mib" ]; then
  echo "=== WARNING: $stage_disk_start MiB free on $(df -P "$stage_logs" | awk 'NR == 2 { print $6 }');" \
    "a cold run needs about $stage_disk_needed_mib MiB (build directories, venvs, ccache): it may fail with" \
    "'No space left on device'"
fi
( lowest=$stage_disk_start
  while sleep 5; do
    now=$(stage_free_mib) || exit 0
    [ "$now" -lt "$lowest" ] && lowest=$now && echo "$lowest" >"$stage_logs/disk-lowest"
  done ) &
stage_disk_sampler=$!
echo "$stage_disk_start" >"$stage_logs/disk-lowest"

stage_record() {  # NAME SECONDS STATUS
  printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$stage_logs/stages.tsv"
}

stage() {
  local name=$1
  shift
  echo "=== stage $name: $*"
  local start=$SECONDS status=0
  "$@" || status=$?
  stage_record "$name" $((SECONDS - start)) "$status"
  echo "=== stage $name: $([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status)") in $((SECONDS - start)) s"
  return "$status"
}

stage_background() {
  local name=$1
  shift
  echo "=== stage $name (in the background, log $stage_logs/$name.log): $*"
  stage_starts[$name]=$SECONDS
  "$@" >"$stage_logs/$name.log" 2>&1 &
  stage_pids[$name]=$!
}

stage_wait() {
  local name=$1 status=0
  wait "${stage_pids[$name]}" || status=$?
  local took=$((SECONDS - stage_starts[$name]))
  unset "stage_pids[$name]"
  echo "=== stage $name (background) output:"
  cat "$stage_logs/$name.log"
  stage_record "$name" "$took" "$status"
  echo "=== stage $name: $([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status)") in $took s (in the background)"
  return "$status"
}

stage_slowest() {  # NAME FILE...: appended to the summary
  local name=$1
  shift
  python3 "$(dirname "${BASH_SOURCE[0]}")/slowest" --title "$name" "$@" >>"$stage_logs/slowest.txt" 2>&1 || true
}

stage_summary() {
  local status=$?
  # A background stage still running when the run stops (a foreground stage failed) is stopped.
  local name
  for name in "${!stage_pids[@]}"; do kill "${stage_pids[$name]}" 2>/dev/null || true; done
  kill "$stage_disk_sampler" 2>/dev/null || true
  echo
  echo "=== stage times (wall clock, $(nproc) cores; background stages overlap the others)"
  awk -F'\t' '{ printf "  %-16s %6d s  %5.1f min  %s\n", $1, $2, $2 / 60, ($3 == 0 ? "passed" : "FAILED (exit " $3 ")") }' \
    "$stage_logs/stages.tsv"
  local total=$((SECONDS - stage_run_start))
  printf '  %-16s %6d s  %5.1f min\n' "whole run" "$total" "$(awk -v t="$total" 'BEGIN { printf "%.1f", t / 60 }')"
  echo "  disk: $stage_disk_start MiB free at the start, $(cat "$stage_logs/disk-lowest") MiB at the lowest," \
    "$(stage_free_mib) MiB at the end"
  [ -s "$stage_logs/slowest.txt" ] && cat "$stage_logs/slowest.txt"
  return "$status"
}
trap stage_summary EXIT

""".ci/skip-reasons: what .ci/test prints after ctest, the reasons tests were skipped, from ctest's
log (GoogleTest's GTEST_SKIP messages and pytest's -rs lines), grouped and counted."""
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / ".ci" / "skip-reasons"

LOG = """\
[ RUN      ] ProfilerTest.ABadMetricNameFailsBeforeTheWorkRuns
/src/tests/cuda-runtime/profiler_test.cpp:89: Skipped
hardware counters need a GPU
[  SKIPPED ] ProfilerTest.ABadMetricNameFailsBeforeTheWorkRuns (0 ms)
[ RUN      ] ProfilerTest.Other
/src/tests/cuda-runtime/profiler_test.cpp:89: Skipped
hardware counters need a GPU
SKIPPED [3] ../../../tests/magics/python/test_array_fast_paths.py:320: cupy is not installed in this Python
SKIPPED [1] ../../../tests/magics/python/test_graphs.py:12: needs PyTorch
"""


def run(build):
    return subprocess.run([sys.executable, str(SCRIPT), str(build)], capture_output=True, text=True)


def test_reasons_are_grouped_with_their_counts_most_common_first(tmp_path):
    log = tmp_path / "Testing" / "Temporary" / "LastTest.log"
    log.parent.mkdir(parents=True)
    log.write_text(LOG)
    r = run(tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "skip-reasons: 6 tests skipped, for 3 reasons:"
    assert lines[1].split()[:2] == ["3", "cupy"] and "(e.g. test_array_fast_paths.py)" in lines[1]
    assert "2  hardware counters need a GPU  (e.g. profiler_test.cpp)" in r.stdout
    assert "1  needs PyTorch" in r.stdout


def test_without_a_ctest_log_it_says_to_run_ctest(tmp_path):
    r = run(tmp_path)
    assert r.returncode != 0 and "run ctest first" in r.stderr

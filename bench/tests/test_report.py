"""Checks of the benchmark's own arithmetic (no GPU needed): goal ratios, verdicts, the
reasons carried into n/a, and the interleaving runner. Run: python3 -m pytest bench/tests"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import report  # noqa: E402
from timing import Stats, interleave  # noqa: E402


def test_time_goal_divides_xcuda_by_peer_and_misses_above_the_limit():
    res = report.Results()
    res.add("p", "x", "ns", [8.0, 9.0, 10.0])
    res.add("p", "peer", "ns", [10.0, 10.0, 10.0])
    assert res.goal("p", "g", "x", "peer", "<=", 0.7).verdict == "MISS"
    assert res.goals[-1].ratio == 0.9
    assert res.goal("p", "g", "x", "peer", "<=", 1.0).verdict == "PASS"


def test_inverted_goal_is_a_speed_up():
    res = report.Results()
    res.add("p", "x", "ms", [2.0])
    res.add("p", "peer", "ms", [3.0])
    g = res.goal("p", "g", "x", "peer", ">=", 1.0, invert=True)
    assert g.ratio == 1.5 and g.verdict == "PASS"


def test_absolute_goal_uses_the_median_alone():
    res = report.Results()
    res.add("p", "hit", "ms", [0.2, 0.05, 0.01])
    g = res.goal("p", "g", "hit", "ms", "<=", 0.1, absolute=True)
    assert g.ratio == 0.05 and g.verdict == "PASS"


def test_goal_on_a_failed_row_is_na_with_the_reason():
    res = report.Results()
    res.fail("p", "x", "ns", report.ERROR, "ImportError: no xcuda")
    res.add("p", "peer", "ns", [1.0])
    g = res.goal("p", "g", "x", "peer", "<=", 1.0)
    assert g.ratio is None and "ImportError: no xcuda" in g.verdict
    assert res.errors()[0].name == "x"


def test_skipped_part_reason_reaches_its_goals():
    res = report.Results()
    res.fail("p", "(whole part)", "ns", report.SKIPPED, "no CUDA device")
    g = res.goal("p", "g", "x", "peer", "<=", 1.0)
    assert "no CUDA device" in g.verdict


def test_interleave_rotates_the_first_peer_and_keeps_failures():
    order = []

    def peer(name):
        def run():
            order.append(name)
            return 1.0
        return run

    def broken():
        raise ValueError("bad input")
    out = interleave({"a": peer("a"), "b": peer("b"), "c": broken}, reps=3)
    assert order == ["a", "b", "b", "a", "a", "b"]
    assert out["c"].failure == "ValueError: bad input" and out["c"].samples == []
    assert Stats.of(out["a"].samples).n == 3


def test_written_files_hold_the_command_and_goals(tmp_path):
    res = report.Results(meta={"device": "dev", "date": "today", "command": "python3 bench/run.py"})
    res.add("p", "x", "ns", [1.0])
    res.add("p", "peer", "ns", [2.0])
    res.goal("p", "x vs peer", "x", "peer", "<=", 0.7)
    md, js = report.write(res, str(tmp_path), "stem")
    text = open(md).read()
    assert "python3 bench/run.py" in text and "| p | x vs peer | 0.500 | <= 0.7 | PASS |" in text
    assert os.path.exists(js)

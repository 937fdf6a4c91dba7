"""The disk-hit layout (no GPU needed): several fresh processes per peer, peers alternating with
the first one rotating, every timed entry filled beforehand and none timed twice."""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from compile import disk_hit_plan  # noqa: E402


def counter():
    n = itertools.count()
    return lambda: f"s{next(n)}"


def test_peers_alternate_and_the_first_one_rotates_per_round():
    _, runs = disk_hit_plan(["xcuda", "cupy"], procs=3, entries=7, salt=counter())
    assert [w for w, _ in runs] == ["xcuda", "cupy", "cupy", "xcuda", "xcuda", "cupy"]


def test_every_timed_entry_is_filled_first_and_timed_once():
    fills, runs = disk_hit_plan(["xcuda", "cupy"], procs=3, entries=7, salt=counter())
    timed = {w: [s for ww, salts in runs if ww == w for s in salts] for w in fills}
    for w in fills:
        assert len(timed[w]) == 21 and sorted(timed[w]) == sorted(fills[w])
    assert not set(timed["xcuda"]) & set(timed["cupy"])
    assert all(len(salts) == 7 for _, salts in runs)


def test_a_single_peer_still_gets_its_processes():
    fills, runs = disk_hit_plan(["xcuda"], procs=2, entries=5, salt=counter())
    assert [w for w, _ in runs] == ["xcuda", "xcuda"] and len(fills["xcuda"]) == 10


def test_no_peer_no_runs():
    assert disk_hit_plan([], procs=3, entries=7) == ({}, [])

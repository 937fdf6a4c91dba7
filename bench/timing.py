"""Timing helpers shared by every part: statistics, host-clock loops, device events,
and the round-robin runner that interleaves peers (performance.md: one process,
interleave peers, median with min/max)."""
from __future__ import annotations

import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional


@dataclass
class Stats:
    median: float
    min: float
    max: float
    n: int

    @classmethod
    def of(cls, values: List[float]) -> "Stats":
        if not values:
            raise ValueError("no samples to summarise")
        return cls(statistics.median(values), min(values), max(values), len(values))

    def as_dict(self) -> dict:
        return {"median": self.median, "min": self.min, "max": self.max, "n": self.n}


def describe(exc: BaseException) -> str:
    """The exact exception, type and message, as recorded in a row's reason."""
    return f"{type(exc).__name__}: {exc}"


def host_ns_per_call(fn: Callable[[], object], iters: int) -> float:
    """Host time per call in ns for `iters` back-to-back calls; no sync inside."""
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(iters):
        fn()
    return (clock() - t0) / iters


def wall_ms(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


class EventTimer:
    """Device time of one call on a stream, through CuPy events recorded on that stream
    (events measure whatever the stream ran, whichever library queued it)."""

    def __init__(self, cupy_module, stream):
        self.cp = cupy_module
        self.stream = stream
        self.start = cupy_module.cuda.Event()
        self.stop = cupy_module.cuda.Event()

    def ms(self, fn: Callable[[], object]) -> float:
        self.start.record(self.stream)
        fn()
        self.stop.record(self.stream)
        self.stop.synchronize()
        return self.cp.cuda.get_elapsed_time(self.start, self.stop)


@dataclass
class PeerOutcome:
    samples: List[float] = field(default_factory=list)
    failure: Optional[str] = None


def interleave(peers: Dict[str, Callable[[], float]], reps: int,
               between: Optional[Callable[[], object]] = None) -> Dict[str, PeerOutcome]:
    """Round-robin: every repeat runs each peer once, the starting peer rotating per
    repeat so that no peer always follows the same neighbour. A peer that raises is
    recorded with the exact exception and dropped from later repeats; the others go on."""
    names = list(peers)
    out = {name: PeerOutcome() for name in names}
    for rep in range(reps):
        k = rep % len(names) if names else 0
        for name in names[k:] + names[:k]:
            if out[name].failure is not None:
                continue
            try:
                out[name].samples.append(peers[name]())
            except Exception as exc:  # recorded in the row, never swallowed
                out[name].failure = describe(exc)
                print(f"   {name} failed in repeat {rep}:\n{traceback.format_exc()}", file=sys.stderr)
            if between is not None:
                between()
    return out

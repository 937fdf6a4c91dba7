"""Rows, goals (ratio vs goal with PASS/MISS), the printed table and the results files."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Tuple

from timing import Stats, describe

OK, UNAVAILABLE, ERROR, WRONG, SKIPPED = "ok", "unavailable", "ERROR", "WRONG", "skipped"
WHOLE_PART = "(whole part)"  # the row of a part that could not run at all


class WrongResult(Exception):
    """A call's result differs from its reference: its row is WRONG, and it is not timed."""


def failed(exc: BaseException, ours: bool) -> Tuple[str, str]:
    """Status and reason of a row whose check or warm-up raised `exc`: WRONG with the message for a
    wrong result; otherwise the exact exception, an ERROR in xcuda's own rows (`ours`) and
    UNAVAILABLE in a peer's, since a peer that cannot run on this machine is no fault of xcuda's."""
    if isinstance(exc, WrongResult):
        return WRONG, str(exc)
    return (ERROR if ours else UNAVAILABLE), describe(exc)


@dataclass
class Row:
    part: str
    name: str
    unit: str
    status: str = OK
    reason: str = ""
    stats: Optional[dict] = None
    note: str = ""

    @property
    def median(self) -> Optional[float]:
        return self.stats["median"] if self.stats else None


@dataclass
class Goal:
    part: str
    text: str          # the goal in words, as the results table shows it
    definition: str    # how the ratio is formed
    ratio: Optional[float]
    op: str            # "<=" or ">="
    limit: float
    verdict: str       # PASS / MISS / n/a (why)


@dataclass
class Results:
    rows: List[Row] = field(default_factory=list)
    goals: List[Goal] = field(default_factory=list)
    meta: Dict[str, object] = field(default_factory=dict)

    def _find(self, part: str, name: str) -> Optional[Row]:
        for row in self.rows:
            if row.part == part and row.name == name:
                return row
        return None

    def add(self, part: str, name: str, unit: str, samples: Optional[List[float]] = None, *,
            status: str = OK, reason: str = "", note: str = "") -> Row:
        stats = Stats.of(samples).as_dict() if samples else None
        if status == OK and stats is None:
            status, reason = ERROR, reason or "no samples were taken"
        row = Row(part, name, unit, status, reason, stats, note)
        existing = self._find(part, name)
        if existing is not None:
            self.rows.remove(existing)
        self.rows.append(row)
        return row

    def fail(self, part: str, name: str, unit: str, status: str, reason: str, note: str = "") -> Row:
        return self.add(part, name, unit, status=status, reason=reason, note=note)

    def fail_part(self, part: str, unit: str, status: str, reason: str) -> Row:
        """One row for a part that could not run at all; goals that need its rows say why."""
        return self.fail(part, WHOLE_PART, unit, status, reason)

    def goal(self, part: str, text: str, num: str, den: str, op: str, limit: float,
             invert: bool = False, absolute: bool = False) -> Goal:
        """ratio = median(num) / median(den), or den/num when invert (speed-ups from times),
        or median(num) alone when absolute (den names the unit, e.g. a limit in ms)."""
        a = self._find(part, num)
        b = None if absolute else self._find(part, den)
        if absolute:
            definition = f"median({num})"
        elif invert:
            definition = f"median({den}) / median({num})"
        else:
            definition = f"median({num}) / median({den})"
        pairs = [(num, a)] if absolute else [(num, a), (den, b)]
        missing = [n for n, r in pairs if r is None or r.status != OK or r.median is None]
        if missing:
            ratio, verdict = None, "n/a (" + ", ".join(
                f"{m}: {self._why(part, m)}" for m in missing) + ")"
        else:
            if absolute:
                ratio = a.median
            elif invert:
                ratio = b.median / a.median if a.median else None
            else:
                ratio = a.median / b.median if b.median else None
            if ratio is None:
                verdict = "n/a (zero denominator)"
            else:
                ok = ratio <= limit if op == "<=" else ratio >= limit
                verdict = "PASS" if ok else "MISS"
        g = Goal(part, text, definition, ratio, op, limit, verdict)
        self.goals.append(g)
        return g

    def _why(self, part: str, name: str) -> str:
        r = self._find(part, name)
        if r is None:
            whole = self._find(part, WHOLE_PART)
            return f"{whole.status}: {whole.reason}" if whole else "not measured"
        return f"{r.status}: {r.reason}" if r.status != OK else "no median"

    def errors(self) -> List[Row]:
        return [r for r in self.rows if r.status in (ERROR, WRONG)]


def _fmt(v: Optional[float]) -> str:
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    if abs(v) >= 0.1:
        return f"{v:.3f}"
    return f"{v:.4g}"


def _clip(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def rows_table(res: Results, clip: bool = True) -> str:
    lines = ["| part | measurement | median | min | max | n | unit | status |",
             "|---|---|---:|---:|---:|---:|---|---|"]
    for r in res.rows:
        s = r.stats or {}
        status = r.status if not r.reason else f"{r.status}: {r.reason}"
        if r.note:
            status += f" ({r.note})"
        status = _clip(status) if clip else " ".join(status.split())
        lines.append(f"| {r.part} | {r.name} | {_fmt(s.get('median'))} | {_fmt(s.get('min'))} | "
                     f"{_fmt(s.get('max'))} | {s.get('n', '-')} | {r.unit} | {status.replace('|', '/')} |")
    return "\n".join(lines)


def goals_table(res: Results, clip: bool = True) -> str:
    lines = ["| part | goal | ratio | limit | verdict | ratio is |",
             "|---|---|---:|---:|---|---|"]
    for g in res.goals:
        verdict = _clip(g.verdict) if clip else g.verdict
        lines.append(f"| {g.part} | {g.text} | {_fmt(g.ratio)} | {g.op} {g.limit:g} | "
                     f"{verdict.replace('|', '/')} | {g.definition} |")
    return "\n".join(lines)


def meta_block(res: Results) -> str:
    out = []
    for k, v in res.meta.items():
        if isinstance(v, dict):
            out.append(f"- {k}:")
            out.extend(f"  - {kk}: {vv}" for kk, vv in v.items())
        else:
            out.append(f"- {k}: {v}")
    return "\n".join(out)


def write(res: Results, out_dir: str, stem: str) -> List[str]:
    os.makedirs(out_dir, exist_ok=True)
    md_path = os.path.join(out_dir, stem + ".md")
    js_path = os.path.join(out_dir, stem + ".json")
    errors = res.errors()
    with open(md_path, "w") as f:
        f.write(f"# xcuda benchmarks: {res.meta.get('device', '?')}, {res.meta.get('date', '?')}\n\n")
        f.write(meta_block(res) + "\n\n## Goals\n\n" + goals_table(res, clip=False) + "\n\n")
        f.write("## Measurements\n\n" + rows_table(res, clip=False) + "\n")
        if errors:
            f.write("\n## Errors and wrong results\n\n")
            f.writelines(f"- {r.part} / {r.name}: {r.status}: {r.reason}\n" for r in errors)
    with open(js_path, "w") as f:
        json.dump({"meta": res.meta, "goals": [asdict(g) for g in res.goals],
                   "rows": [asdict(r) for r in res.rows]}, f, indent=1, default=str)
    return [md_path, js_path]


def print_final(res: Results) -> None:
    print("\n## Measurements\n" + rows_table(res))
    errors = res.errors()
    if errors:
        print("\n## Errors and wrong results")
        for r in errors:
            print(f"- {r.part} / {r.name}: {r.status}: {_clip(r.reason, 400)}")
    print("\n## Goals\n" + goals_table(res))

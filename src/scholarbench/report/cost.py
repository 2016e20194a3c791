"""The report's cost part (docs/cost.md): per benchmark and sub-task, each run's headline
against its cost per sample, and which runs are on the Pareto front — no other run is at least
as good for at most the cost and better in one of the two (AstaBench's leaderboard view).

Everything comes from summary.json: the headline measure's mean (the benchmark's first
headline for the sub-task, its `Measure` saying whether higher is better) and `cost`
(`core.cost.run_cost`). When every run of a group has a price, the cost axis is dollars per
sample; when one lacks it, tokens per sample for all of them (never dollars for some and
nothing for the rest), and the note says why. Runs without a `cost` (no model call, or made
before costs were recorded) are listed in the table as "—" and left off the plot.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from scholarbench.core.cost import cost_cell
from scholarbench.core.registry import REGISTRY
from scholarbench.report import svg
from scholarbench.report.sections.base import ReportRun
from scholarbench.report.tables import Row, Table, TableGroup

TITLE = "Cost"
HEADER = ("run directory", "agent", "headline", "score", "per sample", "run cost", "calls",
          "tokens", "Pareto front")


@dataclass(frozen=True)
class CostPoint:
    run: ReportRun
    key: str                   # the headline measure
    score: float | None
    x: float | None            # cost per sample on the group's axis (None: no cost)
    higher_better: bool = True


def headline_of(run: ReportRun) -> tuple[str | None, bool, str]:
    """(headline key, whether higher is better, its label) of a run's benchmark and mode."""
    cls = REGISTRY.find("benchmark", run.benchmark)
    try:
        bench = cls({}) if cls is not None else None
        keys = list((bench.headline or {}).get(run.mode) or ()) if bench is not None else []
        measures = {m.key: m for m in bench.measures(run.mode)} if bench is not None else {}
    except Exception:           # a benchmark that cannot say so here: the summary's first key
        keys, measures = [], {}
    if not keys:
        keys = list(run.raw_summary.get("metrics") or {})[:1]
    if not keys:
        return None, True, ""
    measure = measures.get(keys[0])
    lower = getattr(measure, "direction", "higher") == "lower"
    return keys[0], not lower, getattr(measure, "label", None) or keys[0]


def _axis(runs: Sequence[ReportRun]) -> str:
    costs = [r.raw_summary.get("cost") for r in runs if isinstance(r.raw_summary.get("cost"),
                                                                   dict)]
    return "usd" if costs and all(c.get("usd") is not None and c.get("priced")
                                  for c in costs) else "tokens"


def points_of(runs: Sequence[ReportRun]) -> tuple[list[CostPoint], str]:
    """Each run's point on the group's axis ("usd": dollars per sample, "tokens")."""
    axis = _axis(runs)
    out = []
    for run in runs:
        key, higher, _ = headline_of(run)
        entry = (run.raw_summary.get("metrics") or {}).get(key) if key else None
        score = entry.get("mean") if isinstance(entry, dict) else None
        cost = run.raw_summary.get("cost")
        x = None
        if isinstance(cost, dict):
            n = int(run.raw_summary.get("n_samples") or 0)
            x = (cost.get("per_sample_usd") if axis == "usd"
                 else (float(cost.get("tokens") or 0) / n if n else None))
        out.append(CostPoint(run, key or "", score if isinstance(score, (int, float)) else None,
                             x, higher))
    return out, axis


def pareto(points: Sequence[CostPoint]) -> list[CostPoint]:
    """The runs no other run dominates (cost ≤ and score ≥, one strictly), cheapest first."""
    known = [p for p in points if p.x is not None and p.score is not None]

    def better(a: CostPoint, b: CostPoint) -> bool:       # a dominates b
        sa, sb = (a.score, b.score) if a.higher_better else (-a.score, -b.score)
        return a.x <= b.x and sa >= sb and (a.x < b.x or sa > sb)
    front = [p for p in known if not any(better(q, p) for q in known if q is not p)]
    return sorted(front, key=lambda p: (p.x, -(p.score if p.higher_better else -p.score)))


def groups_of(runs: Sequence[ReportRun]) -> list[list[ReportRun]]:
    """The runs by benchmark and sub-task, in order, those with a cost only when any has."""
    grouped: dict[tuple[str, str], list[ReportRun]] = {}
    for run in runs:
        grouped.setdefault((run.benchmark, run.mode), []).append(run)
    return [g for g in grouped.values()
            if any(isinstance(r.raw_summary.get("cost"), dict) for r in g)]


def _usd(x: Any) -> str:
    return "—" if x is None else f"${x:.4f}"


def cost_table(runs: Sequence[ReportRun]) -> Table:
    points, axis = points_of(runs)
    front = {id(p.run) for p in pareto(points)}
    first = runs[0]
    _, _, label = headline_of(first)
    rows = []
    for p in points:
        cost = p.run.raw_summary.get("cost") if isinstance(p.run.raw_summary.get("cost"),
                                                           dict) else None
        per = ("—" if p.x is None else _usd(p.x) if axis == "usd" else f"{p.x:,.0f} tok")
        agent = str(p.run.raw_summary.get("agent") or "")
        score = "—" if p.score is None else f"{p.score:.4f}"
        calls, tokens = ((str(cost.get("calls", 0)), str(cost.get("tokens", 0))) if cost
                         else ("—", "—"))
        rows.append(Row("ours", (p.run.run_dir.name, agent, label, score, per, cost_cell(cost),
                                 calls, tokens, "yes" if id(p.run) in front else "no"),
                        source=str(p.run.run_dir)))
    notes = ["Pareto front: no other run has at most its cost per sample and at least its "
             "score, one of them strictly. Costs are every invocation's on the run directory "
             "(docs/cost.md)."]
    if axis == "tokens":
        notes.append("Cost axis in tokens per sample: not every run has a price for every "
                     "model it called (--price MODEL=IN/OUT).")
    return Table(f"{TITLE} — {first.benchmark} {first.mode}", HEADER, tuple(rows),
                 tuple(notes))


def cost_groups(runs: Sequence[ReportRun]) -> list[TableGroup]:
    """One group of every benchmark and sub-task whose runs have a cost (none: none)."""
    tables = tuple(cost_table(g) for g in groups_of(runs))
    return [TableGroup(TITLE, tables, benchmark="", mode="")] if tables else []


def cost_chart(runs: Sequence[ReportRun]) -> str:
    """The score–cost plot of one group with its Pareto front ("" with under one point)."""
    points, axis = points_of(runs)
    shown = [p for p in points if p.x is not None and p.score is not None]
    if not shown:
        return ""
    front = pareto(points)
    on_front = {id(p.run) for p in front}
    marks = [svg.Point(p.x, p.score, label=p.run.run_dir.name,
                       colour=svg.PALETTE[0] if id(p.run) in on_front else svg.PALETTE[1],
                       tooltip=f"{p.run.run_dir.name}: {p.score:.4f} at "
                       + (_usd(p.x) if axis == "usd" else f"{p.x:,.0f} tokens") + " per sample",
                       data={"run": p.run.run_dir.name, "front": "yes" if id(p.run) in on_front
                             else "no"}) for p in shown]
    _, _, label = headline_of(runs[0])
    return svg.scatter(marks, x_label=("dollars per sample" if axis == "usd"
                                       else "tokens per sample"),
                       y_label=label, title=f"{label} against cost — {runs[0].benchmark} "
                       f"{runs[0].mode}", x_percent=False, y_percent=False, kind="cost",
                       front=[(p.x, p.score) for p in front],
                       note="blue: on the Pareto front" + ("; dashed: the front"
                                                           if len(front) > 1 else ""))


__all__ = ["CostPoint", "TITLE", "cost_chart", "cost_groups", "cost_table", "groups_of",
           "pareto", "points_of"]

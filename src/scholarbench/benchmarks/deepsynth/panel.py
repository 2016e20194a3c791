"""DeepSynth-Eval's checklist judge as a panel: every judge, `samples` times each
(docs/judges.md "TaxoBench and DeepSynth-Eval").

Each judge is a complete DeepSynth judge: it labels every requirement of a task (the engine's
judge stage asks repeat r > 0 with seed `seed + r`, its own reply-cache key: `checklist.py`),
and its labels go through the paper's
eq. 1–4 unchanged (`scores.score_task`). The panel then combines **scores, not labels**:

- a judge's Overall / General / Constraint on a task: the mean of its repeats' values that are
  defined; the column: the mean of the judges' values that are defined (each judge weighs the
  same). A per-item majority of 3-state labels is not defined for two judges who disagree (or
  three who each say something else) without an invented tie rule, and Score_k clips
  min(1, S_k/θ_k), so a vote on labels would not be any judge's score either;
- Precision (pooled over a run's labels): each judge's pooled Σ correct / Σ (correct +
  incorrect) over the run (its repeats' labels pooled), then the mean over the judges
  (`measures.pooled_precision`, from each row's `judges.<label>.n_correct` / `n_incorrect`);
- the row's label and group counts (n_correct … n_unscored, n_groups, n_groups_undefined,
  n_empty_sub_groups, unscored_reasons): summed over every judge and repeat (J × K judgements
  of the task), as SciNet's `_judged` / `_unscored`.

A judge whose reply stays unusable leaves those items unscored for that judge only (excluded
from its S_k and θ_k, as for a lone judge); `<metric>_unscored` in its entry counts its
unscored items in the groups the metric covers, over its repeats.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.scores import TaskScore, metric_key
from scholarbench.benchmarks.deepsynth.measures import TASK_KEYS
from scholarbench.metrics.judge_panel import judge_entry, panel_value
from scholarbench.metrics.agreement import PANEL_KEY

COUNT_KEYS = ("n_correct", "n_incorrect", "n_not_mentioned", "n_unscored")
GROUP_KEYS = ("n_groups", "n_groups_undefined", "n_empty_sub_groups")


def _unscored(score: TaskScore, base: str) -> int:
    groups = [g for g in score.groups if base == "dse_overall"
              or (g.strict if base == "dse_constraint" else not g.strict)]
    return sum(g.tally.unscored for g in groups)


def panel_row(parts: dict[str, Sequence[TaskScore]], variant: str, samples: int
              ) -> dict[str, Any]:
    """A task's row fields (`TaskScore.row()` and `counts()`'s keys) from every judge's
    repeats' scores, plus `judges` (module docstring)."""
    per_judge: dict[str, dict[str, Any]] = {}
    for label, scores in parts.items():
        entry: dict[str, Any] = {}
        for base in TASK_KEYS:
            entry.update(judge_entry(metric_key(base, variant),
                                     [getattr(s, base) for s in scores],
                                     sum(_unscored(s, base) for s in scores), samples))
        entry.update(n_correct=sum(s.tally.correct for s in scores),
                     n_incorrect=sum(s.tally.incorrect for s in scores))
        per_judge[label] = entry
    every = [s for scores in parts.values() for s in scores]
    first = every[0]
    row: dict[str, Any] = {"task_id": first.task_id}
    for base in TASK_KEYS:
        key = metric_key(base, variant)
        row.update(panel_value(per_judge, key))
    rows = [{**s.row(), **s.counts()} for s in every]
    for key in COUNT_KEYS + GROUP_KEYS:
        row[key] = sum(r[key] for r in rows)
    reasons: Counter = Counter()
    for r in rows:
        reasons.update(r["unscored_reasons"])
    row["unscored_reasons"] = dict(sorted(reasons.items()))
    row[PANEL_KEY] = per_judge
    return row


def panel_status(row: dict[str, Any], variant: str) -> str:
    """`unscored` when no judge scored any item of the task (its Overall null), else scored."""
    return ("unscored" if row[metric_key("dse_overall", variant)] is None and row["n_unscored"]
            else "scored")


def precision_by_judge(rows: Sequence[dict[str, Any]], variant: str
                       ) -> dict[str, dict[str, Any]]:
    """Each judge's pooled precision over `rows` (its `judges` entries): the summary's
    `judge_panel.<precision key>`."""
    labels: list[str] = []
    for r in rows:
        labels += [j for j in (r.get(PANEL_KEY) or {}) if j not in labels]
    out = {}
    for label in labels:
        mine = [r[PANEL_KEY][label] for r in rows if label in (r.get(PANEL_KEY) or {})]
        correct = sum(int(e.get("n_correct") or 0) for e in mine)
        mentioned = correct + sum(int(e.get("n_incorrect") or 0) for e in mine)
        mean = correct / mentioned if mentioned else (0.0 if variant == "upstream" else None)
        out[label] = {"mean": mean, "n": len(mine), "n_null": len(rows) - len(mine)}
    return out


__all__ = ["panel_row", "panel_status", "precision_by_judge"]

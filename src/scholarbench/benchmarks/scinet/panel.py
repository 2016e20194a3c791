"""SciNet's judge columns of one task from the engine's verdicts (docs/judges.md).

The engine's judge stage asked every judge of the panel `K` times (`--judge-samples`; repeat
r > 0 with seed `seed + r`) and hands `score_sample` each judge's verdicts per subject, one per
repeat (`core.judge_stage.Verdicts`: None where the reply stayed unusable or the call failed,
with the reason). One judge's repeat gives the task's `part` — the measure's value (the mean
score of the items it scored; an answer with nothing to judge: the rules' empty value), and
`<metric>_judged` / `_unscored` / `_unscored_reasons` — and the row combines the parts:

- a judge's value on a task: the mean of its repeats that have a value; None when none has;
- the measure's value (the existing column): the mean of the judges' values that are defined
  (every judge weighs the same); None when no judge has one;
- `<metric>_judged` / `_unscored` / `_unscored_reasons`: summed over judges and repeats, so a
  judge that fails on an item leaves that item unscored for that judge only;
- `judges`: every judge's value and unscored count (and with repeats each repeat's value).

A review's part carries its five dimensions from one verdict; each is combined as above.
With one judge asked once the row is that judge's part: rows exactly as a lone judge's.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet.judge import PROMPTS, ego_metric, reason_code
from scholarbench.benchmarks.scinet.judged import ANSWER, EGO, REVIEW
from scholarbench.benchmarks.scinet.review_judge import REVIEW_METRICS, review_part
from scholarbench.benchmarks.scinet.review_scoring import review_of
from scholarbench.benchmarks.scinet.scoring import answer_of
from scholarbench.metrics.agreement import PANEL_KEY
from scholarbench.metrics.judge_panel import judge_entry, panel_value

JUDGED = (*PROMPTS, *REVIEW_METRICS)     # the measures a judge's part carries (review: five)


def _slot(values: dict[str, list[Any]], label: str, repeat: int) -> Any:
    got = values.get(label) or []
    return got[repeat] if repeat < len(got) else None


def score_part(metric: str, subjects: Sequence[str], verdicts: Any, sid: str, label: str,
               repeat: int, empty: float | None) -> dict[str, Any]:
    """One judge's repeat of an ego or path task: the mean score of the `subjects` it scored
    (the task's requests), `empty` when there is none to judge."""
    scored, reasons = [], []
    for subject in subjects:
        verdict = _slot(verdicts.of(sid, subject), label, repeat)
        if isinstance(verdict, dict) and verdict.get("score") is not None:
            scored.append(verdict["score"])
        else:
            reasons.append(reason_code(_slot(verdicts.why(sid, subject), label, repeat) or ""))
    value = (sum(scored) / len(scored) if scored else None) if subjects else empty
    return {metric: value, f"{metric}_judged": len(scored), f"{metric}_unscored": len(reasons),
            f"{metric}_unscored_reasons": reasons}


def review_judge_part(verdicts: Any, sid: str, subject: str, label: str, repeat: int
                      ) -> dict[str, Any]:
    """One judge's repeat of a review: its five dimensions."""
    return review_part(_slot(verdicts.of(sid, subject), label, repeat),
                       _slot(verdicts.why(sid, subject), label, repeat))


def combine(parts: dict[str, list[dict[str, Any]]], repeats: int) -> dict[str, Any]:
    """A task's columns from every judge's parts, one per repeat (the module docstring)."""
    labels = list(parts)
    if len(labels) == 1 and repeats == 1:
        return parts[labels[0]][0]
    first = parts[labels[0]][0]
    metrics = [k for k in first if k in JUDGED]
    if not metrics:
        return {}                      # a pair task: nothing judged
    per_judge: dict[str, Any] = {label: {} for label in parts}
    out: dict[str, Any] = {}
    every = [p for runs in parts.values() for p in runs]
    for metric in metrics:
        for label, runs in parts.items():
            per_judge[label].update(judge_entry(
                metric, [p.get(metric) for p in runs],
                sum(p.get(f"{metric}_unscored", 0) for p in runs), repeats))
        out.update({**panel_value(per_judge, metric),
                    f"{metric}_judged": sum(p.get(f"{metric}_judged", 0) for p in every),
                    f"{metric}_unscored": sum(p.get(f"{metric}_unscored", 0) for p in every),
                    f"{metric}_unscored_reasons": [c for p in every for c in
                                                   p.get(f"{metric}_unscored_reasons", [])]})
    out[PANEL_KEY] = per_judge
    return out


def task_columns(item: Any, rules: Any, sample: Any, record: dict[str, Any] | None,
                 verdicts: Any, labels: Sequence[str], repeats: int) -> dict[str, Any]:
    """A task's judge columns from `item`'s verdicts (`judged.py`), every judge of `labels`
    asked `repeats` times; {} for a task the item does not judge (another family, the
    agent's failure, no usable review)."""
    task, sid = sample.gold, sample.id
    if not labels or answer_of(record)[1] == "error":
        return {}
    if item.name == REVIEW:
        if review_of(record)[0] is None:
            return {}
        parts = {label: [review_judge_part(verdicts, sid, ANSWER, label, r)
                         for r in range(repeats)] for label in labels}
        return combine(parts, repeats)
    if task.family != item.name:
        return {}
    metric = ego_metric(task) if item.name == EGO else "path_rationality_llm"
    subjects = [r.subject for r in item.requests(sample, record)]
    parts = {label: [score_part(metric, subjects, verdicts, sid, label, r, rules.empty)
                     for r in range(repeats)] for label in labels}
    return combine(parts, repeats)


__all__ = ["JUDGED", "combine", "review_judge_part", "score_part", "task_columns"]

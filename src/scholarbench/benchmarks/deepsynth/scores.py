"""DeepSynth-Eval scores from judge labels (paper §3.5, eq. 1–4), and upstream score.py's rules
as a named variant.

``variant="paper"`` (default) — the paper's definitions, with the choices it leaves open:

- Labels are read case-insensitively after stripping whitespace: ``mentioned_correct`` → r = +1,
  ``not_mentioned`` → 0, ``mentioned_incorrect`` → −1. The paper's r has no per-item weight, so
  the requirement's ``reward`` field is not used (every released reward is 1.0, so this only
  matters for other data; upstream's ±reward is the ``"upstream"`` variant).
- An item is *unscored* (counted, with a reason, and excluded from both S_k and θ_k) when its
  label is anything else (``unknown_label``), ``null`` (``unscored_by_judge``: what our judge
  writes after its retries), when the sub-group's ``eval_result`` length differs from its
  number of requirements (``length_mismatch``: alignment unknown, so every item of that
  sub-group), or when the sub-group has no ``eval_result`` at all / an empty one
  (``not_judged``).
- Group k: S_k = Σ r over its scored items; θ_k = clip_factor_k × N_k with N_k = its number of
  *scored* items; Score_k = min(1, S_k / θ_k). No lower clip (the paper has none): a group
  scores down to −1/clip_factor. A group with no scored item (all unscored, or no requirements)
  has no score: it is left out of the weighted means and counted (``n_groups_undefined``).
- Task: dse_general / dse_constraint / dse_overall = Σ w_k Score_k / Σ w_k over the task's
  non-strict / strict / all groups that have a score (eq. 2–4); null when there is none.
- Benchmark: each mean over the tasks where it is defined (macro), undefined ones counted;
  dse_precision = Σ correct / Σ (correct + incorrect) over all tasks (micro), null when 0/0.
- An empty sub-group (no requirements) contributes nothing and never fails.

``variant="upstream"`` — exactly ``deepsynth_eval/eval/score.py`` (Kwai-Klear/DeepSynth-Eval):
labels compared case-sensitively; r = ±reward; an unknown label adds 0 to S_k but its reward
to θ_k (it acts as ``not_mentioned`` without being counted as one); ``eval_result`` and
requirements paired by ``zip`` (items past the shorter list are left out of θ_k, extra labels
ignored); a group whose θ_k is 0 scores 0 with its weight counted; a task without general
(strict) groups is left out of the General (Constraint) mean, but a task without any group
scores 0 Overall and counts; precision 0 when 0/0. Where upstream crashes (an empty
``eval_result``, which includes every empty sub-group: its helper returns a tuple and
``.get`` fails), this variant does what that code evidently meant: the requirements' rewards
go to θ_k and nothing to S_k. Its metric keys carry ``(upstream=1)``.

Counts always satisfy n_correct + n_incorrect + n_not_mentioned + n_unscored = the task's
number of requirements. Scores are fractions; the paper prints them ×100.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Sequence

from scholarbench.benchmarks.deepsynth.records import (MENTIONED_CORRECT, MENTIONED_INCORRECT,
                                                       NOT_MENTIONED, STATUSES, Group, Status,
                                                       SubGroup, Task)
from scholarbench.benchmarks.deepsynth.measures import TASK_KEYS, pooled_precision
from scholarbench.core.columns import ScoreRows
from scholarbench.metrics.names import MetricName

Variant = Literal["paper", "upstream"]
VARIANTS: tuple[str, ...] = ("paper", "upstream")

DSE_OVERALL, DSE_GENERAL, DSE_CONSTRAINT, DSE_PRECISION = (
    "dse_overall", "dse_general", "dse_constraint", "dse_precision")
TASK_METRICS = TASK_KEYS                 # the per-task measures (Precision is pooled)

NOT_JUDGED, LENGTH_MISMATCH, UNKNOWN_LABEL, UNSCORED_BY_JUDGE = (
    "not_judged", "length_mismatch", "unknown_label", "unscored_by_judge")

_SIGN = {MENTIONED_CORRECT: 1, NOT_MENTIONED: 0, MENTIONED_INCORRECT: -1}


def metric_key(base: str, variant: str = "paper") -> str:
    """``dse_overall`` for the paper's rules, ``dse_overall(upstream=1)`` for upstream's."""
    _check_variant(variant)
    return str(MetricName.parse(f"{base}(upstream={int(variant == 'upstream')})",
                                defaults={"upstream": 0.0}))


def read_label(value: Any) -> Status | None:
    """A judge label read case-insensitively (surrounding whitespace ignored); None for
    anything else (other strings, null, numbers, lists...)."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    return text if text in _SIGN else None  # type: ignore[return-value]


def subgroup_statuses(sub: SubGroup) -> tuple[list[Status | None], list[str | None]]:
    """The paper-rule status of each requirement and, for unscored ones, the reason."""
    n = len(sub.requirements)
    if not sub.eval_result:
        return [None] * n, [NOT_JUDGED] * n
    if len(sub.eval_result) != n:
        return [None] * n, [LENGTH_MISMATCH] * n
    statuses = [read_label(v) for v in sub.eval_result]
    reasons = [None if s is not None else (UNSCORED_BY_JUDGE if v is None else UNKNOWN_LABEL)
               for s, v in zip(statuses, sub.eval_result)]
    return statuses, reasons


@dataclass
class Tally:
    correct: int = 0
    incorrect: int = 0
    not_mentioned: int = 0
    unscored: int = 0
    reasons: Counter = field(default_factory=Counter)

    def add(self, other: "Tally") -> None:
        self.correct += other.correct
        self.incorrect += other.incorrect
        self.not_mentioned += other.not_mentioned
        self.unscored += other.unscored
        self.reasons.update(other.reasons)

    def count(self, status: str | None, reason: str | None = None) -> None:
        if status == MENTIONED_CORRECT:
            self.correct += 1
        elif status == MENTIONED_INCORRECT:
            self.incorrect += 1
        elif status == NOT_MENTIONED:
            self.not_mentioned += 1
        else:
            self.unscored += 1
            self.reasons[reason or UNKNOWN_LABEL] += 1


@dataclass(frozen=True)
class GroupScore:
    name: str
    strict: bool
    weight: float
    clip_factor: float
    reward_get: float        # S_k
    threshold: float         # θ_k
    score: float | None      # min(1, S_k/θ_k); None: no scored item (paper rules)
    tally: Tally
    n_empty_sub_groups: int = 0


@dataclass(frozen=True)
class TaskScore:
    task_id: int | str
    variant: str
    dse_overall: float | None
    dse_general: float | None
    dse_constraint: float | None
    tally: Tally
    groups: tuple[GroupScore, ...]
    survey_id: str | None = None

    def row(self) -> dict[str, Any]:
        """The per-task JSON line of ``score deepsynth``."""
        return {"task_id": self.task_id,
                metric_key(DSE_OVERALL, self.variant): self.dse_overall,
                metric_key(DSE_GENERAL, self.variant): self.dse_general,
                metric_key(DSE_CONSTRAINT, self.variant): self.dse_constraint,
                "n_correct": self.tally.correct, "n_incorrect": self.tally.incorrect,
                "n_not_mentioned": self.tally.not_mentioned, "n_unscored": self.tally.unscored}

    @property
    def status(self) -> str:
        """``unscored`` when no item of the task could be scored (its scores null), else
        ``scored`` (a run's row may say ``missing`` / ``malformed`` of the report instead)."""
        return "unscored" if self.dse_overall is None and self.tally.unscored else "scored"

    def counts(self) -> dict[str, Any]:
        """What `aggregate_rows` needs beside `row()`: the task's groups (all, without a
        scored item) and empty sub-groups, and why its unscored items are unscored."""
        return {"n_groups": len(self.groups),
                "n_groups_undefined": sum(g.score is None for g in self.groups),
                "n_empty_sub_groups": sum(g.n_empty_sub_groups for g in self.groups),
                "unscored_reasons": dict(sorted(self.tally.reasons.items()))}


def _check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"unknown DeepSynth-Eval scoring variant {variant!r}; "
                         f"use one of {', '.join(VARIANTS)}")


def _n_empty(group: Group) -> int:
    return sum(not sub.requirements for sub in group.sub_groups)


def _group_paper(group: Group) -> GroupScore:
    tally = Tally()
    for sub in group.sub_groups:
        statuses, reasons = subgroup_statuses(sub)
        for status, reason in zip(statuses, reasons):
            tally.count(status, reason)
    s_k = float(tally.correct - tally.incorrect)
    n_scored = tally.correct + tally.incorrect + tally.not_mentioned
    theta = group.clip_factor * n_scored
    score = min(1.0, s_k / theta) if n_scored else None
    return GroupScore(group.name, group.strict, group.weight, group.clip_factor, s_k, theta,
                      score, tally, _n_empty(group))


def _group_upstream(group: Group) -> GroupScore:
    tally = Tally()
    get = total = 0.0
    for sub in group.sub_groups:
        results = list(sub.eval_result or ())
        if not results:  # upstream crashes here; its evident intent: all rewards into θ
            total += sum(r.reward for r in sub.requirements)
            for _ in sub.requirements:
                tally.count(None, NOT_JUDGED)
            continue
        for req, label in zip(sub.requirements, results):
            total += req.reward
            if label == MENTIONED_CORRECT:
                get += req.reward
            elif label == MENTIONED_INCORRECT:
                get -= req.reward
            if label in _SIGN:
                tally.count(label)
            else:
                tally.count(None, UNSCORED_BY_JUDGE if label is None else UNKNOWN_LABEL)
        for _ in sub.requirements[len(results):]:
            tally.count(None, LENGTH_MISMATCH)
    theta = group.clip_factor * total
    score = 0.0 if total == 0 else min(get / theta, 1.0)
    return GroupScore(group.name, group.strict, group.weight, group.clip_factor, get, theta,
                      score, tally, _n_empty(group))


def score_group(group: Group, variant: Variant = "paper") -> GroupScore:
    _check_variant(variant)
    return _group_paper(group) if variant == "paper" else _group_upstream(group)


def _weighted(groups: Iterable[GroupScore]) -> float | None:
    """Σ w·score / Σ w over the groups that have a score; None when none has."""
    num = den = 0.0
    for g in groups:
        if g.score is not None:
            num += g.weight * g.score
            den += g.weight
    return num / den if den > 0 else None


def score_task(task: Task, variant: Variant = "paper") -> TaskScore:
    """Per-group scores and the task's General / Constraint / Overall (eq. 1–4)."""
    _check_variant(variant)
    groups = tuple(score_group(g, variant) for g in task.checklist)
    general = _weighted(g for g in groups if not g.strict)
    constraint = _weighted(g for g in groups if g.strict)
    overall = _weighted(groups)
    if variant == "upstream" and overall is None:
        overall = 0.0  # upstream: a task without groups scores 0 Overall and is averaged in
    tally = Tally()
    for g in groups:
        tally.add(g.tally)
    return TaskScore(task.task_id, variant, overall, general, constraint, tally, groups,
                     task.survey_id)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _count(rows: Sequence[dict[str, Any]], key: str) -> int:
    if isinstance(rows, ScoreRows):           # a run's score rows: from the count column
        return rows.int_total(key)
    return sum(int(r.get(key) or 0) for r in rows)


def aggregate(scores: Sequence[TaskScore], variant: Variant = "paper") -> dict[str, Any]:
    """`aggregate_rows` over the tasks' rows (`TaskScore.row()` with its `counts()`)."""
    return aggregate_rows([{**s.row(), **s.counts()} for s in scores], variant)


def aggregate_rows(rows: Sequence[dict[str, Any]], variant: Variant = "paper"
                   ) -> dict[str, Any]:
    """Macro means of the task metrics (undefined values excluded, counted and listed), pooled
    precision, label counts and unscored reasons — from one row per task, each holding
    `TaskScore.row()` and `TaskScore.counts()` (scores.jsonl's rows do)."""
    _check_variant(variant)
    means: dict[str, float | None] = {}
    n_undefined: dict[str, int] = {}
    undefined_ids: dict[str, list] = {}
    for base in TASK_METRICS:
        key = metric_key(base, variant)
        values = [r.get(key) for r in rows]
        means[key] = _mean([v for v in values if v is not None])
        undefined_ids[key] = [r["task_id"] for r, v in zip(rows, values) if v is None]
        n_undefined[key] = len(undefined_ids[key])
    means[metric_key(DSE_PRECISION, variant)] = pooled_precision(variant)(rows)
    reasons: Counter = Counter()
    for r in rows:
        if why := r.get("unscored_reasons"):
            reasons.update(why)
    return {
        "benchmark": "deepsynth",
        "variant": variant,
        "n_tasks": len(rows),
        "means": means,
        "n_undefined": n_undefined,
        "undefined_ids": undefined_ids,
        "n_correct": _count(rows, "n_correct"),
        "n_incorrect": _count(rows, "n_incorrect"),
        "n_not_mentioned": _count(rows, "n_not_mentioned"),
        "n_unscored": _count(rows, "n_unscored"),
        "unscored_reasons": dict(sorted(reasons.items())),
        "n_groups": _count(rows, "n_groups"),
        "n_groups_undefined": _count(rows, "n_groups_undefined"),
        "n_empty_sub_groups": _count(rows, "n_empty_sub_groups"),
    }


__all__ = ["DSE_CONSTRAINT", "DSE_GENERAL", "DSE_OVERALL", "DSE_PRECISION",
           "VARIANTS", "GroupScore", "Tally", "TaskScore", "aggregate", "aggregate_rows",
           "metric_key", "read_label", "score_group", "score_task", "subgroup_statuses",
           "STATUSES"]

"""SciNet's judged measures scored by a judge panel, each judge asked K times (docs/judges.md).

One `SciNetJudge` per judge (its own client, cache keys and judgements in the run's one
judge.jsonl); each task is judged by every judge, `samples` times each (repeat r with seed
seed + r: `SciNetJudge.seed`). The row keeps every judge's value of the measure and, with
repeats, each repeat's value (`judges.agreement` reads them):

- a judge's value on a task: the mean of its repeats that have a value (a repeat whose every
  judged item was unscored has none); None when none has;
- the measure's value (the existing column): the mean of the judges' values that are defined
  (every judge weighs the same); None when no judge has one;
- `<metric>_judged` / `_unscored` / `_unscored_reasons`: summed over judges and repeats, so a
  judge that fails on an item leaves that item unscored for that judge only.

A judge's row may carry several measures (the review judge: its five dimensions from one call);
each is combined as above.

With one judge and one sample the panel is that judge: rows exactly as before.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from scholarbench.benchmarks.scinet.judge import PROMPTS, SciNetJudge
from scholarbench.benchmarks.scinet.review_judge import REVIEW_METRICS
from scholarbench.metrics.judge_panel import (PanelBase, judge_entry, judge_roles, labels_of,
                                              panel_models, panel_value)
from scholarbench.metrics.agreement import PANEL_KEY

JUDGED = (*PROMPTS, *REVIEW_METRICS)     # the measures a judge's row carries (review: five)


class JudgePanel(PanelBase):
    """Every judge of the run, `samples` times each, on one task at a time."""

    judges: list[SciNetJudge]

    @property
    def asked(self) -> int:
        return sum(j.asked for j in self.judges)

    def score(self, task: Any, papers: Sequence[Any] | None, env: Any) -> dict[str, Any]:
        if self.single:
            return self.judges[0].score(task, papers, env)
        parts = {label: [judge.score(task, papers, env, sample=r) for r in range(self.samples)]
                 for label, judge in zip(self.labels, self.judges)}
        first = parts[self.labels[0]][0]
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
                    sum(p.get(f"{metric}_unscored", 0) for p in runs), self.samples))
            out.update({**panel_value(per_judge, metric),
                        f"{metric}_judged": sum(p.get(f"{metric}_judged", 0) for p in every),
                        f"{metric}_unscored": sum(p.get(f"{metric}_unscored", 0)
                                                  for p in every),
                        f"{metric}_unscored_reasons": [c for p in every for c in
                                                       p.get(f"{metric}_unscored_reasons", [])]})
        out[PANEL_KEY] = per_judge
        return out

    def identity(self) -> dict[str, Any]:
        """The first judge's identity (as a lone judge's), plus with a panel or repeats every
        judge's model, temperature and seeds."""
        out = self.judges[0].identity()
        if not self.single:
            out["samples"] = self.samples
            out["panel"] = [{"label": label, "model_id": j.model,
                             "temperature": j.temperature(),
                             "seeds": [j.seed(r) for r in range(self.samples)]}
                            for label, j in zip(self.labels, self.judges)]
        return out

    def save(self) -> None:
        """Every judge's judgements into the one store (judge.jsonl)."""
        stores = {j.store for j in self.judges}
        if len(self.judges) == 1 or stores == {None}:
            for j in self.judges:
                j.save()
            return
        store = Path(next(s for s in stores if s is not None))
        tmp = store.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for j in self.judges:
                for judgement in j.done.values():
                    handle.write(json.dumps(judgement.as_json()) + "\n")
        tmp.replace(store)


__all__ = ["JudgePanel", "judge_roles", "labels_of", "panel_models"]

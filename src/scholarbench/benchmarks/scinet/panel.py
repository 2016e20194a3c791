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
from scholarbench.metrics.agreement import PANEL_KEY, samples_key


JUDGED = (*PROMPTS, *REVIEW_METRICS)     # the measures a judge's row carries (review: five)


def labels_of(judges: Sequence[SciNetJudge]) -> list[str]:
    """Short, unique judge names: the model name (`--judge NAME`), `NAME#2` for a second
    judge of the same name at another endpoint."""
    out: list[str] = []
    for judge in judges:
        config = getattr(judge.client, "config", None)
        name = str(getattr(config, "model", None) or judge.model)
        label, n = name, 1
        while label in out:
            n += 1
            label = f"{name}#{n}"
        out.append(label)
    return out


def _mean(values: Sequence[float | None]) -> float | None:
    defined = [float(v) for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


class JudgePanel:
    """Every judge of the run, `samples` times each, on one task at a time."""

    def __init__(self, judges: Sequence[SciNetJudge], samples: int = 1) -> None:
        if not judges:
            raise ValueError("a judge panel needs at least one judge")
        if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
            raise ValueError(f"judge samples must be an integer >= 1, got {samples!r}")
        self.judges, self.samples = list(judges), samples
        self.labels = labels_of(self.judges)

    @property
    def single(self) -> bool:
        return len(self.judges) == 1 and self.samples == 1

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
                values = [p.get(metric) for p in runs]
                entry = per_judge[label]
                entry[metric] = _mean(values)
                entry[f"{metric}_unscored"] = sum(p.get(f"{metric}_unscored", 0) for p in runs)
                if self.samples > 1:
                    entry[samples_key(metric)] = values
            out.update({metric: _mean([e[metric] for e in per_judge.values()]),
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


def judge_roles(panel: JudgePanel) -> list[str]:
    """The usage roles of the panel's judges: `judge`, then `judge_2`, `judge_3`, … (as
    ReportBench's vote judges)."""
    return ["judge"] + [f"judge_{i}" for i in range(2, len(panel.judges) + 1)]


def panel_models(panel: JudgePanel) -> dict[str, Any]:
    """The manifest's `models` entries: `judge` (the first), and with a panel `judges`: every
    judge's public configuration, label and usage role."""
    def public(judge: SciNetJudge) -> dict[str, Any]:
        client = judge.client
        config = getattr(client, "config", None)
        return {**(config.public() if config is not None else {}),
                "model_id": getattr(client, "model_id", judge.model)}
    out: dict[str, Any] = {"judge": public(panel.judges[0])}
    if len(panel.judges) > 1:
        out["judges"] = [{"label": label, "usage_role": role, **public(j)} for label, role, j
                         in zip(panel.labels, judge_roles(panel), panel.judges)]
    return out

"""TaxoBench's 4-dimension judge as a panel: every judge, `samples` times each (docs/judges.md).

Each judge (`TaxoBenchJudge`, its own client) judges every judgeable sample `samples` times;
repeat r > 0 asks with seed `seed + r` (`panel_common.repeat_seed`: its own reply-cache key and
its own judge.jsonl record), repeat 0 is the lone judge's request. A row then holds, for each of
`judge_coverage`, `judge_organization`, `judge_logic`, `judge_topology` and `judge_avg`:

- a judge's value: the mean of its repeats that have one (a 1–5 scale, so a mean); its
  `judge_avg` is the mean of its repeats' averages (= the mean of its four dimension values,
  since a reply gives all four or none);
- the column: the mean of the judges' values that are defined (each judge weighs the same);
- `judges: {label: {<key>: value, <key>_unscored: repeats unscored, <key>_samples: [...] (K>1)}}`;
- `judge_unscored`: a reason only when no judge gave a value (every judge failed); a judge that
  fails on a sample leaves it unscored for that judge only.

With one judge and one sample, `scoring` keeps its lone-judge path: rows exactly as before.
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS, JudgeResult, TaxoBenchJudge
from scholarbench.metrics.judge_panel import (PanelBase, judge_entry, panel_identity,
                                              panel_value)
from scholarbench.metrics.agreement import PANEL_KEY


def value_of(result: JudgeResult, key: str) -> float | None:
    return result.avg if key == "judge_avg" else result.scores.get(key)


class TaxoPanel(PanelBase):
    """The run's judges (`TaxoBenchJudge`s), each asked `samples` times per sample."""

    judges: list[TaxoBenchJudge]

    def start(self, jobs: dict[str, tuple[Any, Any]],
              judge_one: Callable[..., JudgeResult]) -> dict[str, dict[str, list[Future]]]:
        """Submit `judge_one(judge, gold, taxonomy, sample=r)` for every job (sample id →
        (gold, taxonomy)), judge and repeat; each judge on its own pool (its client's
        concurrency; one at a time for the local model)."""
        pending: dict[str, dict[str, list[Future]]] = {sid: {} for sid in jobs}
        for label, judge in zip(self.labels, self.judges):
            config = getattr(judge.client, "config", None)
            workers = 1 if config is None or config.is_local else max(1, config.concurrency)
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge")
            for sid, (gold, taxonomy) in jobs.items():
                pending[sid][label] = [pool.submit(judge_one, judge, gold, taxonomy, sample=r)
                                       for r in range(self.samples)]
            pool.shutdown(wait=False)
        return pending

    def row(self, results: dict[str, list[JudgeResult]]) -> dict[str, Any]:
        """A judged sample's judge columns from every judge's repeats (module docstring)."""
        per_judge: dict[str, dict[str, Any]] = {}
        for label, runs in results.items():
            failed = sum(1 for r in runs if r.unscored)
            entry: dict[str, Any] = {}
            for key in JUDGE_KEYS:
                entry.update(judge_entry(key, [value_of(r, key) for r in runs], failed,
                                         self.samples))
            per_judge[label] = entry
        out: dict[str, Any] = {}
        for key in JUDGE_KEYS:
            out.update(panel_value(per_judge, key))
        reasons = [r.unscored for runs in results.values() for r in runs if r.unscored]
        out["judge_unscored"] = reasons[0] if out["judge_avg"] is None and reasons else None
        out[PANEL_KEY] = per_judge
        return out

    def identity(self) -> dict[str, Any]:
        """The manifest's `judge`: the first judge's description (as a lone judge's), the
        samples, and every judge's model id, temperature and seeds."""
        return {**self.judges[0].info(), "samples": self.samples,
                "panel": panel_identity(self.judges, self.samples, self.labels)}


__all__ = ["TaxoPanel", "value_of"]

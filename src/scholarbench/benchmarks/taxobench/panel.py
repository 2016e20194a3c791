"""TaxoBench's judge columns of one sample from the engine's verdicts (docs/judges.md).

The engine's judge stage asked every judge of the panel `K` times (`--judge-samples`; repeat
r > 0 with seed `seed + r`) and hands `score_sample` each judge's verdicts, one per repeat
(`core.judge_stage.Verdicts`: None where the reply stayed unusable, with the reason). A row then
holds, for each of `judge_coverage`, `judge_organization`, `judge_logic`, `judge_topology` and
`judge_avg`:

- a judge's value: the mean of its repeats that have one (a 1–5 scale, so a mean); its
  `judge_avg` is the mean of its repeats' averages (= the mean of its four dimension values,
  since a reply gives all four or none);
- the column: the mean of the judges' values that are defined (each judge weighs the same);
- `judges: {label: {<key>: value, <key>_unscored: repeats unscored, <key>_samples: [...] (K>1)}}`;
- `judge_unscored`: a reason only when no judge gave a value (every judge failed); a judge that
  fails on a sample leaves it unscored for that judge only.

One judge asked once: the lone judge's columns (no `judges`, the `_n_judges` counts left out),
as TaxoBench has always written them.
"""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS, NOT_JUDGED, JudgeResult
from scholarbench.metrics.agreement import PANEL_KEY
from scholarbench.metrics.judge_panel import judge_entry, panel_value


def value_of(result: JudgeResult, key: str) -> float | None:
    return result.avg if key == "judge_avg" else result.scores.get(key)


def result_of(verdict: Any, reason: str | None) -> JudgeResult:
    """One verdict (`judge.validate_reply`'s value) as a `JudgeResult`; None: unscored."""
    if verdict is None:
        return JudgeResult(unscored=reason or "no usable reply", attempts=1)
    return JudgeResult(scores=dict(verdict["scores"]), attempts=1,
                       reasoning=dict(verdict.get("reasoning") or {}))


def judge_columns(verdicts: Any, sid: str) -> dict[str, Any]:
    """Sample `sid`'s judge columns (the module docstring); not judged (no request: a missing
    or malformed answer): every column null."""
    per_judge, why = verdicts.of(sid), verdicts.why(sid)
    if not per_judge:
        return NOT_JUDGED.row()
    results = {label: [result_of(v, r) for v, r in zip(vs, why.get(label) or [None] * len(vs))]
               for label, vs in per_judge.items()}
    repeats = max(len(runs) for runs in results.values())
    if len(results) == 1 and repeats == 1:
        return next(iter(results.values()))[0].row()
    return panel_row(results, repeats)


def panel_row(results: dict[str, list[JudgeResult]], repeats: int) -> dict[str, Any]:
    """A judged sample's columns from every judge's repeats (the module docstring)."""
    per_judge: dict[str, dict[str, Any]] = {}
    for label, runs in results.items():
        failed = sum(1 for r in runs if r.unscored)
        entry: dict[str, Any] = {}
        for key in JUDGE_KEYS:
            entry.update(judge_entry(key, [value_of(r, key) for r in runs], failed, repeats))
        per_judge[label] = entry
    out: dict[str, Any] = {}
    for key in JUDGE_KEYS:
        out.update(panel_value(per_judge, key))
    reasons = [r.unscored for runs in results.values() for r in runs if r.unscored]
    out["judge_unscored"] = reasons[0] if out["judge_avg"] is None and reasons else None
    out[PANEL_KEY] = per_judge
    return out


__all__ = ["judge_columns", "panel_row", "result_of", "value_of"]

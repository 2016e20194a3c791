"""A judged run's per-sample judgement as the report's drill-down shows it, from either file:
the engine's judge stage's `judge.judge.jsonl` (a record per request, judge and repeat: the
first judge's first repeat is shown) or, for runs judged before it, TaxoBench's own
`judge.jsonl` (one record per instance)."""
from __future__ import annotations

from typing import Any

from scholarbench.benchmarks.taxobench.judged import judged_item
from scholarbench.core.judge_stage import judged_entry
from scholarbench.data.jsonl import read_jsonl_tolerant

OLD_FILE = "judge.jsonl"


def judge_records(run: Any) -> tuple[dict[str, dict[str, Any]], str | None]:
    """Sample id → {"judged", "scores", "judge_avg", "unscored", "attempts", "reasoning"},
    and a note when the run's judge file is missing or cannot be read."""
    new = run.run_dir / judged_item().file
    path = new if new.is_file() else run.run_dir / OLD_FILE
    if not path.is_file():
        return {}, f"{new.name} is missing (the judge's reasoning cannot be shown)"
    try:
        records = [r for r in read_jsonl_tolerant(path) if isinstance(r, dict)]
    except Exception as exc:  # a report must not die on one unreadable file
        return {}, f"{path.name} cannot be read ({exc})"
    if path != new:
        return {str(r.get("id")): r for r in records}, None
    return from_stage(run, records), None


def from_stage(run: Any, records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The engine's records of this scoring's first judge (the manifest's `judged.judge`), its
    first repeat, in the old record's shape; a scored sample without one was not sent."""
    entry = judged_entry(run.manifest, judged_item().name) or {}
    judges = entry.get("judges") or [{}]
    first = judges[0].get("fingerprint") if isinstance(judges[0], dict) else None
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        if r.get("repeat", 0) != 0 or (first and r.get("fingerprint") != first) or \
                r.get("prompt") != entry.get("prompt", r.get("prompt")):
            continue
        verdict = r.get("verdict") if isinstance(r.get("verdict"), dict) else {}
        scores = verdict.get("scores") if isinstance(verdict.get("scores"), dict) else {}
        values = [v for v in scores.values() if isinstance(v, (int, float))]
        out[str(r.get(run.id_key))] = {
            "judged": True, "scores": scores, "reasoning": verdict.get("reasoning") or {},
            "judge_avg": sum(values) / len(values) if len(values) == 4 else None,
            "unscored": None if r.get("status") == "ok" else r.get("reason") or r.get("status"),
            "attempts": r.get("attempts")}
    for row in run.scores:
        out.setdefault(str(row.get(run.id_key)), {"judged": False})
    return out


__all__ = ["OLD_FILE", "from_stage", "judge_records"]

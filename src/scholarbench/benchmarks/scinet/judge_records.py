"""A judged run's judgements as the report's drill-down shows them, from either file: the engine's
judge stage's `judge.<item>.jsonl` (ego, path, review: a record per request, judge and repeat;
the first judge's first repeat is shown) or, for runs judged before it, SciNet's own
`judge.jsonl` (one record per metric and subject)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarbench.benchmarks.scinet.judged import EGO, PATH, REVIEW
from scholarbench.core.judge_stage import judged_entry, recorded_judges
from scholarbench.data.jsonl import read_jsonl_tolerant

OLD_FILE = "judge.jsonl"
METRIC = {PATH: "path_rationality_llm", REVIEW: "review"}


def judgements(run_dir: Path, manifest: dict[str, Any], kinds: dict[str, str]
               ) -> dict[tuple[str, str], dict[str, Any]]:
    """(metric, subject) → {"score", "reasoning", "unscored"}: subject the paper id (ego) or
    the task id (path, review); `kinds`: task id → kind (an ego task's measure)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for item in (EGO, PATH, REVIEW):
        path = run_dir / f"judge.{item}.jsonl"
        if path.is_file():
            out.update(from_stage(item, read_jsonl_tolerant(path), manifest, kinds))
    if out or not (run_dir / OLD_FILE).is_file():
        return out
    return {(str(j.get("metric")), str(j.get("subject"))): j
            for j in read_jsonl_tolerant(run_dir / OLD_FILE) if isinstance(j, dict)}


def from_stage(item: str, records: Any, manifest: dict[str, Any], kinds: dict[str, str]
               ) -> dict[tuple[str, str], dict[str, Any]]:
    """The engine's records of `item` by this scoring's first judge (the manifest's
    `judged.<item>`), its first repeat, in the old record's shape."""
    entry = judged_entry(manifest, item) or {}
    judges = recorded_judges(entry)
    first = judges[0].get("fingerprint") if judges else None
    out = {}
    for r in records:
        if not isinstance(r, dict) or r.get("repeat", 0) != 0 or \
                (first and r.get("fingerprint") != first) or \
                r.get("prompt") != entry.get("prompt", r.get("prompt")):
            continue
        tid = str(r.get("task_id"))
        if item == EGO:
            key = ("novelty_llm" if kinds.get(tid) == "novel" else "disruption_llm",
                   str(r.get("subject")))
        else:
            key = (METRIC[item], tid)
        ok = r.get("status") == "ok"
        verdict = r.get("verdict") if isinstance(r.get("verdict"), dict) else {}
        out[key] = {"score": verdict.get("score") if ok else None,
                    "reasoning": verdict.get("reasoning"),
                    "unscored": None if ok else r.get("reason") or r.get("status")}
    return out


__all__ = ["OLD_FILE", "from_stage", "judgements"]

"""Scoring SciNet's review sub-task: the judge's five dimensions of every usable review, one row
per task from them, and the summary's blocks from the rows alone (`scholarbench aggregate RUN
--check` rebuilds it; its measures are `measures.measures_of("review")`).

Row statuses: `scored` (the judge's five scores); `unscored` (the judge's reply still unusable
after the repair turn, or its call failed: every dimension null, reason counted); `malformed` /
`missing` (no usable review: not judged, every dimension null — left out of the means and
counted, our choice: the paper scored only reviews that exist); `error` (the agent failed: not
in the means, the run is incomplete and a resume retries it).

Summary (`families.review`): `n_tasks`, `missing_answers` (malformed or missing), `errors`,
`unscored`, `unresolved_refs`, per dimension `{macro, n, n_null}` and `judge.<dimension>`
(`judged`, `unscored`, `tasks_null`, `reasons`); `metrics` the same means in the engine's form
(its default aggregate of the review's measures); the judge panel's fields when several judges
or repeats scored (`scoring.panel_fields`).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

from scholarbench.benchmarks.scinet.published import review_published
from scholarbench.benchmarks.scinet.review_judge import REVIEW_METRICS
from scholarbench.benchmarks.scinet.scoring import agent_llm_counts, failed_status, panel_fields
from scholarbench.core.refs import attach

FAMILY = "review"


def review_of(record: dict[str, Any] | None) -> tuple[str | None, str]:
    """(the review to judge or None, the row's status) of a generate.jsonl line."""
    if (failed := failed_status(record)) is not None:
        return None, failed
    assert record is not None
    review = record.get("review")
    if not isinstance(review, str) or not review.strip():
        return None, "malformed"
    return review, "scored"


def review_row(sample: Any, record: dict[str, Any] | None, judged: dict[str, dict[str, Any]]
               ) -> dict[str, Any]:
    """One sample's row (never skipped): a usable review's judge columns (`judged`: task id →
    columns, `run_scoring.prepare`; none: every dimension null) and its status."""
    review, status = review_of(record)
    row: dict[str, Any] = {"task_id": sample.id, "family": FAMILY, "kind": FAMILY}
    if status in ("missing", "malformed", "error"):
        row["missing_answer"] = True
    if review is not None:
        info = (record or {}).get("info") or {}
        row["review_chars"] = len(review)
        row["papers"] = len((record or {}).get("papers") or [])
        if isinstance(info.get("unresolved"), int):
            row["unresolved_refs"] = info["unresolved"]
        row.update(judged.get(sample.id, {}))
        if all(row.get(k) is None for k in REVIEW_METRICS):
            status = "unscored"
            reasons = row.get(f"{REVIEW_METRICS[0]}_unscored_reasons") or ["unscored"]
            row["reason"] = f"the judge's reply was unusable ({reasons[0]})"
    row["status"] = status
    attach([row], {sample.id: record} if record is not None else {}, "task_id")
    return row


def summary_extras(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The review family's summary beside its measures, from the score rows alone."""
    counted = [r for r in rows if r.get("status") != "error"]
    agg: dict[str, Any] = {
        "n_tasks": len(rows), "empty_answers": 0, "not_in_graph": 0, "no_gold": 0,
        "missing_answers": sum(1 for r in counted if r.get("missing_answer")),
        "errors": len(rows) - len(counted),
        "unscored": sum(1 for r in counted if r.get("status") == "unscored"),
        "unresolved_refs": sum(r.get("unresolved_refs", 0) for r in counted)}
    judge: dict[str, Any] = {}
    for key in REVIEW_METRICS:
        values = [r[key] for r in counted if r.get(key) is not None]
        mean = sum(values) / len(values) if values else None
        agg[key] = {"macro": mean, "n": len(values), "n_null": len(counted) - len(values)}
        judged = [r for r in counted if f"{key}_judged" in r]
        if judged:
            reasons = Counter(c for r in judged for c in r.get(f"{key}_unscored_reasons", []))
            judge[key] = {"judged": sum(r[f"{key}_judged"] for r in judged),
                          "unscored": sum(r.get(f"{key}_unscored", 0) for r in judged),
                          "tasks_null": sum(1 for r in judged if r.get(key) is None),
                          "reasons": dict(sorted(reasons.items()))}
    if judge:
        agg["judge"] = judge
    families = {FAMILY: agg}
    out: dict[str, Any] = {"families": families, "variant": "paper"}
    out.update(panel_fields(rows, families, "paper"))
    if (agent_llm := agent_llm_counts(rows)) is not None:
        out["agent_llm"] = agent_llm
    return out


def format_summary(summary: dict[str, Any]) -> list[str]:
    agg = (summary.get("families") or {}).get(FAMILY)
    if not agg:
        return []
    errors = f", {agg['errors']} errored (not in the means)" if agg.get("errors") else ""
    lines = [f"review: {agg['n_tasks']} tasks, {agg['missing_answers']} without a usable "
             f"review, {agg.get('unscored', 0)} unscored by the judge{errors}"]
    for key in REVIEW_METRICS:
        e = agg[key]
        mean = "—" if e["macro"] is None else f"{e['macro']:.2f}"
        lines.append(f"  {key:28s} {mean:>6}  (n={e['n']}, null={e['n_null']})")
    counts = (agg.get("judge") or {}).get(REVIEW_METRICS[0])
    if counts:
        reasons = ", ".join(f"{k} {v}" for k, v in counts["reasons"].items()) or "none"
        lines.append(f"  judge: {counts['judged']} reviews scored, {counts['unscored']} "
                     f"unscored ({reasons})")
    lines.append(f"  published: none — {review_published().short}")
    return lines

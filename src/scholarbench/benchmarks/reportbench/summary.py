"""A ReportBench run's summary.json (beside the engine's status counts) and its terminal text.

- `means`: reference metrics over the counted surveys — every survey but `error` (the agent
  failed; retried on resume) and `unscored` (no constructed prompt) ones; a survey without a
  report (`missing`, `malformed`) scores 0 and stays in, as the paper scores it. `n_counted`
  says over how many.
- `means_with_report`: over the surveys with a report; `micro`: pooled matches over the counted
  surveys (upstream prints a micro and a macro figure).
- `metrics`: the engine's form of the same means (`{mean, n, n_null}`), plus the statement
  rates over the judged reports where they are defined.
- `references`: pooled counts of references found / resolved / titled / unresolved (reasons);
  `statements` (when judged), `title_extractor` (when used), `prompts` (constructed
  granularities): as before.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.scoring import NOT_COUNTED, REF_KEYS


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def pooled_references(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    pooled: dict[str, Any] = {"found": 0, "resolved": 0, "titled": 0, "unresolved": 0,
                              "unresolved_with_id": 0, "reasons": {}}
    for r in rows:
        if r.get("status") not in ("scored", "no_references"):
            continue
        for key in ("found", "resolved", "titled", "unresolved", "unresolved_with_id"):
            pooled[key] += r.get(f"n_{key}", 0) or 0
        for why, n in (r.get("unresolved_reasons") or {}).items():
            pooled["reasons"][why] = pooled["reasons"].get(why, 0) + n
    return pooled


def summarise(rows: Sequence[dict[str, Any]], manifest: dict[str, Any],
              extra: dict[str, Any] | None = None) -> dict[str, Any]:
    from scholarbench.benchmarks.reportbench.statements import (STATEMENT_RATES,
                                                                aggregate_statement_rows)
    counted = [r for r in rows if r.get("status") not in NOT_COUNTED]
    with_report = [r for r in counted if r["status"] in ("scored", "no_references")]
    status = [r.get("status") for r in rows]
    matched = sum(r.get("n_matched", 0) for r in counted)
    count = sum(r.get("ref_count", 0) for r in counted)
    gt_matched = sum(r.get("n_gt_matched", 0) for r in counted)
    gt = sum(r.get("n_gt", 0) for r in counted)
    summary: dict[str, Any] = {
        "granularity": manifest.get("mode"),
        "n_tasks": len(rows), "n_counted": len(counted), "n_with_report": len(with_report),
        "n_no_references": status.count("no_references"),
        "n_missing": status.count("missing") + status.count("malformed"),
        "n_malformed": status.count("malformed"), "n_error": status.count("error"),
        "n_unscored": status.count("unscored"),
        "missing": [{"id": r["arxiv_id"], "error": r.get("error")} for r in rows
                    if r.get("status") in ("missing", "malformed", "error", "unscored")][:50],
        "means": {k: _mean([r[k] for r in counted]) for k in REF_KEYS},
        "means_with_report": {k: _mean([r[k] for r in with_report]) for k in REF_KEYS},
        "micro": {"ref_precision": matched / count if count else 0.0,
                  "ref_recall": gt_matched / gt if gt else 0.0},
        "references": pooled_references(rows),
    }
    metrics = {k: {"mean": summary["means"][k], "n": len(counted), "n_null": 0}
               for k in REF_KEYS}
    if any("statements" in r for r in rows):
        st = aggregate_statement_rows(rows)
        summary["statements"] = st
        for key in STATEMENT_RATES:
            metrics[key] = {"mean": st[key]["mean"], "n": st[key]["n"],
                            "n_null": len(counted) - st[key]["n"]}
    summary["metrics"] = metrics
    summary.update(extra or {})
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    from scholarbench.benchmarks.reportbench.statements import format_statement_summary

    def f(v: Any, digits: int = 4) -> str:
        return "—" if v is None else f"{v:.{digits}f}"

    n_tasks = summary.get("n_tasks", summary.get("n_samples", 0))
    lines = [f"reportbench ({summary['granularity']} prompts), {summary['agent']}: "
             f"{n_tasks} tasks, {summary['n_with_report']} with a report "
             f"({summary['n_no_references']} without references, scored 0); "
             f"{summary['n_missing']} missing (scored 0, in the means)"]
    if summary.get("n_error") or summary.get("n_unscored"):
        lines.append(f"  {summary.get('n_error', 0)} errored and {summary.get('n_unscored', 0)} "
                     f"unscored (not in the means: {summary.get('n_counted')} counted)")
    for key in REF_KEYS:
        digits = 2 if key == "ref_count" else 4
        lines.append(f"  {key:<28} {f(summary['means'][key], digits):>8}   (tasks with a "
                     f"report: {f(summary['means_with_report'][key], digits)})")
    lines.append(f"  micro precision {f(summary['micro']['ref_precision'])}, recall "
                 f"{f(summary['micro']['ref_recall'])}")
    refs = summary["references"]
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(refs["reasons"].items(),
                                                           key=lambda kv: -kv[1])) or "none"
    lines.append(f"  references: {refs['found']} found, {refs['resolved']} resolved, "
                 f"{refs['titled']} titled only, {refs['unresolved']} unresolved ({reasons})")
    if "title_extractor" in summary:
        te = summary["title_extractor"]
        lines.append(f"  LLM titles: {te['titles']} titles from {te['reports']} reports "
                     f"({te['replayed']} replayed), {te['n_unscored']} unscored replies"
                     + (f", {te['not_run']} reports not run (no judge)"
                        if te.get("not_run") else ""))
    if summary.get("statements"):
        lines += format_statement_summary(summary["statements"])
    if "prompts" in summary:
        p = summary["prompts"]
        lines.append(f"  prompts: {p['n']} constructed ({p['n_unscored']} unscored), cut-off "
                     f"as asked {p['n_cutoff_ok']}, naming the survey {p['n_mentions_title']}, "
                     f"overlap F1 with shipped {f(p['mean_overlap_f1_with_shipped'])}")
    return "\n".join(lines)

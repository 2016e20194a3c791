"""A ReportBench run's summary.json (beside the engine's status counts) and its terminal text.

- `means`: reference metrics over the counted surveys — every survey but `error` (the agent
  failed; retried on resume) and `unscored` (no constructed prompt) ones; a survey without a
  report (`missing`, `malformed`) scores 0 and stays in, as the paper scores it. `n_counted`
  says over how many.
- `means_with_report`: over the surveys with a report; `micro`: pooled matches over the counted
  surveys (upstream prints a micro and a macro figure) — the `*_micro` measures' values.
- `metrics`: every measure `measures.MEASURES` declares (`{mean, n, n_null}`, the value the
  measure's own): the reference means above, their micro forms, and when statements were
  judged the statement rates (over the judged reports where they are defined) and their
  pooled (micro) forms.
- `references`: pooled counts of references found / resolved / titled / unresolved (reasons);
  `statements` (when judged), `title_extractor` (when used: summed from the rows'
  `title_extraction`), `prompts` (constructed granularities: from the rows'
  `prompt_construction`).

Everything here is read from the score rows and the manifest alone, so `scholarbench aggregate
RUN_DIR` rebuilds it without data, corpus or judge.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.construct import summarise_constructed
from scholarbench.benchmarks.reportbench.measures import BY_KEY, counted, micro_key
from scholarbench.benchmarks.reportbench.scoring import REF_KEYS, TITLE_COUNTS
from scholarbench.benchmarks.reportbench.statement_rows import STATEMENT_RATES, judged_rows
from scholarbench.benchmarks.reportbench.statements import (aggregate_statement_rows,
                                                            format_statement_summary)
from scholarbench.core.columns import ScoreRows, where
from scholarbench.core.measure import defined
from scholarbench.core.status import count_samples
from scholarbench.metrics.agreement import panel_summary
from scholarbench.metrics.judge_panel import format_panel


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def pooled_references(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    pooled: dict[str, Any] = {"found": 0, "resolved": 0, "titled": 0, "unresolved": 0,
                              "unresolved_with_id": 0, "reasons": {}}
    with_report = where(rows, _has_report)
    if isinstance(with_report, ScoreRows):          # the counts from columns
        for key in ("found", "resolved", "titled", "unresolved", "unresolved_with_id"):
            pooled[key] += with_report.total(f"n_{key}")
    else:
        for r in with_report:
            for key in ("found", "resolved", "titled", "unresolved", "unresolved_with_id"):
                pooled[key] += r.get(f"n_{key}", 0) or 0
    for r in with_report:
        for why, n in (r.get("unresolved_reasons") or {}).items():
            pooled["reasons"][why] = pooled["reasons"].get(why, 0) + n
    return pooled


def _has_report(row: dict[str, Any]) -> bool:
    return row.get("status") in ("scored", "no_references")


def title_extractor_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The LLM title extractor's counts, summed over the rows' `title_extraction` (None when
    the run was scored without --llm-titles)."""
    parts = [r["title_extraction"] for r in rows if isinstance(r.get("title_extraction"), dict)]
    if not parts:
        return None
    unscored = [why for p in parts for why in p.get("unscored") or []]
    total = {k: sum(p.get(k, 0) or 0 for p in parts) for k in TITLE_COUNTS}
    return {**{k: total[k] for k in TITLE_COUNTS[:5]}, "n_unscored": len(unscored),
            "unscored": unscored[:20], "replayed": total["replayed"],
            "not_run": total["not_run"]}


def prompts_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The constructed prompts' counts from the rows' `prompt_construction` (None for the
    shipped prompts)."""
    records = [r["prompt_construction"] for r in rows
               if isinstance(r.get("prompt_construction"), dict)]
    return summarise_constructed(records) if records else None


def panel_fields(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """With a judge panel or repeats (judged lines carrying `judges`): `judge_panel` (each
    judge's mean, n, repeats, spread and α across its repeats per statement rate) and
    `judge_agreement` (interval α between the judges, the judged reports as units and each
    judge's per-report rate as its rating; `metrics.agreement`); {} otherwise."""
    return panel_summary(judged_rows(rows), {k: k for k in STATEMENT_RATES})


def panel_lines(summary: dict[str, Any]) -> list[str]:
    """One `judges <rate>:` line per panel-judged rate (SciNet's format)."""
    return format_panel(summary)


def status_fields(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The survey counts the terminal and report print, from the engine's one status of each
    row (`core.status`) and the sub-status `no_references` of a scored report."""
    status = count_samples(rows, {}).counts
    return {"n_no_references": sum(1 for r in rows if r.get("status") == "no_references"),
            "n_missing": status["missing"] + status["malformed"],
            "n_malformed": status["malformed"], "n_error": status["error"],
            "n_unscored": status["unscored"]}


def summary_blocks(rows: Sequence[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    """The benchmark's part of summary.json beside `metrics`: a function of
    the score rows and the manifest."""
    kept = counted(rows)
    with_report = where(kept, _has_report)
    summary: dict[str, Any] = {
        "granularity": manifest.get("mode"),
        "n_tasks": len(rows), "n_counted": len(kept), "n_with_report": len(with_report),
        **status_fields(rows),
        "missing": [{"id": r["arxiv_id"], "error": r.get("error")} for r in rows
                    if r.get("status") in ("missing", "malformed", "error", "unscored")][:50],
        # a key a row lacks (a measure declared after it was scored) is undefined, as null
        "means": {k: _mean(defined(kept, k)) for k in REF_KEYS},
        "means_with_report": {k: _mean(defined(with_report, k)) for k in REF_KEYS},
        "micro": {k: BY_KEY[micro_key(k)].value(rows) for k in REF_KEYS
                  if micro_key(k) in BY_KEY},
        "references": pooled_references(rows),
    }
    if any("statements" in r for r in rows):
        summary["statements"] = aggregate_statement_rows(rows)
        summary.update(panel_fields(rows))
    if (titles := title_extractor_summary(rows)) is not None:
        summary["title_extractor"] = titles
    if (prompts := prompts_summary(rows)) is not None:
        summary["prompts"] = prompts
    return summary


def format_summary(summary: dict[str, Any]) -> str:

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
        lines += format_statement_summary(summary["statements"]) + panel_lines(summary)
    if "prompts" in summary:
        p = summary["prompts"]
        lines.append(f"  prompts: {p['n']} constructed ({p['n_unscored']} unscored), cut-off "
                     f"as asked {p['n_cutoff_ok']}, naming the survey {p['n_mentions_title']}, "
                     f"overlap F1 with shipped {f(p['mean_overlap_f1_with_shipped'])}")
    return "\n".join(lines)

"""A judged report's statement metrics as a scores line, and their aggregate over a run (shared
by the run's scorer and `score reportbench`; the judging itself is `statements`).

`statement_row(metrics)`: the keys one line carries (the four rates, the counts, the
unreachable reasons, `statements: "judged"`, or "failed" when judging raised);
`not_judged_row(why)`: null rates and the reason; `aggregate_statement_rows(rows)`: means over
the judged reports where each rate is defined (`n`, `n_undefined`), pooled (micro) rates
(`micro_rates`, also the `*_micro` measures' aggregator),
summed counts and reasons, reports not judged and failed; `format_statement_summary`: the
terminal lines.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.reportbench.measures import keys
from scholarbench.core.columns import ScoreRows, where
from scholarbench.metrics.agreement import judge_means, krippendorff_alpha

STATEMENT_RATES = keys("statement")      # the per-report rates, declared in `measures`
STATEMENT_COUNTS = ("n_cited", "n_cited_statements", "n_cited_checked", "n_cited_matched",
                    "n_cited_not_found", "n_cited_unreachable", "n_cited_unscored",
                    "n_noncited", "n_noncited_correct", "n_noncited_incorrect",
                    "n_noncited_tie", "n_noncited_unscored", "n_votes", "n_votes_unscored",
                    "n_extraction_unscored")
PANEL_ONLY = ("n_cited_tie", "judges")    # on the lines of a panel's (or repeats') judging


def statement_row(metrics: dict[str, Any]) -> dict[str, Any]:
    """The keys a scores line carries for one judged report (`statements`: "judged", or
    "failed" when judging raised and `metrics` holds only null rates)."""
    row: dict[str, Any] = {k: metrics.get(k) for k in STATEMENT_RATES}
    row.update({k: metrics.get(k, 0) for k in STATEMENT_COUNTS})
    row["cited_unreachable_reasons"] = metrics.get("cited_unreachable_reasons", {})
    row["statements"] = "judged" if "n_cited" in metrics else "failed"
    for key in PANEL_ONLY:                  # a judge panel or repeats (`statement_panel`)
        if key in metrics:
            row[key] = metrics[key]
    return row


def not_judged_row(why: str = "not judged") -> dict[str, Any]:
    return {**{k: None for k in STATEMENT_RATES}, "statements": why}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def judged_rows(rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """The rows of the judged reports (`core.columns.where`)."""
    return where(rows, _judged)


def _judged(row: dict[str, Any]) -> bool:
    return row.get("statements") == "judged"


def totals(judged: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The statement counts summed over the judged reports (from columns on score rows)."""
    if isinstance(judged, ScoreRows):
        return {k: judged.total(k) for k in STATEMENT_COUNTS}
    return {k: sum(r.get(k, 0) or 0 for r in judged) for k in STATEMENT_COUNTS}


def micro_rates(summed: dict[str, int]) -> dict[str, float | None]:
    """The four rates over the pooled statement items (None where a denominator is 0); the
    aggregators of the `*_micro` measures."""
    checked, unreachable = summed["n_cited_checked"], summed["n_cited_unreachable"]
    correct, ties = summed["n_noncited_correct"], summed["n_noncited_tie"]
    decided = correct + summed["n_noncited_incorrect"]
    matched = summed["n_cited_matched"]
    return {
        "cited_match_rate": matched / (checked + unreachable) if checked + unreachable else None,
        "cited_match_rate_checkable": matched / checked if checked else None,
        "noncited_accuracy": correct / decided if decided else None,
        "noncited_accuracy_upstream": correct / (decided + ties) if decided + ties else None}


def aggregate_statement_rows(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means over the judged reports (a rate undefined for a report — no cited or no decided
    non-cited statement — is left out and counted in `n_undefined`), pooled (micro) rates,
    summed counts and unreachable reasons, and the reports not judged (no report text) or whose
    judging failed."""
    judged = judged_rows(rows)
    stats: dict[str, Any] = {"n_judged": len(judged),
                             "n_not_judged": sum(1 for r in rows if r.get("statements")
                                                 not in (None, "judged", "failed")),
                             "n_failed": sum(1 for r in rows if r.get("statements") == "failed")}
    for key in STATEMENT_RATES:
        values = [r[key] for r in judged if r.get(key) is not None]
        stats[key] = {"mean": _mean(values), "n": len(values),
                      "n_undefined": len(judged) - len(values)}
    summed = totals(judged)
    stats["counts"] = summed
    if any("n_cited_tie" in r for r in judged):
        summed["n_cited_tie"] = sum(r.get("n_cited_tie", 0) or 0 for r in judged)
        means = judge_means_of(judged)
        for key in STATEMENT_RATES:
            stats[key]["judges"] = means.get(key, {})
        stats["agreement"] = item_agreement(judged)
    reasons: dict[str, int] = {}
    for r in judged:
        for why, n in (r.get("cited_unreachable_reasons") or {}).items():
            reasons[why] = reasons.get(why, 0) + n
    stats["cited_unreachable_reasons"] = dict(sorted(reasons.items()))
    stats["micro"] = micro_rates(summed)
    stats["mean_cited_per_report"] = _mean([r.get("n_cited", 0) for r in judged])
    stats["mean_noncited_per_report"] = _mean([r.get("n_noncited", 0) for r in judged])
    return stats


def judge_means_of(judged: Sequence[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """{rate: {judge: its mean over the judged reports}} (`metrics.agreement.judge_means`)."""
    return {key: {label: e["mean"] for label, e in judge_means(judged, key).items()}
            for key in STATEMENT_RATES}


def item_agreement(judged: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Nominal α between the judges with every statement item of every judged report as a
    unit (cited pairs: match / no match / tie; non-cited statements: correct / incorrect /
    tie; an item a judge left undecided is a missing rating), from the lines' `judges`."""
    out: dict[str, Any] = {}
    for kind in ("cited", "noncited"):
        key = f"{kind}_verdicts"
        labels = list(dict.fromkeys(label for r in judged
                                    for label, e in (r.get("judges") or {}).items()
                                    if isinstance(e, dict) and key in e))
        matrix: list[list[Any]] = [[] for _ in labels]
        for r in judged:
            per = [((r.get("judges") or {}).get(label) or {}).get(key) or [] for label in labels]
            n = max(map(len, per), default=0)
            for i, values in enumerate(per):
                matrix[i] += list(values) + [None] * (n - len(values))
        rated = sum(1 for unit in zip(*matrix) if sum(v is not None for v in unit) >= 2)
        out[kind] = {"level": "nominal", "n_judges": len(labels), "n_items": rated,
                     "alpha": krippendorff_alpha(matrix, "nominal") if len(labels) > 1
                     else None}
    return out


def format_statement_summary(stats: dict[str, Any]) -> list[str]:
    def f(v: Any) -> str:
        return "—" if v is None else f"{v:.4f}"

    c = stats["counts"]
    lines = [f"  {key:<28} {f(stats[key]['mean']):>8}   (n={stats[key]['n']}, undefined "
             f"{stats[key]['n_undefined']}; micro {f(stats['micro'].get(key))})"
             for key in STATEMENT_RATES]
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(
        stats["cited_unreachable_reasons"].items(), key=lambda kv: -kv[1])) or "none"
    lines.append(f"  cited: {c['n_cited']} pairs, {c['n_cited_checked']} checked "
                 f"({c['n_cited_matched']} match, {c['n_cited_not_found']} NOT_FOUND), "
                 f"{c['n_cited_unreachable']} unreachable ({reasons}), "
                 f"{c['n_cited_unscored']} unscored"
                 + (f", {c['n_cited_tie']} ties" if "n_cited_tie" in c else ""))
    lines.append(f"  non-cited: {c['n_noncited']} statements, {c['n_noncited_correct']} "
                 f"correct, {c['n_noncited_incorrect']} incorrect, {c['n_noncited_tie']} "
                 f"ties, {c['n_noncited_unscored']} unscored; {c['n_votes_unscored']} of "
                 f"{c['n_votes']} votes unscored; {c['n_extraction_unscored']} extraction "
                 f"chunks unscored")
    if agreement := stats.get("agreement"):
        lines.append("  judges per statement (nominal α): " + "; ".join(
            f"{kind} {'—' if a['alpha'] is None else format(a['alpha'], '.3f')} over "
            f"{a['n_items']} items" for kind, a in agreement.items()))
    lines.append(f"  reports judged {stats['n_judged']}, not judged {stats['n_not_judged']}, "
                 f"judging failed {stats['n_failed']}")
    return lines

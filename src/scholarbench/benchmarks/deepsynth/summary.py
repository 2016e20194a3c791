"""What summary.json says about a DeepSynth-Eval run beside its scores, and the terminal text.

summary.json = the engine's keys (benchmark, mode = the sub-task, agent, run_name, n_samples,
status counts, complete, metrics {key: mean, n, n_null, ci95}) + `scores.aggregate_rows`
over the tasks that are not ``error`` (macro means, pooled precision, label counts, unscored
reasons) + the counts here, from the score rows (`scoring`) and the manifest alone:
``setting`` (oracle-summary | oracle-abstract | search | prompt-only | replay), ``reports``
(per report status, every task), ``judge`` (identity, calls, model calls and cache hits —
the last two from the manifest's usage: `judge_record` —, the judge's unscored reasons,
whether it is the agent's own model), ``writer_info`` (the agent's ``info`` counts summed), ``oracle`` (sources
and reference statuses, when there is an oracle) and ``replay_unknown_ids``.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.judge_record import judge_calls, judge_identity
from scholarbench.benchmarks.deepsynth.judged import format_summary as format_scores
from scholarbench.benchmarks.deepsynth.oracle import oracle_totals
from scholarbench.benchmarks.deepsynth.stages import REPORT_STATUSES
from scholarbench.core.benchmark import summary_line
from scholarbench.metrics.judge_panel import format_panel


def sum_ints(total: dict[str, Any], info: dict[str, Any]) -> None:
    """Add the integer leaves of `info` (nested dicts kept) into `total`, in place."""
    for key, value in info.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            total[key] = total.get(key, 0) + value
        elif isinstance(value, dict):
            sum_ints(total.setdefault(key, {}), value)


def run_counts(manifest: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The counts of the module docstring, from every score row (errored tasks included: their
    report status and oracle context count) and the manifest."""
    reports = [r.get("report_status") or "missing" for r in rows]
    reasons: dict[str, int] = {}
    for r in rows:
        for reason, n in (r.get("judge_unscored_reasons") or {}).items():
            reasons[reason] = reasons.get(reason, 0) + n
    writer_info: dict[str, Any] = {}
    for r in rows:
        if r.get("writer_info") is not None:
            sum_ints(writer_info, r["writer_info"])
    agent_id = ((manifest.get("models") or {}).get("agent") or {}).get("model_id")
    judge = judge_identity(manifest)
    judge.update(n_subgroups_judged=_total(rows, "n_subgroups_judged"),
                 calls=_total(rows, "n_judge_calls"), **judge_calls(manifest),
                 unscored_reasons=dict(sorted(reasons.items())),
                 same_model_as_agent=agent_id is not None and agent_id == judge.get("model_id"))
    out: dict[str, Any] = {"setting": manifest.get("setting"),
                           "reports": {s: reports.count(s) for s in REPORT_STATUSES},
                           "judge": judge, "writer_info": writer_info}
    contexts = [r["oracle_context"] for r in rows if r.get("oracle_context") is not None]
    if contexts:
        out["oracle"] = oracle_totals([c for c in contexts if c.get("status") != "error"])
    if manifest.get("replay_unknown_ids"):
        out["replay_unknown_ids"] = manifest["replay_unknown_ids"]
    return out


def _total(rows: Sequence[dict[str, Any]], key: str) -> int:
    return sum(int(r.get(key) or 0) for r in rows)


def format_run_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the run line, the scores (``judged.format_summary``), then the reports,
    judge and oracle lines."""
    setting = f" [{summary['setting']}]" if summary.get("setting") else ""
    lines = [summary_line(summary) + setting if "n_samples" in summary else
             f"{summary.get('run_name') or summary.get('agent')}{setting}",
             format_scores(summary)]
    reports = summary.get("reports", {})
    lines.append("  reports: " + (", ".join(f"{v} {k}" for k, v in reports.items() if v)
                                  or "none"))
    judge = summary.get("judge", {})
    reasons = ", ".join(f"{k} {v}" for k, v in judge.get("unscored_reasons", {}).items())
    lines.append(f"  judge {judge.get('model_id')} ({judge.get('prompt')}): "
                 f"{judge.get('n_subgroups_judged', 0)} sub-groups, {judge.get('calls', 0)} "
                 f"calls ({judge.get('model_calls', 0)} to the model, "
                 f"{judge.get('cache_hits', 0)} cached)"
                 + (f"; unscored: {reasons}" if reasons else ""))
    lines += format_panel(summary)
    if judge.get("same_model_as_agent"):
        lines.append("  note: the judge and the agent are the same model")
    oracle = summary.get("oracle")
    if oracle:
        lines.append(f"  oracle: {oracle['tasks_file']} tasks from a file, "
                     f"{oracle['tasks_corpus']} from the corpus, {oracle['tasks_none']} without; "
                     f"{oracle['n_references']} references ({oracle['n_summarized']} summarised, "
                     f"{oracle['n_abstract']} abstract, {oracle['n_summary_failed']} summary "
                     f"failed, {oracle['n_title_only']} title only, {oracle['n_not_in_corpus']} "
                     f"not in the corpus)")
    if summary.get("replay_unknown_ids"):
        lines.append(f"  replay lines for unknown tasks (ignored): "
                     f"{len(summary['replay_unknown_ids'])}")
    return "\n".join(lines)


__all__ = ["format_run_summary", "run_counts", "sum_ints"]

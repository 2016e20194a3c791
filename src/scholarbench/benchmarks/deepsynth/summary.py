"""What summary.json says about a DeepSynth-Eval run beside its scores, and the terminal text.

summary.json = the engine's keys (benchmark, mode = the sub-task, agent, run_name, n_samples,
status counts, complete, metrics {key: mean, n, n_null}) + `scores.aggregate` over the tasks
that are not ``error`` (macro means, micro precision, label counts, unscored reasons) + the
counts here: ``setting`` (oracle-summary | oracle-abstract | search | prompt-only | replay),
``reports`` (per report status, every task), ``judge`` (identity, calls, cache hits, the
judge's unscored reasons, whether it is the agent's own model), ``writer_info`` (the agent's
``info`` counts summed), ``oracle`` (sources and reference statuses, when there is an oracle)
and ``replay_unknown_ids``.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.judged import format_summary as format_scores
from scholarbench.benchmarks.deepsynth.stages import REPORT_STATUSES


def _sum_ints(total: dict[str, Any], info: dict[str, Any]) -> None:
    for key, value in info.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            total[key] = total.get(key, 0) + value
        elif isinstance(value, dict):
            _sum_ints(total.setdefault(key, {}), value)


def run_counts(manifest: dict[str, Any], ids: Sequence[str], statuses: dict[str, str],
               lines: dict[str, dict[str, Any]], generated: dict[str, dict[str, Any]],
               oracle: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """The counts of the module docstring; `statuses` = report status per task id."""
    from scholarbench.benchmarks.deepsynth.oracle import OracleContext, oracle_counts
    reports = [statuses.get(i, "missing") for i in ids]
    reasons: dict[str, int] = {}
    calls = model_calls = hits = subgroups = 0
    for i in ids:
        line = lines.get(i, {})
        calls += line.get("calls", 0)
        model_calls += line.get("model_calls", 0)
        hits += line.get("cache_hits", 0)
        for sub in line.get("subgroups", []):
            subgroups += 1
            for reason in sub.get("reasons", []):
                if reason:
                    reasons[reason] = reasons.get(reason, 0) + 1
    writer_info: dict[str, Any] = {}
    for i in ids:
        record = generated.get(i) or {}
        if record.get("status") != "error":
            _sum_ints(writer_info, record.get("info") or {})
    agent_id = ((manifest.get("models") or {}).get("agent") or {}).get("model_id")
    judge = dict(manifest.get("judge") or {})
    judge.update(n_subgroups_judged=subgroups, calls=calls, model_calls=model_calls,
                 cache_hits=hits, unscored_reasons=dict(sorted(reasons.items())),
                 same_model_as_agent=agent_id is not None and agent_id == judge.get("model_id"))
    out: dict[str, Any] = {"setting": manifest.get("setting"),
                           "reports": {s: reports.count(s) for s in REPORT_STATUSES},
                           "judge": judge, "writer_info": writer_info}
    if oracle:
        out["oracle"] = oracle_counts([OracleContext.from_json(oracle[i]) for i in ids
                                       if i in oracle and oracle[i].get("status") != "error"])
    if manifest.get("replay_unknown_ids"):
        out["replay_unknown_ids"] = manifest["replay_unknown_ids"]
    return out


def format_run_summary(summary: dict[str, Any]) -> str:
    """Terminal text: the run line, the scores (``judged.format_summary``), then the reports,
    judge and oracle lines."""
    from scholarbench.core.benchmark import summary_line
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


__all__ = ["format_run_summary", "run_counts"]

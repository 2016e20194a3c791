"""Scoring one set of SciNet answers: rows (deterministic metrics, then the judge's when asked),
the summary per task family, and its terminal lines.

Statuses of a task's answer (the generate.jsonl line's, or the answers file's):

- `scored`     an answer: scored as it is (`metrics.score_task`);
- `malformed`  an answer that does not fit the family schema, or `missing` — no answer for the
               task: scored as an empty answer and flagged `missing_answer` (SciNet's rule since
               the first version; counted in `missing_answers`);
- `error`      the agent or its model failed on the task: no metric, left out of every mean and
               count of answers except `n_tasks`, `missing_answers` (it has none) and `errors`;
               the run is incomplete and a resume retries it.

The summary keeps the shape reports read: `families.<family>` → `n_tasks`, `empty_answers`,
`missing_answers`, `not_in_graph`, `no_gold`, `errors`, `unresolved_refs`, and per metric
`{macro, n, n_null[, micro]}` (plus `judge.<metric>` counts when judged); `metrics` holds the same
means in the engine's form (`{mean, n, n_null}`, micro ones as `<metric>_micro`); `agent_llm`
the agent model's calls, failures and fallbacks when the agent used a model.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.scinet.measures import (FAMILY_METRICS, LLM_METRICS,  # noqa: F401
                                                    METRICS, SPEC, metric_key, spec_measures)
from scholarbench.core.measure import NOT_COUNTED, Measure
from scholarbench.core.refs import attach
from scholarbench.core.summary_metrics import measure_entry
from scholarbench.metrics.agreement import panel_summary
from scholarbench.metrics.judge_panel import format_panel  # noqa: F401 (re-exported)

def failed_status(record: dict[str, Any] | None) -> str | None:
    """The row's status of a generate.jsonl line that carries no answer (missing, error,
    malformed); None when the line is an answer to read."""
    if record is None:
        return "missing"
    status = record.get("status", "ok")
    if status == "error":
        return "error"
    if status != "ok":
        return "missing" if record.get("missing") else "malformed"
    return None


def answer_of(record: dict[str, Any] | None) -> tuple[list[Any] | None, str]:
    """(the papers to score or None, the row's status) of a generate.jsonl line."""
    if (failed := failed_status(record)) is not None:
        return None, failed
    assert record is not None
    papers = record.get("papers")
    if not isinstance(papers, list):       # a line of a run made before the engine
        return None, "missing" if papers is None else "malformed"
    return papers, "scored"


def score_rows(tasks: Sequence[Any], answers: dict[str, tuple[list[Any] | None, str]],
               records: dict[str, dict[str, Any]], env: Any, variant: str = "paper"
               ) -> list[dict[str, Any]]:
    """One row per task (never skipped): `answers[task_id]` = (papers, status). `variant`
    "upstream": SciNet's released scripts' rules (`upstream.py`)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.upstream import check_variant
    check_variant(variant)
    return [score_row(task, *answers.get(task.task_id, (None, "missing")),
                      records.get(task.task_id), env, variant) for task in tasks]


def score_row(task: Any, papers: list[Any] | None, status: str,
              record: dict[str, Any] | None, env: Any, variant: str = "paper"
              ) -> dict[str, Any]:
    """One task's row of the deterministic metrics: its answer's `papers` and row `status`
    (`answer_of`), `record` its generate line (or None)."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.metrics import score_task as paper_rules
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.upstream import check_variant, score_task_upstream
    if status == "error":
        row = {"task_id": task.task_id, "family": task.family, "kind": task.kind,
               "missing_answer": True}
    else:
        info = (record or {}).get("info")
        if check_variant(variant) == "upstream":
            row = score_task_upstream(task, papers, env, idless=idless_of(info))
        else:
            row = paper_rules(task, papers, env)
        if isinstance(info, dict) and isinstance(info.get("unresolved"), int):
            row["unresolved_refs"] = info["unresolved"]
    row["status"] = status
    # `unresolved`, `n_refs`: the same on every path
    attach([row], {task.task_id: record} if record is not None else {}, "task_id")
    return row


def idless_of(info: Any) -> list[int]:
    """The answer's `info.idless_items` (positions of upstream items with no id), else []."""
    got = info.get("idless_items") if isinstance(info, dict) else None
    if isinstance(got, list) and all(isinstance(k, int) and not isinstance(k, bool) for k in got):
        return got
    return []


def variant_columns(rows: list[dict[str, Any]], variant: str) -> None:
    """Under upstream's rules each metric's value is also written under its measure's key
    (`cite_acc(upstream=1)`, the summary's), so every measure reads its own column; the bare
    columns stay (the report's drill-down and older readers use them)."""
    if variant != "upstream":
        return
    for row in rows:
        for key in FAMILY_METRICS.get(row.get("family"), ()):
            if key in row:
                row[metric_key(key, variant)] = row[key]


def agent_llm_fields(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """A score row's `agent_llm`: the agent model's calls, failed and unscored replies
    (when the agent used a model), its fallback and stop reason, from the task's generate
    line; None when the line has none of them."""
    info = (record or {}).get("info")
    if not isinstance(info, dict):
        return None
    out: dict[str, Any] = {}
    if "llm" in info:
        llm = info["llm"] or {}
        out.update(calls=int(llm.get("calls", 0)), failed=int(llm.get("failed", 0)),
                   unscored=int(llm.get("unscored", 0)))
    if info.get("fallback"):
        out["fallback"] = True
    if info.get("stopped"):
        out["stopped"] = info["stopped"]
    return out or None


def agent_llm_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The LLM agent's model calls, failures and fallbacks summed over the score rows'
    `agent_llm`; None when no task's agent used a model."""
    parts = [r["agent_llm"] for r in rows if isinstance(r.get("agent_llm"), dict)]
    if not any("calls" in p for p in parts):
        return None
    stopped: dict[str, int] = {}
    for p in parts:
        if p.get("stopped"):
            stopped[p["stopped"]] = stopped.get(p["stopped"], 0) + 1
    return {"calls": sum(p.get("calls", 0) for p in parts),
            "failed": sum(p.get("failed", 0) for p in parts),
            "unscored": sum(p.get("unscored", 0) for p in parts),
            "fallback_tasks": sum(1 for p in parts if p.get("fallback")),
            "stopped": dict(sorted(stopped.items()))}


def summarise(rows: Sequence[dict[str, Any]], variant: str = "paper") -> dict[str, Any]:
    """{"metrics": {key: {mean, n, n_null}}, "families": {family: aggregate}, "variant"[,
    "agent_llm"]} of `score_rows`' rows: what the engine's default `aggregate` makes of
    `summary_measures` and `summary_extras` once each metric is under its measure's key too
    (`variant_columns`, as a run's rows are)."""
    rows = [dict(r) for r in rows]
    variant_columns(rows, variant)
    return {"metrics": {m.key: measure_entry(m, rows) for m in summary_measures(rows, variant)},
            **summary_extras(rows, variant)}


def summary_measures(rows: Sequence[dict[str, Any]], variant: str = "paper"
                     ) -> tuple[Measure, ...]:
    """The measures of the rows' families under `variant` that a counted row carries (the
    judge's only where judged), each metric then its micro twin, families in name order."""
    counted = [r for r in rows if r.get("status") not in NOT_COUNTED]
    out: list[Measure] = []
    for family in sorted({r["family"] for r in rows}):
        carried = {k for r in counted if r["family"] == family for k in r}
        out += [m for key in FAMILY_METRICS[family] if key in carried
                for m in spec_measures(SPEC[key], variant)]
    return tuple(out)


def summary_extras(rows: Sequence[dict[str, Any]], variant: str = "paper") -> dict[str, Any]:
    """The summary beside its measures: `families` (each family's counts, macro / micro
    entries and judge counts), the `variant`, the judge panel's fields and `agent_llm`."""
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.judge import judge_counts
    # deferred: pulls in pyarrow
    from scholarbench.benchmarks.scinet.metrics import aggregate
    families: dict[str, Any] = {}
    for family in sorted({r["family"] for r in rows}):
        mine = [r for r in rows if r["family"] == family]
        counted = [r for r in mine if r.get("status") != "error"]
        agg = aggregate(counted)
        agg["n_tasks"] = len(mine)
        agg["missing_answers"] = sum(1 for r in mine if r.get("missing_answer"))
        agg["errors"] = len(mine) - len(counted)
        agg["unresolved_refs"] = sum(r.get("unresolved_refs", 0) for r in counted)
        if counts := judge_counts(counted):
            agg["judge"] = counts
        families[family] = agg
    out = {"families": families, "variant": variant}
    out.update(panel_fields(rows, families, variant))
    if (agent_llm := agent_llm_counts(rows)) is not None:
        out["agent_llm"] = agent_llm
    return out


def panel_fields(rows: Sequence[dict[str, Any]], families: dict[str, Any], variant: str
                 ) -> dict[str, Any]:
    """With a judge panel or repeats (rows carrying `judges`): `judge_panel` (each judge's
    mean, repeats and spread per measure), `judge_agreement` (α between the judges) and each
    family's judged metric's per-judge means beside its macro (`judges.agreement`)."""
    out = panel_summary(rows, {m: metric_key(m, variant) for m in LLM_METRICS})
    for m in LLM_METRICS:
        entry = out.get("judge_panel", {}).get(metric_key(m, variant))
        if entry is None:
            continue
        for family, agg in families.items():
            if m in agg:
                mine = panel_summary([r for r in rows if r.get("family") == family],
                                     {m: m})["judge_panel"][m]
                agg[m]["judges"] = {label: e["mean"] for label, e in mine.items()}
    return out


def format_summary(summary: dict[str, Any]) -> str:
    lines = []
    if summary.get("variant") == "upstream":
        lines.append("scoring rules: SciNet's released scripts (Evaluation/ @ ed5c76f; "
                     "docs/scinet.md)")
    for fam, agg in summary.get("families", {}).items():
        errors = f", {agg['errors']} errored (not in the means)" if agg.get("errors") else ""
        unresolved = (f", {agg['unresolved_refs']} answer items resolve to no paper of the graph"
                      if agg.get("unresolved_refs") else "")
        lines.append(f"{fam}: {agg['n_tasks']} tasks, {agg['empty_answers']} empty, "
                     f"{agg['missing_answers']} missing, {agg['not_in_graph']} ids not in graph"
                     f"{unresolved}{errors}")
        for m in METRICS + LLM_METRICS:
            if m in agg:
                e = agg[m]
                macro = "—" if e["macro"] is None else f"{e['macro']:.4f}"
                micro = f"  micro {e['micro']:.4f}" if e.get("micro") is not None else ""
                lines.append(f"  {m:24s} {macro}  (n={e['n']}, null={e['n_null']}){micro}")
        for m, c in agg.get("judge", {}).items():
            reasons = ", ".join(f"{k} {v}" for k, v in c["reasons"].items()) or "none"
            lines.append(f"  judge {m}: {c['judged']} items scored, {c['unscored']} unscored "
                         f"({reasons}), {c['tasks_null']} tasks null")
    lines += format_panel(summary)
    if (a := summary.get("agent_llm")) is not None:
        lines.append(f"agent model: {a['calls']} calls, {a['failed']} failed, {a['unscored']} "
                     f"unusable replies, {a['fallback_tasks']} tasks took a fallback")
    return "\n".join(lines)

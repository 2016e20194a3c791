"""The score stage of a DeepSynth-Eval run: each task's judgement from the checklist judge's
verdicts (the engine's judge stage asks them: `checklist.py`) and judged.jsonl (`prepare`),
every task's score (`score_row`).

scores.jsonl has one row per task, in task order: ``score deepsynth``'s row (task_id,
dse_overall, dse_general, dse_constraint — with ``(upstream=1)`` under the upstream variant —
n_correct, n_incorrect, n_not_mentioned, n_unscored) plus report_status, n_requirements,
n_judge_calls and the engine's ``status``:

- ``scored``; ``missing`` / ``malformed`` (no report, or not a report: scored as an empty
  report, every requirement not mentioned — the task scores 0 and stays in the means);
- ``unscored``: no item of the task could be scored (every judge reply unusable): its scores
  are null, excluded from the means and counted;
- ``error``: the agent failed on the task (not judged, no numbers, left out of every mean and
  count; a resumed run retries it).

Each row also carries what the summary needs of its task, so that the summary
(`summary_blocks`) is a function of the rows and the manifest alone (`scholarbench aggregate
RUN_DIR` rebuilds summary.json from scores.jsonl): ``variant``; `TaskScore.counts` (n_groups,
n_groups_undefined, n_empty_sub_groups, unscored_reasons; null on ``error`` rows); the judge
judgement's n_subgroups_judged and judge_unscored_reasons (the judge's model calls and cache
hits are the manifest's usage, `judge_record.judge_calls`: they depend on the reply cache, not
on the judgement);
``writer_info`` (the integer counts of the generate record's ``info``; null on ``error`` rows)
and ``oracle_context`` (the task's oracle source and entry counts, ``{"status": "error"}``, or
null without an oracle record).

With a judge panel or --judge-samples (`panel.py`) a row also carries ``judges`` (each
judge's Overall / General / Constraint, their unscored counts, repeats, n_correct and
n_incorrect), its score columns are the judges' means and its counts are summed over every
judge and repeat; the summary then adds ``judge_panel`` and ``judge_agreement``.

The summary's means and counts come from `scores.aggregate_rows` over the rows that are not
``error``; `summary.run_counts` adds the rest (`summary_blocks`).
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.checklist import NAME, task_line
from scholarbench.benchmarks.deepsynth.judge_record import checklist_entry
from scholarbench.benchmarks.deepsynth.leakage import leak_findings
from scholarbench.benchmarks.deepsynth.loader import parse_task
from scholarbench.benchmarks.deepsynth.oracle import OracleContext
from scholarbench.benchmarks.deepsynth.panel import panel_row, panel_status
from scholarbench.benchmarks.deepsynth.scores import TASK_METRICS, metric_key, score_task
from scholarbench.benchmarks.deepsynth.stages import (ORACLE, judged_record, line_subgroups,
                                                      report_status, write_judged)
from scholarbench.benchmarks.deepsynth.summary import sum_ints
from scholarbench.core.epochs import sample_id_of
from scholarbench.core.judge_stage import recorded
from scholarbench.errors import IncompleteRun, ScholarbenchError
from scholarbench.leakage.corpus import recorded_corpus


def judgeable(samples: Sequence[Any], generated: dict[str, dict[str, Any]]) -> list[Any]:
    """The samples the judge sees: every one but those whose agent failed."""
    return [s for s in samples if (generated.get(s.id) or {}).get("status") != "error"]


def prepare(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            ctx: Any) -> None:
    """What every task's row reads, once, into `ctx.shared`: the variant, each judged task's
    judgement (`checklist.task_line`: the verdicts the engine's judge stage gave now, else, on
    a plain re-score, those on file of the judges the manifest names) and its judged form
    (judged.jsonl, written here), the corpus of the leakage audit."""
    run = ctx.run_dir
    asked = ctx.verdicts.get(NAME)
    verdicts = asked if asked is not None else recorded(run, bench.checklist(), samples,
                                                        generated)
    entry = checklist_entry(run.read_manifest()) or {}
    labels = [str(j["label"]) for j in entry.get("judges") or []]
    repeats = int(entry.get("repeats") or 1)
    lines: dict[str, dict[str, Any]] = {}
    lacking = []
    for s in judgeable(samples, generated):
        line = None if verdicts is None else task_line(s, generated.get(s.id), verdicts,
                                                       labels, repeats)
        if line is None:
            lacking.append(s.id)
        else:
            lines[s.id] = line
    if lacking and asked is not None:
        raise IncompleteRun(f"the judge model failed on task {lacking[0]}; the run stopped — "
                            "rerun to resume")
    if lacking:
        raise ScholarbenchError(
            f"{run.path}: {len(lacking)} task(s) have no judgement by the run's judge (first: "
            f"task {lacking[0]}); run the same `scholarbench run` again to resume, or re-judge "
            f"with `scholarbench score {run.path} --with-judge --judge MODEL`")
    written = write_judged(run, samples, lines, generated)       # by sample (and epoch)
    judged = {sid: parse_task(obj, require_prompts=False)
              for sid, obj in zip([s.id for s in samples if s.id in lines], written)}
    ctx.shared.update(variant=bench._variant(), lines=lines, judged=judged,
                      corpus=audit_corpus(bench, ctx.manifest))


def score_row(sample: Any, record: dict[str, Any] | None, ctx: Any) -> dict[str, Any]:
    """One task's row (module docstring) from what `prepare` shared and the oracle record."""
    variant, line = ctx.shared["variant"], ctx.shared["lines"].get(sample.id)
    extra = {"variant": variant, **judge_counts(line), "writer_info": writer_counts(record),
             "oracle_context": oracle_task_counts(
                 (ctx.stage_records.get(ORACLE) or {}).get(sample_id_of(sample)))}
    if line is None:                                # the agent errored: no numbers
        row: dict[str, Any] = {"task_id": sample.gold.task_id}
        row.update({metric_key(k, variant): None for k in TASK_METRICS})
        row.update(n_correct=None, n_incorrect=None, n_not_mentioned=None,
                   n_unscored=None, report_status=report_status(record),
                   n_requirements=sample.gold.n_requirements, n_judge_calls=0,
                   n_groups=None, n_groups_undefined=None, n_empty_sub_groups=None,
                   unscored_reasons=None, **extra, status="error")
        return row
    if line.get("panel"):                          # a judge panel or repeats: panel.py
        fields, judges = panel_fields(sample, line, record, variant)
        status = panel_status(fields, variant)
    else:
        score = score_task(ctx.shared["judged"][sample.id], variant)  # type: ignore[arg-type]
        fields, judges, status = {**score.row(), **score.counts()}, None, score.status
    counts = {k: fields.pop(k) for k in ("n_groups", "n_groups_undefined",
                                         "n_empty_sub_groups", "unscored_reasons")}
    row = {**fields, "report_status": line["report_status"],
           "n_requirements": sample.gold.n_requirements, "n_judge_calls": line.get("calls", 0),
           **counts, **extra}
    row["status"] = (line["report_status"] if line["report_status"] in
                     ("missing", "malformed") else status)
    row.update(leak_findings(sample.gold, record, ctx.shared["corpus"]).row())  # leakage.md
    if judges is not None:
        row["judges"] = judges
    return row


def audit_corpus(bench: Any, manifest: dict[str, Any]) -> Any:
    """The corpus the leakage audit reads (docs/leakage.md): the run's open one, else on a
    re-score the one its manifest names when unchanged (`leakage.corpus`), else None."""
    if getattr(bench, "_corpus", None) is not None:
        return bench._corpus
    try:
        return recorded_corpus(manifest)
    except Exception:          # an unreadable corpus: the audit sees the answer alone
        return None


def panel_fields(sample: Any, line: dict[str, Any], record: dict[str, Any] | None,
                 variant: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A panel line's row fields and `judges`: every judge's repeats scored by the paper's
    rules, combined by `panel.panel_row`."""
    parts = {label: [score_task(parse_task(judged_record(sample.gold, {**line, **part},
                                                         record), require_prompts=False),
                                variant)  # type: ignore[arg-type]
                     for part in runs] for label, runs in line["panel"].items()}
    samples = max(len(runs) for runs in parts.values())
    fields = panel_row(parts, variant, samples)
    return fields, fields.pop("judges")


def judge_counts(line: dict[str, Any] | None) -> dict[str, Any]:
    """A task's judge line, counted (zeros for a task not judged; with a panel, over every
    judge's and repeat's sub-groups)."""
    line = line or {}
    reasons: dict[str, int] = {}
    subgroups = [sub for subs in line_subgroups(line) for sub in subs] if line else []
    for sub in subgroups:
        for reason in sub.get("reasons") or []:
            if reason:
                reasons[reason] = reasons.get(reason, 0) + 1
    return {"n_subgroups_judged": len(subgroups),
            "judge_unscored_reasons": dict(sorted(reasons.items()))}


def writer_counts(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The integer counts of a generate record's ``info`` (None for an errored record)."""
    record = record or {}
    if record.get("status") == "error":
        return None
    total: dict[str, Any] = {}
    sum_ints(total, record.get("info") or {})
    return total


def oracle_task_counts(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """A task's oracle record as counts: its source and entry counts, or its error."""
    if record is None:
        return None
    if record.get("status") == "error":
        return {"status": "error"}
    context = OracleContext.from_json(record)
    return {"source": context.source, **context.counts()}


__all__ = ["audit_corpus", "judge_counts", "judgeable", "oracle_task_counts", "panel_fields",
           "prepare", "score_row", "writer_counts"]

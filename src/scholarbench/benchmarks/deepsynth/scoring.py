"""The score stage of a DeepSynth-Eval run: judge what is not judged, write judged.jsonl, score
every task, aggregate.

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

The summary's means and counts come from `scores.aggregate` over the tasks that are not
``error``; `summary.run_counts` adds the rest.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.errors import ScholarbenchError


def score_samples(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
                  manifest: dict[str, Any], run: Any) -> tuple[list[dict[str, Any]],
                                                               dict[str, Any]]:
    from scholarbench.benchmarks.deepsynth.loader import parse_task
    from scholarbench.benchmarks.deepsynth.scores import TASK_METRICS, metric_key, score_task
    from scholarbench.benchmarks.deepsynth.stages import (ORACLE, JudgeStage, current_lines,
                                                          report_status, write_judged)
    variant = bench._variant()
    statuses = {s.id: report_status(generated.get(s.id)) for s in samples}
    judgeable = [s for s in samples if (generated.get(s.id) or {}).get("status") != "error"]
    client = bench.judge_client()
    if client is not None:
        stage = JudgeStage(client, prompt=bench._opt("judge_prompt", "checklist_judge_v1"),
                           retries=bench._opt("judge_retries", 2),
                           workers=bench.options.get("judge_workers"))
        stage.run(run, judgeable, generated, progress=bench.progress)
        identity = stage.identity
    else:
        identity = manifest.get("judge")
    lines = current_lines(run, judgeable, generated, identity)
    lacking = [s.id for s in judgeable if s.id not in lines]
    if lacking:
        raise ScholarbenchError(
            f"{run.path}: {len(lacking)} task(s) have no judgement by the run's judge (first: "
            f"task {lacking[0]}); run the same `scholarbench run` again to resume, or re-judge "
            f"with `scholarbench score {run.path} --with-judge --judge MODEL`")
    judged = {str(obj["task_id"]): parse_task(obj, require_prompts=False)
              for obj in write_judged(run, samples, lines, generated)}
    rows, scored = [], {}
    for s in samples:
        n_requirements = s.gold.n_requirements
        if s.id not in lines:                       # the agent errored: no numbers
            row: dict[str, Any] = {"task_id": s.gold.task_id}
            row.update({metric_key(k, variant): None for k in TASK_METRICS})
            row.update(n_correct=None, n_incorrect=None, n_not_mentioned=None,
                       n_unscored=None, report_status=statuses[s.id],
                       n_requirements=n_requirements, n_judge_calls=0, status="error")
            rows.append(row)
            continue
        score = score_task(judged[s.id], variant)  # type: ignore[arg-type]
        scored[s.id] = score
        line = lines[s.id]
        row = {**score.row(), "report_status": line["report_status"],
               "n_requirements": n_requirements, "n_judge_calls": line.get("calls", 0)}
        if line["report_status"] in ("missing", "malformed"):
            row["status"] = line["report_status"]
        elif score.dse_overall is None and score.tally.unscored:
            row["status"] = "unscored"
        else:
            row["status"] = "scored"
        rows.append(row)
    oracle = run.stage(ORACLE, "task_id").records if run.file(ORACLE).exists() else None
    state = {"ids": [s.id for s in samples], "statuses": statuses, "scored": scored,
             "lines": lines, "generated": generated, "oracle": oracle}
    return rows, state


def aggregate_rows(bench: Any, rows: Sequence[dict[str, Any]], manifest: dict[str, Any],
                   state: dict[str, Any]) -> dict[str, Any]:
    from scholarbench.benchmarks.deepsynth.benchmark import BASE_KEYS
    from scholarbench.benchmarks.deepsynth.scores import aggregate, metric_key
    from scholarbench.benchmarks.deepsynth.summary import run_counts
    if not state:
        raise ScholarbenchError("aggregate() follows score() in the same run")
    variant = bench._variant()
    counted = [str(r["task_id"]) for r in rows if r.get("status") != "error"]
    scores = [state["scored"][i] for i in counted if i in state["scored"]]
    summary = aggregate(scores, variant)  # type: ignore[arg-type]
    metrics = {}
    for base in BASE_KEYS:
        key = metric_key(base, variant)
        mean = summary["means"][key]
        if base == "dse_precision":      # pooled over the run's labels: defined as a whole
            n = len(scores) if mean is not None else 0
        else:
            n = len(scores) - summary["n_undefined"][key]
        metrics[key] = {"mean": mean, "n": n, "n_null": len(scores) - n}
    summary["metrics"] = metrics
    summary.update(run_counts(manifest, state["ids"], state["statuses"], state["lines"],
                              state["generated"], state["oracle"]))
    return summary


__all__ = ["aggregate_rows", "score_samples"]

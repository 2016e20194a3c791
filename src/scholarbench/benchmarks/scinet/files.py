"""`scholarbench score scinet --tasks T --answers A --out S [--with-judge]`: score an answers
file against a task file, without a run directory.

Writes `S` (one row per task of T, never skipped, by the run's scorer; `status` scored /
malformed / missing / oversized — over `--max-output`, scored as missing — with its `reason`
and `suspected_injection` flag as a run's rows) and `<S stem>.summary.json`: the summary of a
run, from the same function (`core.summarise`: `status`, `metrics` with `ci95`, `families`,
reference counts; `agent` null) plus `malformed_answers`, `unknown_task_ids` (answered tasks not
in T) and `unanswered_tasks`. With a judge (the engine's judge stage: every judge of the panel,
K times), the verdicts go to the directory `<S stem>.judge` (judge.ego.jsonl, judge.path.jsonl
and its manifest; reused when scored again with the same judges and prompts) and the judges,
their prompt versions and usage to the summary's `judge_manifest` (`judged`, `usage`,
`llm_usage`). The answers file is read as `answers.read_answer_file` says (SciNet's lines or
the family schema); its references are resolved exactly as a run resolves an agent's.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scholarbench.benchmarks.scinet.measures import K
from scholarbench.core.families import Malformed
from scholarbench.core.limits import scored_as_missing, OutputLimits
from scholarbench.errors import DataError
from scholarbench.benchmarks.scinet.benchmark import SciNet, env_settings_of
from scholarbench.benchmarks.scinet import scoring
from scholarbench.benchmarks.scinet.judged import items_for
from scholarbench.benchmarks.scinet.records import read_tasks
from scholarbench.benchmarks.scinet.run_scoring import judged_columns
from scholarbench.benchmarks.scinet.samples import make_sample
from scholarbench.core.judge_stage import judge_stage, judged_entry
from scholarbench.core.records import RUN_FORMAT
from scholarbench.core.models import Models
from scholarbench.core.rundir import RunDir
from scholarbench.core.status import reason_of
from scholarbench.core.summarise import summarise
from scholarbench.injection.detect import flag_injections
from scholarbench.benchmarks.scinet.answers import read_answer_file, record_fields


def score_scinet_files(tasks: str | Path, answers: str | Path, out: str | Path, *,
                       env: Any = None, graph_dir: str | Path | None = None,
                       unarxive_dir: str | Path | None = None, judge: Any = None,
                       judge_k: int = K, bench: Any = None, models: Any = None
                       ) -> dict[str, Any]:
    """Score `answers` against `tasks` into `out`; returns the summary. `bench` (a `SciNet`
    benchmark with its options) or the keywords say where the graph is and who judges;
    `models`: the command's models (`--judge …`), when the judge is not a client given here."""
    # deferred: pulls in pyarrow
    if bench is None:
        bench = SciNet({"graph": graph_dir, "unarxive": unarxive_dir}, env=env, judge=judge,
                       judge_k=judge_k)
    task_list = read_tasks(tasks)
    if not task_list:
        raise DataError("no tasks in the file (it is empty)", file=str(tasks))
    given = read_answer_file(answers)
    if not given:
        raise DataError("no answers in the file (it is empty)", file=str(answers))
    env = bench.env(env_settings_of(task_list))
    records: dict[str, dict[str, Any]] = {}
    limits = OutputLimits.of(bench.options)
    for task in task_list:
        if task.task_id not in given:
            continue
        if too_big := limits.violation(bench.subtasks.get(task.family, "ranking"),
                                       given[task.task_id]):
            records[task.task_id] = {"status": "oversized", "error": f"oversized: {too_big}"}
            continue
        try:
            records[task.task_id] = {"status": "ok",
                                     **record_fields(task.family, given[task.task_id], env)}
        except Malformed as exc:
            records[task.task_id] = {"status": "malformed", "error": str(exc)}
    seen = scored_as_missing(records)
    answer_of = {t.task_id: scoring.answer_of(seen.get(t.task_id)) for t in task_list}
    rows = scoring.score_rows(task_list, answer_of, seen, env, bench.variant)
    for row in rows:
        record = records.get(row.get("task_id")) or {}
        if record.get("status") == "oversized":
            row.update(status="oversized", error=record["error"])
            row.pop("missing", None)
    out = Path(out)
    judge_record: dict[str, Any] | None = None
    if bench.with_judge:
        judge_record = judge_rows(bench, task_list, seen, rows, out, models)
    scoring.variant_columns(rows, bench.variant)
    for row in rows:                      # as the engine leaves a run's rows
        if (why := reason_of(row["status"], row, records.get(row["task_id"]))) is not None:
            row["reason"] = why
    flag_injections(rows, seen, "task_id")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    summary = file_summary(bench, rows, Path(answers).name)
    if judge_record is not None:
        summary["judge_manifest"] = judge_record
    known = {t.task_id for t in task_list}
    summary["malformed_answers"] = summary["status"].get("malformed", 0)
    summary["unknown_task_ids"] = sorted(set(given) - known)
    summary["unanswered_tasks"] = sum(1 for t in task_list if t.task_id not in given)
    out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=2) + "\n",
                                                encoding="utf-8")
    return summary


def judge_rows(bench: Any, tasks: list[Any], records: dict[str, dict[str, Any]],
               rows: list[dict[str, Any]], out: Path, models: Any = None) -> dict[str, Any]:
    """The judge columns added to `rows` by the engine's judge stage (every judge of the
    panel, K times each; the ego and path items), its verdicts and manifest in the directory
    `<out stem>.judge` (reused when the file is scored again); returns that manifest's
    `judged`, `usage` and `llm_usage` (the summary's `judge_manifest`)."""
    run = RunDir(out.with_suffix(".judge"))
    if not run.exists():
        run.path.mkdir(parents=True, exist_ok=True)
        run.write_manifest({"format": RUN_FORMAT, "benchmark": bench.name, "mode": None})
    env = bench.env()
    samples = [make_sample(t, env) for t in tasks]
    models = bench.given_models(models if models is not None else Models())
    columns: dict[str, dict[str, Any]] = {}
    for item in items_for(bench, None):
        verdicts = judge_stage(run, item, samples, records, models, id_key=bench.id_key,
                               progress=False)
        entry = judged_entry(run.read_manifest(), item.name) or {}
        repeats = max(int(entry.get("repeats") or 1), int(models.judge_samples or 1))
        columns.update(judged_columns(bench, item, samples, records, verdicts, entry, repeats))
    for row in rows:
        if row.get("status") != "error":
            row.update(columns.get(row["task_id"], {}))
    manifest = run.read_manifest()
    return {k: manifest[k] for k in ("judged", "usage", "llm_usage") if k in manifest}


def file_summary(bench: Any, rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The summary of the rows of an answers file: a run's (`core.summarise`, the one
    aggregation of `run`, `score` and `aggregate`), every task family at once (no sub-task),
    the answers file as the run's name and no agent."""
    manifest = {"benchmark": bench.name, "mode": None, "agent": "answers file",
                "run_name": name, "options": dict(bench.options)}
    summary = summarise(bench, rows, manifest)
    summary["agent"] = None               # an answers file has no agent
    return summary

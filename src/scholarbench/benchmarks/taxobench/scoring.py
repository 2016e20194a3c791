"""TaxoBench scoring: every measure per gold instance (never skipping one), the LLM judge when
asked, the summary's measures and blocks, and `score taxobench --gold --pred --out` on files."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.taxobench.judge import (JUDGE_KEYS, NOT_JUDGED, JudgeResult,
                                                     as_judge, format_judge_summary)
from scholarbench.benchmarks.taxobench.leakage import leak_findings
from scholarbench.benchmarks.taxobench.panel import TaxoPanel
from scholarbench.benchmarks.taxobench.measures import (JUDGE_MEASURES, MEASURES, METRICS,
                                                        score_instance)
from scholarbench.core.measure import NOT_COUNTED, Measure
from scholarbench.core.usage import usage_snapshot
from scholarbench.metrics.judge_panel import format_panel
from scholarbench.records import TaxoPrediction

JUDGE = "judge.jsonl"


def predictions(generated: dict[str, dict[str, Any]]) -> dict[str, TaxoPrediction | None]:
    """Predictions by id; None for a sample without one (the agent failed or gave nothing)."""
    from scholarbench.data.taxobench import parse_prediction
    preds: dict[str, TaxoPrediction | None] = {}
    for sid, record in generated.items():
        raw = record.get("prediction")
        if raw is None or record.get("status") == "error":
            preds[sid] = None
            continue
        if not isinstance(raw, dict):      # a hand-edited or foreign line: malformed, counted
            pred = TaxoPrediction(str(sid), None, error="prediction: expected a JSON object, "
                                  f"got {type(raw).__name__}")
            preds[sid] = pred
            continue
        pred = parse_prediction(raw)
        if record.get("error"):
            pred.error = record["error"]
        preds[sid] = pred
    return preds


MEASURED, JUDGED, PREDICTIONS = "taxobench.measured", "taxobench.judged", "taxobench.preds"


def prepare(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            run: Any) -> dict[str, Any]:
    """The run-wide part of scoring (`Benchmark.prepare_scoring`): every sample's measures
    (`score_instance`, one encoder over the run, whose cache counts go into the manifest as
    `embedding_cache`) and, judged, its judge columns; what `score_row` reads, as
    `ctx.shared` entries. The judge's description goes into the manifest (`judge`).

    With `--with-judge` the judge role (a ChatClient or a `TaxoBenchJudge`) judges each sample;
    a missing or malformed prediction is not sent to it. Judge calls run concurrently with the
    measures (up to the client's concurrency; one at a time for the local model) and are
    answered from the reply cache when a run is re-scored. With several judges or
    `--judge-samples K` every judge judges every sample K times and the columns are the
    panel's (`panel.py`)."""
    embedder = bench.embedder
    preds = predictions(generated)
    panel = _panel(bench) if bench.options.get("with_judge") else None
    before = [usage_snapshot(j.client) for j in panel.judges] if panel is not None else None
    pending = _start_judging(panel, samples, preds) if panel is not None else None
    measured: dict[str, dict[str, Any]] = {}
    columns: dict[str, dict[str, Any]] = {}
    judged: list[dict[str, Any]] = []
    try:
        for sample in samples:
            pred = preds.get(sample.id)
            row = score_instance(sample.gold, pred, embedder)
            if sample.task.subtask == "deep-research":    # flagged, not changed (leakage.md)
                row.update(leak_findings(sample.task.native, pred).row())
            measured[sample.id] = row
            if pending is not None:
                columns[sample.id] = {}
                judged += _judge_columns(panel, columns[sample.id], sample.id,
                                         pending.get(sample.id))
    finally:
        if pending is not None:
            for futures in pending.values():
                for future in (f for runs in futures.values() for f in runs):
                    future.cancel()      # only matters when scoring stopped on an error
            _finish_judging(run, panel, before)
    if panel is not None:
        run.write_jsonl(JUDGE, judged)
    else:
        _forget_judge(run)
    stats = getattr(embedder, "stats", None)
    if stats is not None:
        manifest = run.read_manifest()
        manifest["embedding_cache"] = stats.as_dict()
        run.write_manifest(manifest)
    return {PREDICTIONS: preds, MEASURED: measured, JUDGED: columns}


def score_row(sample: Any, record: dict[str, Any] | None, shared: dict[str, Any]
              ) -> dict[str, Any]:
    """One sample's row (never skipped): its measures, judged also the judge keys, the agent's
    whole-number counts (`agent_info`), `missing` / `malformed` flags and its status."""
    record = record or {}
    row = {"id": sample.id, **shared[MEASURED][sample.id], **shared[JUDGED].get(sample.id, {})}
    if shared[PREDICTIONS].get(sample.id) is None and record.get("error"):
        row["error"] = record["error"]
    if counts := info_counts(record):
        row["agent_info"] = counts       # summed into the summary's agent_info
    if record.get("missing"):
        row["missing"] = True
    elif record.get("status") == "malformed":    # an answer that did not parse: not
        row.update(missing=False, malformed=True)  # missing (core.status)
    row["status"] = row_status(row)
    return row


def row_status(row: dict[str, Any]) -> str:
    return "missing" if row.get("missing") else "malformed" if row.get("malformed") else "scored"


def _panel(bench: Any) -> TaxoPanel:
    """The judge role's judges (a panel when several were given), each asked
    `--judge-samples` times."""
    judges = getattr(bench.models, "judges", None)
    clients = judges() if judges is not None else [bench.models.judge()]
    return TaxoPanel([as_judge(c) for c in clients],
                     int(getattr(bench.models, "judge_samples", 1) or 1))


def _start_judging(panel: TaxoPanel, samples: Sequence[Any],
                   preds: dict[str, TaxoPrediction | None]) -> dict[str, Any]:
    """Every judgeable sample (a prediction that parsed) to every judge, every repeat."""
    jobs = {}
    for sample in samples:
        pred = preds.get(sample.id)
        if pred is not None and pred.taxonomy is not None and not pred.error:
            jobs[sample.id] = (sample.gold, pred.taxonomy)
    return panel.start(jobs, _judge_safely)


def _judge_safely(judge: Any, gold: Any, taxonomy: Any, sample: int = 0) -> JudgeResult:
    """Bad model output is already "unscored" inside the judge; this catches anything else
    (e.g. a reply nested too deeply to parse) so one sample can never stop the scoring."""
    try:
        return judge.judge(gold, taxonomy, sample=sample) if sample else \
            judge.judge(gold, taxonomy)
    except Exception as exc:
        return JudgeResult(unscored=f"judge raised {type(exc).__name__}: {exc}"[:500],
                           attempts=1, prompt=judge.prompt)


def _judge_columns(panel: TaxoPanel, row: dict[str, Any], task_id: str,
                   futures: dict[str, list[Any]] | None) -> list[dict[str, Any]]:
    """Add the judge columns to `row`; returns the sample's judge.jsonl records (one; with a
    panel or repeats one per judge and repeat, naming them)."""
    if futures is None:                     # nothing to judge: a missing or malformed answer
        row.update(NOT_JUDGED.row())
        return [_judge_record(task_id, NOT_JUDGED)] if panel.single else []
    results = {label: [f.result() for f in runs] for label, runs in futures.items()}
    if panel.single:
        result = results[panel.labels[0]][0]
        row.update(result.row())
        return [_judge_record(task_id, result)]
    row.update(panel.row(results))
    return [{**_judge_record(task_id, result), "judge": label, "sample": r}
            for label, runs in results.items() for r, result in enumerate(runs)]


def _judge_record(task_id: str, result: JudgeResult) -> dict[str, Any]:
    return {"id": task_id, "judged": result.attempts > 0, "scores": result.scores,
            "judge_avg": result.avg, "unscored": result.unscored, "attempts": result.attempts,
            "reasoning": result.reasoning, "prompt": result.prompt}


def _finish_judging(run: Any, panel: TaxoPanel, before: list[Any]) -> None:
    """Record the judge model(s), the prompt version (and, with a panel or repeats, every
    judge's model id, temperature and seeds) and this scoring's usage per judge."""
    from scholarbench.core.engine import add_stage_usage
    from scholarbench.metrics.judge_panel import judge_roles, panel_models
    manifest = run.read_manifest()
    if panel.single:
        client = panel.judges[0].client
        if hasattr(client, "config"):
            manifest.setdefault("models", {})["judge"] = {**client.config.public(),
                                                          "model_id": client.model_id}
        manifest["judge"] = panel.judges[0].info()
    else:
        manifest.setdefault("models", {}).update(panel_models(panel))
        manifest["judge"] = panel.identity()
    run.write_manifest(manifest)
    for role, judge, b in zip(judge_roles(panel), panel.judges, before):
        if hasattr(judge.client, "usage"):
            add_stage_usage(run, "judge", role, judge.client, b)


def _forget_judge(run: Any) -> None:
    """Re-scored without a judge: the judge's files and manifest entries no longer describe the
    scores (its usage stays in llm_usage, which counts every invocation)."""
    run.file(JUDGE).unlink(missing_ok=True)
    manifest = run.read_manifest()
    models = manifest.get("models") or {}
    if "judge" in manifest or "judge" in models:
        manifest.pop("judge", None)
        models.pop("judge", None)
        run.write_manifest(manifest)


def info_counts(record: dict[str, Any]) -> dict[str, int]:
    """An agent's whole-number counts of one sample (generate.jsonl "info")."""
    info = record.get("info")
    if not isinstance(info, dict):
        return {}
    return {k: v for k, v in info.items() if isinstance(v, int) and not isinstance(v, bool)}


def sum_info(rows: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The rows' `agent_info` counts, summed over every sample."""
    total: dict[str, int] = {}
    for row in rows:
        for key, value in (row.get("agent_info") or {}).items():
            total[key] = total.get(key, 0) + value
    return total


def judged(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether the rows' run was judged: every counted row carries the judge's columns."""
    counted = [r for r in rows if r.get("status") not in NOT_COUNTED]
    return bool(counted) and all("judge_avg" in r for r in counted)


def summary_measures(rows: Sequence[dict[str, Any]]) -> tuple[Measure, ...]:
    """Every measure; the judge's only in a judged run's summary."""
    return MEASURES + JUDGE_MEASURES if judged(rows) else MEASURES


def summary_extras(rows: Sequence[dict[str, Any]], manifest: dict[str, Any]) -> dict[str, Any]:
    """The summary beside its measures: missing and malformed counts, the agents' summed
    counts, the judge's description as the manifest records it and, with a judge panel or
    repeats, the panel's agreement. A function of the rows and the manifest alone."""
    panel: dict[str, Any] = {}
    if judged(rows):
        from scholarbench.metrics.agreement import panel_summary
        counted = [r for r in rows if r.get("status") not in NOT_COUNTED]
        panel = panel_summary(counted, {k: k for k in JUDGE_KEYS})   # a panel or repeats
    return {"n_missing": sum(1 for r in rows if r.get("missing")),
            "n_malformed": sum(1 for r in rows if r.get("malformed")),
            "agent_info": sum_info(rows),
            **({"judge": manifest["judge"]} if manifest.get("judge") is not None else {}),
            **panel}


def format_summary(summary: dict[str, Any]) -> str:
    from scholarbench.core.benchmark import summary_line
    lines = [f"{summary.get('run_name') or summary['agent']}: {summary['n_samples']} samples, "
             f"{summary['n_missing']} missing, {summary['n_malformed']} malformed"
             + (f", {n} oversized" if (n := summary.get("n_oversized") or
                                         (summary.get("status") or {}).get("oversized"))
                else "")]
    if summary.get("complete") is False:
        lines[0] = summary_line(summary)
    for info in METRICS:
        m = summary["metrics"][info.key]
        value = "—" if m["mean"] is None else (f"{100 * m['mean']:.2f}%" if info.percent
                                              else f"{m['mean']:.4f}")
        null = f"  ({m['n_null']} undefined, excluded)" if m["n_null"] else ""
        lines.append(f"  {info.key:<14} {value:>10}{null}")
    if judge_lines := format_judge_summary(summary):
        lines.append(judge_lines)
    lines += format_panel(summary)
    return "\n".join(lines)


def score_files(gold: Path, pred: Path, out: Path, embedder: Any,
                on_problem: Callable[[str], None] = print, limits: Any = None
                ) -> dict[str, Any]:
    """`score taxobench --gold --pred --out`: one line per gold instance, never skipping one;
    a prediction over `limits` is scored as an empty one with status `oversized`. The summary
    is a run's (`core.summarise`: status counts, every measure's interval), computed from the
    rows written to `out` and a manifest naming the prediction file."""
    from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
    from scholarbench.core.rundir import atomic_write_jsonl
    from scholarbench.core.status import reason_of
    from scholarbench.core.summarise import summarise
    from scholarbench.data.taxobench import load_instances, load_predictions
    from scholarbench.errors import DataError
    tasks = load_instances(gold)
    if not tasks:
        raise DataError("no TaxoBench instances in the file", file=str(gold))
    loaded = load_predictions(pred, limits)
    for problem in loaded.problems:
        on_problem(f"skipped agent output: {problem}")
    gold_ids = {t.id for t in tasks}
    for extra in sorted(set(loaded.by_id) - gold_ids):
        on_problem(f"prediction id {extra!r} has no gold instance; ignored")
    rows = []
    for t in tasks:
        row = {"id": t.id, **score_instance(t.gold, loaded.by_id.get(t.id), embedder)}
        row.update(leak_findings(t, loaded.by_id.get(t.id)).row())
        if t.id in loaded.oversized:
            row.update(status="oversized", malformed=False)
        else:
            row["status"] = row_status(row)
        if (why := reason_of(row["status"], row, None)) is not None:
            row["reason"] = why           # scores.jsonl explains itself, as a run's does
        rows.append(row)
    atomic_write_jsonl(out, rows)
    summary = summarise(TaxoBench(embedder=embedder), rows, files_manifest(pred))
    summary["n_oversized"] = sum(1 for r in rows if r["status"] == "oversized")
    summary["n_unreadable_prediction_lines"] = len(loaded.problems)
    return summary


def files_manifest(pred: Path) -> dict[str, Any]:
    """What `score taxobench` on files was, as a run's manifest would say it."""
    return {"benchmark": "taxobench", "mode": "files", "agent": pred.stem,
            "run_name": pred.stem}


__all__ = ["files_manifest", "format_summary", "judged", "predictions", "prepare", "score_files",
           "score_row", "summary_extras", "summary_measures"]

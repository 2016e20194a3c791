"""TaxoBench scoring: every measure per gold instance (never skipping one), the LLM judge's
columns from the engine's verdicts when judged, the summary's measures and blocks, and
`score taxobench --gold --pred --out` on files."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from scholarbench.benchmarks.taxobench.benchmark import TaxoBench
from scholarbench.benchmarks.taxobench.judge import JUDGE_KEYS, format_judge_summary
from scholarbench.benchmarks.taxobench.judged import ITEM
from scholarbench.benchmarks.taxobench.leakage import leak_findings
from scholarbench.benchmarks.taxobench.measures import (JUDGE_MEASURES, MEASURES, METRICS,
                                                        score_instance)
from scholarbench.benchmarks.taxobench.panel import judge_columns
from scholarbench.benchmarks.taxobench.predictions import predictions
from scholarbench.core.benchmark import summary_line
from scholarbench.core.judge_stage import (judge_model_id, judge_seeds, judged_entry,
                                           recorded_judges)
from scholarbench.core.measure import NOT_COUNTED, Measure
from scholarbench.core.rundir import atomic_write_jsonl
from scholarbench.core.status import reason_of
from scholarbench.core.summarise import summarise
from scholarbench.data.taxobench import load_instances, load_predictions
from scholarbench.errors import DataError
from scholarbench.metrics.agreement import panel_summary
from scholarbench.metrics.judge_panel import format_panel

MEASURED, JUDGED, PREDICTIONS = "taxobench.measured", "taxobench.judged", "taxobench.preds"


def prepare(bench: Any, samples: Sequence[Any], generated: dict[str, dict[str, Any]],
            ctx: Any) -> dict[str, Any]:
    """The run-wide part of scoring (`Benchmark.prepare_scoring`): every sample's measures
    (`score_instance`, one encoder over the run, whose cache counts go into the manifest as
    `embedding_cache`) and, judged (`--with-judge`: the engine's judge stage asked every
    judge, `judged.py`), its judge columns from the verdicts (`panel.judge_columns`); what
    `score_row` reads, as `ctx.shared` entries."""
    embedder = bench.embedder
    preds = predictions(generated)
    verdicts = ctx.verdicts.get(ITEM)
    measured: dict[str, dict[str, Any]] = {}
    columns: dict[str, dict[str, Any]] = {}
    for sample in samples:
        pred = preds.get(sample.id)
        row = score_instance(sample.gold, pred, embedder)
        if sample.task.subtask == "deep-research":    # flagged, not changed (leakage.md)
            row.update(leak_findings(sample.task.native, pred).row())
        measured[sample.id] = row
        if verdicts is not None:
            columns[sample.id] = judge_columns(verdicts, sample.id)
    stats = getattr(embedder, "stats", None)
    if stats is not None:
        manifest = ctx.run_dir.read_manifest()
        manifest["embedding_cache"] = stats.as_dict()
        ctx.run_dir.write_manifest(manifest)
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
    judge = judge_block(manifest) if judged(rows) else None
    if judged(rows):
        counted = [r for r in rows if r.get("status") not in NOT_COUNTED]
        panel = panel_summary(counted, {k: k for k in JUDGE_KEYS})   # a panel or repeats
    return {"n_missing": sum(1 for r in rows if r.get("missing")),
            "n_malformed": sum(1 for r in rows if r.get("malformed")),
            "agent_info": sum_info(rows),
            **({"judge": judge} if judge is not None else {}),
            **panel}


def judge_block(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The summary's `judge`: the prompt version, the (first) judge's model and model id, the
    repeats and, with a panel or repeats, every judge's label, model id, temperature and seeds
    — from the manifest's `judged.judge` (the engine's record of this scoring's judges), or
    as a run judged before the engine's stage recorded it (its manifest's `judge`)."""
    entry = judged_entry(manifest, ITEM)
    if entry is None:
        return manifest.get("judge")
    judges = recorded_judges(entry)
    repeats = entry.get("repeats") or 1
    first = judges[0] if judges else {}
    block: dict[str, Any] = {"prompt": entry.get("prompt"), "model": first.get("model"),
                             "model_id": judge_model_id(first), "samples": repeats}
    if len(judges) > 1 or repeats > 1:
        block["panel"] = [{"label": j.get("label"), "model_id": judge_model_id(j),
                           "temperature": j.get("temperature"),
                           "seeds": judge_seeds(j, repeats)} for j in judges]
    return block


def format_summary(summary: dict[str, Any]) -> str:
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

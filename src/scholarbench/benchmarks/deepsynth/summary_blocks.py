"""DeepSynth-Eval's summary beside `metrics`, from the score rows and the manifest alone
(`Benchmark.summary_extras`; `scholarbench aggregate RUN_DIR` rebuilds it from scores.jsonl).

The rows are scored under one variant (`row_variant`): the summary's measures are that
variant's (`summary_measures`: the benchmark's `measures` for the rows; the engine computes
their `metrics` entries), and its other blocks — `scores.aggregate_rows`' means and counts over the rows that are not ``error``, the
judge panel's blocks (`panel_summary_of`) and the run's counts (`summary.run_counts`) — come
from `summary_extras`.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.benchmarks.deepsynth.measures import TASK_KEYS, measures_for
from scholarbench.benchmarks.deepsynth.panel import precision_by_judge
from scholarbench.benchmarks.deepsynth.scores import aggregate_rows, metric_key
from scholarbench.benchmarks.deepsynth.summary import run_counts
from scholarbench.core.columns import where
from scholarbench.errors import ScholarbenchError
from scholarbench.metrics.agreement import panel_summary


def row_variant(bench: Any, rows: Sequence[dict[str, Any]]) -> str:
    """The variant the rows were scored under (a re-score may change it: `api.score_run`),
    else the options'."""
    recorded = {r.get("variant") for r in rows} - {None}
    if len(recorded) > 1:
        raise ScholarbenchError(f"score rows of two scoring variants: {sorted(recorded)}")
    return recorded.pop() if recorded else bench._variant()


def summary_measures(bench: Any, rows: Sequence[dict[str, Any]]) -> tuple[Any, ...]:
    """The four measures of the rows' variant (both variants are declared: `measures`)."""
    return measures_for(row_variant(bench, rows))


def panel_summary_of(rows: Sequence[dict[str, Any]], variant: str) -> dict[str, Any]:
    """With a judge panel or repeats (rows carrying `judges`): `judge_panel` (each judge's
    mean, repeats and spread of Overall / General / Constraint, and its pooled Precision) and
    `judge_agreement` (α between the judges on each per-task measure; none for the pooled
    Precision: one value per judge); {} otherwise."""
    out = panel_summary(rows, {metric_key(b, variant): metric_key(b, variant)
                               for b in TASK_KEYS})
    if out:
        out["judge_panel"][metric_key("dse_precision", variant)] = \
            precision_by_judge(rows, variant)
    return out


def summary_extras(bench: Any, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
                   ) -> dict[str, Any]:
    """Every block of the summary but `metrics` (module docstring)."""
    variant = row_variant(bench, rows)
    counted = where(rows, _not_error)        # a column subset of a run's score rows
    out = aggregate_rows(counted, variant)  # type: ignore[arg-type]
    out.update(panel_summary_of(counted, variant))
    if not isinstance(manifest.get("judged"), str):   # a judged file (`score deepsynth
                                                      # --judged`, its path) is no run
        out.update(run_counts(manifest, rows))
    return out


def _not_error(row: dict[str, Any]) -> bool:
    return row.get("status") != "error"


__all__ = ["panel_summary_of", "row_variant", "summary_extras", "summary_measures"]

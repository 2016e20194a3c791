"""The benchmark's part of a run's summary — `metrics` and its own blocks — from the score
rows and the manifest alone (no state kept from scoring, no data read), so `scholarbench
aggregate` rebuilds it from scores.jsonl (`core.summarise`).

`metrics` holds one entry per measure of `Benchmark.measures` for the rows, each by its own
aggregator and counting rule (`measure_entry`); a benchmark that declares no measures gets
plain means of its headline keys (`mean_metrics`). A measure a row lacks (declared after the
row was scored) is undefined on it, never an error.
"""
from __future__ import annotations

from typing import Any, Sequence

from scholarbench.core.benchmark import Benchmark, summary_measures
from scholarbench.core.columns import ScoreRows


def aggregate(bench: Benchmark, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
              ) -> dict[str, Any]:
    """{"metrics": {key: {"mean", "n", "n_null"}}, …the benchmark's `summary_extras`}: each
    measure of `Benchmark.measures` for these rows (none when the benchmark declares measures
    but these rows carry none of them), else plain means of the headline keys."""
    rows = ScoreRows.of(rows)
    return {"metrics": metrics(bench, rows, manifest), **bench.summary_extras(rows, manifest)}


def metrics(bench: Benchmark, rows: Sequence[dict[str, Any]], manifest: dict[str, Any]
            ) -> dict[str, Any]:
    """The `metrics` block of `aggregate` alone (the benchmark's other blocks not computed)."""
    rows = ScoreRows.of(rows)
    mode = manifest.get("mode")
    declared = summary_measures(bench, mode, rows)
    if declared or bench.measures(mode):
        return {m.key: measure_entry(m, rows) for m in declared}
    return mean_metrics(rows, bench.headline.get(mode or "", ()))


def mean_metrics(rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> dict[str, Any]:
    """Means over the rows that are not unscorable; null values excluded and counted."""
    counted = [r for r in rows if r.get("status") not in ("unscorable", "error")]
    out = {}
    for key in keys:
        values = [r[key] for r in counted if r.get(key) is not None]
        out[key] = {"mean": sum(values) / len(values) if values else None, "n": len(values),
                    "n_null": len(counted) - len(values)}
    return out


def measure_entry(measure: Any, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """{"mean", "n", "n_null"} of a `core.measure.Measure` over the rows that count (not
    errored, not unscorable): a per-sample mean counts its defined values; a pooled aggregate
    counts every row it pooled (n_null: rows left out by the aggregator's own rule: none);
    a measure with its own `counts` rule counts by it; a measure with an `unscored_key` also
    counts the rows its judge failed on (n_unscored)."""
    import numpy as np      # deferred: `run --help` must not import numpy
    rows = ScoreRows.of(rows)
    counted = rows.counted()
    mean = measure.value(rows)
    if measure.counts is not None:
        n, n_null = measure.counts(counted)
    else:
        n = int(np.count_nonzero(~np.isnan(counted.numbers(measure.key)))) \
            if measure.aggregator is None else len(counted) if mean is not None else 0
        n_null = len(counted) - n
    entry = {"mean": mean, "n": n, "n_null": n_null}
    if measure.unscored_key is not None:
        entry["n_unscored"] = int(np.count_nonzero(counted.truthy(measure.unscored_key)))
    return entry


__all__ = ["aggregate", "mean_metrics", "measure_entry", "metrics"]

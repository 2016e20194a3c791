"""A run's summary from its score rows alone — the one aggregation of `run`, `score` and
`aggregate`.

The rows are what scores.jsonl holds: each carries its sample's one status, the reason for any
status but `scored`, its measure values and counts (`unresolved`, `n_refs`,
`suspected_injection`). From them and the manifest (what the run was: benchmark, sub-task,
agent, options) this module computes the status counts, the benchmark's measures
(`core.summary_metrics.aggregate`, from the benchmark's declared measures, which must read nothing but the rows and the manifest), each measure's
95% confidence interval (`core.measure`), the unresolved-reference counts and the means without
the rows flagged for text aimed at a judge. No agent, judge, data directory or corpus is read,
so `scholarbench aggregate RUN_DIR` rebuilds summary.json byte for byte.
"""
from __future__ import annotations

import io
import math
from typing import Any, Sequence

from scholarbench.core import refs
from scholarbench.core.benchmark import Benchmark
from scholarbench.core.columns import ScoreRows
from scholarbench.core.cost import run_cost
from scholarbench.core.epochs import EPOCHS_KEY, clusters, epochs_of, per_sample, spread
from scholarbench.core.judging import FAILURES_KEY, failed_calls
from scholarbench.core.measure import CI_METHOD, CI_RESAMPLES, CI_SEED, Measure, intervals
from scholarbench.core.records import Summary
from scholarbench.core.status import count_samples
from scholarbench.core.summary_metrics import aggregate, metrics as metrics_block
from scholarbench.injection.unflagged import without_flagged
from scholarbench.leakage.unleaked import count_leaked, without_leaked

SUMMARY_VERSION = 2
CI_METHOD_EPOCHS = (f"percentile bootstrap over samples, each with all its epochs (cluster "
                    f"bootstrap of the per-sample means), {CI_RESAMPLES} resamples, seed {CI_SEED}")


def summarise(bench: Benchmark, rows: Sequence[dict[str, Any]], manifest: dict[str, Any],
              *, warn: bool = True) -> dict[str, Any]:
    """summary.json of a run whose scores.jsonl holds `rows` (statuses already decided)."""
    rows = ScoreRows.of(rows)         # each column the summary reads, built once
    counts = count_samples(rows, {}, bench.id_key)
    errors = counts.get("error") or 0
    summary = Summary(benchmark=bench.name, mode=manifest.get("mode"), agent=manifest["agent"],
                      run_name=manifest.get("run_name"), n_samples=len(rows),
                      status=counts.status_dict(),
                      complete=not errors and not failed_calls(manifest)
                      ).model_dump(mode="json")
    if manifest.get(FAILURES_KEY):          # judges whose calls failed: core.judging
        summary[FAILURES_KEY] = manifest[FAILURES_KEY]
    k = epochs_of(manifest)
    samples = ScoreRows.of(per_sample(rows, bench.id_key)) if k > 1 else rows   # core.epochs
    summary.update(aggregate(bench, samples, manifest))
    name = " ".join(filter(None, (bench.name, manifest.get("mode"))))
    effect = getattr(bench, "unresolved_effect", "scored as misses")
    summary.update(refs.summarise(rows, name, None if warn else io.StringIO(), effect))
    summary["n_suspected_injection"] = int(rows.truthy("suspected_injection").sum())
    add_intervals(bench, summary, samples, manifest)
    if k > 1:
        add_epochs(bench, summary, rows, manifest, k)

    def metrics_of(kept: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return metrics_block(bench, per_sample(kept, bench.id_key) if k > 1 else kept, manifest)
    if (unflagged := without_flagged(bench, metrics_of, rows, summary)) is not None:
        summary["without_flagged"] = unflagged
    summary["n_suspected_leak"] = count_leaked(rows)     # docs/leakage.md
    if (unleaked := without_leaked(metrics_of, rows, summary)) is not None:
        summary["without_leaked"] = unleaked
    if (cost := run_cost(manifest, len(rows))) is not None:     # docs/cost.md
        summary["cost"] = cost
    summary["summary_version"] = SUMMARY_VERSION
    return summary




def add_epochs(bench: Benchmark, summary: dict[str, Any], rows: Sequence[dict[str, Any]],
               manifest: dict[str, Any], k: int) -> None:
    """A run of K > 1 epochs (`core.epochs`): the interval's method says it resamples samples
    with all their epochs; `epochs` holds K, the seeds, the samples and each measure's spread
    across epochs."""
    summary["ci_method"] = CI_METHOD_EPOCHS
    keys = list((summary.get("metrics") or {}).keys())
    block = manifest.get(EPOCHS_KEY) or {}
    summary[EPOCHS_KEY] = {
        "k": k, "seeds": block.get("seeds"),
        "n_samples": len(clusters(rows, bench.id_key)),
        "spread": spread(rows, bench.id_key, keys,
                         lambda part: {key: entry.get("mean") for key, entry in
                                       metrics_block(bench, part, manifest).items()
                                       if isinstance(entry, dict)})}


def measures_by_key(bench: Benchmark, subtask: str | None) -> dict[str, Measure]:
    return {m.key: m for m in bench.measures(subtask)}


def add_intervals(bench: Benchmark, summary: dict[str, Any], rows: Sequence[dict[str, Any]],
                  manifest: dict[str, Any]) -> None:
    """Each summary measure's `ci95` ([low, high] or None) and the method, in place.

    A measure the benchmark declares is resampled with its own aggregator. A summary key it
    does not declare gets the bootstrap of the plain mean only when that mean is the summary's
    value (else the key is not a per-sample mean and gets no interval rather than a wrong one).
    """
    declared = measures_by_key(bench, manifest.get("mode"))
    metrics = summary.get("metrics")
    if not isinstance(metrics, dict):
        return
    due: dict[str, Measure] = {}
    for key, entry in metrics.items():
        if not isinstance(entry, dict):
            continue
        measure = declared.get(key) or Measure(bench.name, key) if _parses(key) else None
        entry["ci95"] = None
        if measure is not None and entry.get("mean") is not None:
            if key in declared or _same(measure.value(rows), entry.get("mean")):
                due[key] = measure
    for key, ci in zip(due, intervals(list(due.values()), rows)):   # one draw per row count
        metrics[key]["ci95"] = ci
    summary["ci_method"] = CI_METHOD


def _parses(key: str) -> bool:
    try:
        Measure("x", key)
    except ValueError:
        return False
    return True


def _same(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
        math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)


__all__ = ["SUMMARY_VERSION", "add_intervals", "measures_by_key", "summarise"]

"""Intervals at the cost of their arithmetic (issue 37): the seeded percentile bootstrap drawn in
bounded batches gives the same numbers as one 2,000 × n draw, and a pooled measure's interval
over resampled count columns (`core.pooled`) equals re-running the old per-resample Python
aggregator. tests/data/runs-intervals holds runs whose summary.json (with every `ci95`) was
written by the code before this change (bench/_synthetic_runs.py, 150 rows each, seed 37)."""
from __future__ import annotations

import argparse
import math
import random
import warnings
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pytest
from scipy.stats import bootstrap

from scholarbench.benchmarks.deepsynth.measures import measures_for
from scholarbench.benchmarks.deepsynth.panel import precision_by_judge
from scholarbench.benchmarks.reportbench.measures import BY_KEY as REPORTBENCH
from scholarbench.benchmarks.scinet.measures import measures_of
from scholarbench.core import measure as measure_module
from scholarbench.core.aggregate import cmd_aggregate
from scholarbench.core.measure import (CI_LEVEL, CI_RESAMPLES, CI_SEED, Measure, batch_size,
                                       interval, is_number)
from scholarbench.core.pooled import ratio

DATA = Path(__file__).parent / "data"
STORED = sorted(p for d in ("runs-intervals", "runs-format-2") for p in (DATA / d).iterdir()
                if (p / "summary.json").is_file())
Row = dict[str, Any]


def _check(run_dir: Path) -> int:
    return cmd_aggregate(argparse.Namespace(run_dir=str(run_dir), check=True))


@pytest.mark.parametrize("run_dir", STORED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_stored_summary_and_interval_reproduces(run_dir, capsys):
    assert _check(run_dir) == 0, capsys.readouterr().err


@pytest.mark.parametrize("run_dir", [p for p in STORED if p.parent.name == "runs-intervals"],
                         ids=lambda p: p.name)
def test_batches_of_a_few_resamples_give_the_same_intervals(run_dir, monkeypatch, capsys):
    monkeypatch.setattr(measure_module, "CI_BATCH_BYTES", 8 * 150 * 2 * 7)   # ~7 per batch
    assert batch_size(150, 2) == 7
    assert _check(run_dir) == 0, capsys.readouterr().err


def test_the_batch_bounds_the_indices_whatever_n():
    assert batch_size(10, 1) == CI_RESAMPLES
    assert 8 * 100_000 * batch_size(100_000, 1) <= measure_module.CI_BATCH_BYTES
    assert batch_size(10**9, 3) == 1


def test_a_hand_computed_interval():
    """Four samples 0, 0, 1, 1: a resample's mean is k/4 with k ~ Binomial(4, 1/2), so
    P(mean = 0) = P(mean = 1) = 1/16 > 2.5%: the interval is [0, 1] — for the mean and for the
    pooled ratio of the same counts."""
    rows = [{"x": v, "hit": v, "n": 1, "status": "scored"} for v in (0, 0, 1, 1)]
    assert interval(Measure("t", "x"), rows) == [0.0, 1.0]
    pooled = Measure("t", "x_micro", pooled=ratio(("hit",), ("n",)))
    assert pooled.value(rows) == 0.5
    assert interval(pooled, rows) == [0.0, 1.0]
    assert interval(pooled, rows[:1]) is None                 # fewer than two rows


# -- the old path, kept here as the reference: each resample a list of rows, the aggregator
# -- re-run in Python (core/measure.py before issue 37)

def _old_interval(aggregator: Callable[[Sequence[Row]], float | None], rows: Sequence[Row],
                  defined_on: Callable[[Row], bool] | None) -> list[float] | None:
    counted = [r for r in rows if r.get("status") not in ("error", "unscorable")]
    if defined_on is not None:
        counted = [r for r in counted if defined_on(r)]
    if sum(1 for r in counted if any(is_number(v) for v in r.values())) < 2:
        return None

    def statistic(idx: Any, axis: int = -1) -> Any:
        value = aggregator([counted[int(i)] for i in idx])
        return np.nan if value is None else float(value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bootstrap((np.arange(len(counted)),), statistic, n_resamples=CI_RESAMPLES,
                           confidence_level=CI_LEVEL, method="percentile", vectorized=False,
                           rng=np.random.default_rng(CI_SEED))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return [round(low, 12), round(high, 12)]


def _old_reportbench(key: str) -> Callable[[Sequence[Row]], float | None]:
    refs = {"ref_precision_micro": ("n_matched", "ref_count"),
            "ref_recall_micro": ("n_gt_matched", "n_gt")}
    if key in refs:
        num, den = refs[key]

        def pooled_ratio(rows: Sequence[Row]) -> float:
            kept = [r for r in rows if r.get("status") not in ("error", "unscored", "unscorable")]
            d = sum(r.get(den, 0) or 0 for r in kept)
            return sum(r.get(num, 0) or 0 for r in kept) / d if d else 0.0
        return pooled_ratio

    def statement(rows: Sequence[Row]) -> float | None:
        judged = [r for r in rows if r.get("statements") == "judged"]
        s = {k: sum(r.get(k, 0) or 0 for r in judged) for k in (
            "n_cited_matched", "n_cited_checked", "n_cited_unreachable", "n_noncited_correct",
            "n_noncited_incorrect", "n_noncited_tie")}
        decided = s["n_noncited_correct"] + s["n_noncited_incorrect"]
        num, den = {"cited_match_rate_micro": (s["n_cited_matched"], s["n_cited_checked"]
                                               + s["n_cited_unreachable"]),
                    "cited_match_rate_checkable_micro": (s["n_cited_matched"],
                                                         s["n_cited_checked"]),
                    "noncited_accuracy_micro": (s["n_noncited_correct"], decided),
                    "noncited_accuracy_upstream_micro": (s["n_noncited_correct"],
                                                         decided + s["n_noncited_tie"])}[key]
        return num / den if den else None
    return statement


def _old_scinet(metric: str) -> Callable[[Sequence[Row]], float | None]:
    def micro(rows: Sequence[Row]) -> float | None:
        scored = [r for r in rows if r.get(metric) is not None]
        den = sum(r.get(f"{metric}_den", r.get("distinct", 0)) for r in scored
                  if not r.get("empty"))
        num = sum(r.get(f"{metric}_hits", 0) for r in scored)
        return num / den if den else None
    return micro


def _old_deepsynth(variant: str) -> Callable[[Sequence[Row]], float | None]:
    def precision(rows: Sequence[Row]) -> float | None:
        if any(r.get("judges") for r in rows):
            values = [e["mean"] for e in precision_by_judge(rows, variant).values()
                      if e["mean"] is not None]
            if values:
                return sum(values) / len(values)
            return 0.0 if variant == "upstream" else None
        correct = sum(int(r.get("n_correct") or 0) for r in rows)
        incorrect = sum(int(r.get("n_incorrect") or 0) for r in rows)
        if correct + incorrect:
            return correct / (correct + incorrect)
        return 0.0 if variant == "upstream" else None
    return precision


def _reportbench_rows(n: int, rng: random.Random) -> list[Row]:
    rows = []
    for i in range(n):
        row: Row = {"id": str(i), "status": rng.choice(["scored"] * 8 + ["error", "unscored",
                                                                         "missing"]),
                    "n_matched": rng.randint(0, 5), "ref_count": rng.randint(0, 6),
                    "n_gt_matched": rng.randint(0, 4), "n_gt": rng.randint(0, 7)}
        if rng.random() < 0.7:
            row.update(statements="judged", **{k: rng.randint(0, 3) for k in (
                "n_cited_matched", "n_cited_checked", "n_cited_unreachable",
                "n_noncited_correct", "n_noncited_incorrect", "n_noncited_tie")})
        rows.append(row)
    return rows


def _scinet_rows(n: int, rng: random.Random) -> list[Row]:
    rows = []
    for i in range(n):
        distinct = rng.randint(0, 6)
        row: Row = {"task_id": f"t{i}", "distinct": distinct, "empty": distinct == 0,
                    "status": "scored"}
        if rng.random() < 0.8:
            hits = rng.randint(0, distinct)
            row.update(cite_acc=hits / distinct if distinct else 0.0, cite_acc_hits=hits)
        rows.append(row)
    return rows


def _deepsynth_rows(n: int, rng: random.Random, judges: Sequence[str]) -> list[Row]:
    rows = []
    for i in range(n):
        row: Row = {"task_id": f"t{i}", "status": "scored", "n_correct": rng.randint(0, 3),
                    "n_incorrect": rng.randint(0, 2)}
        if judges:
            row["judges"] = {j: {"n_correct": rng.randint(0, 2), "n_incorrect": rng.randint(0, 2)}
                             for j in judges if rng.random() < 0.9}
        rows.append(row)
    return rows


@pytest.mark.parametrize("key", [k for k, m in REPORTBENCH.items() if m.pooled is not None])
def test_reportbench_pooled_interval_equals_the_per_resample_aggregator(key):
    rows = _reportbench_rows(300, random.Random(key))
    measure, old = REPORTBENCH[key], _old_reportbench(key)
    assert measure.value(rows) == old([r for r in rows if r["status"] != "error"])
    assert interval(measure, rows) == _old_interval(old, rows, measure.defined_on)


@pytest.mark.parametrize("variant", ["paper", "upstream"])
def test_scinet_micro_interval_equals_the_per_resample_aggregator(variant):
    measure = next(m for m in measures_of("pair", variant) if m.key.startswith("cite_acc_micro"))
    rows = _scinet_rows(300, random.Random(variant))
    assert measure.value(rows) == _old_scinet("cite_acc")(rows)
    assert interval(measure, rows) == _old_interval(_old_scinet("cite_acc"), rows,
                                                    measure.defined_on)


@pytest.mark.parametrize("judges", [(), ("a", "b"), ("a", "b", "c")])
@pytest.mark.parametrize("variant", ["paper", "upstream"])
def test_deepsynth_pooled_precision_interval_equals_the_per_resample_aggregator(variant, judges):
    measure = next(m for m in measures_for(variant) if m.pooled is not None)
    rows = _deepsynth_rows(250, random.Random(f"{variant}{judges}"), judges)
    old = _old_deepsynth(variant)
    assert measure.value(rows) == pytest.approx(old(rows), abs=1e-12)
    new, reference = interval(measure, rows), _old_interval(old, rows, measure.defined_on)
    assert new is not None and reference is not None
    assert new == pytest.approx(reference, abs=1e-12)


def _scipy_mean_interval(values: Sequence[float]) -> list[float] | None:
    """The interval of a plain mean as scipy's bootstrap gives it with one 2,000 × n draw."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bootstrap((np.asarray(values),), np.mean, n_resamples=CI_RESAMPLES,
                           confidence_level=CI_LEVEL, method="percentile", vectorized=True,
                           rng=np.random.default_rng(CI_SEED))
    return [round(float(result.confidence_interval.low), 12),
            round(float(result.confidence_interval.high), 12)]


def test_measures_over_as_many_rows_share_one_draw_and_keep_their_intervals(monkeypatch):
    """`intervals`: measures resampled over the same number of rows get one draw of indices
    between them, and each interval is still the one scipy gives that measure alone."""
    rng = random.Random(37)
    rows = [{"id": str(i), "status": "error" if i % 17 == 0 else "scored",
             "a": rng.random(), "b": rng.random() if i % 5 else None, "c": rng.random(),
             "hit": rng.randint(0, 3), "n": rng.randint(1, 4)} for i in range(400)]
    counted = [r for r in rows if r["status"] != "error"]
    measures = [Measure("t", "a"), Measure("t", "b"), Measure("t", "c"),
                Measure("t", "hit_micro", pooled=ratio(("hit",), ("n",)))]
    draws: list[int] = []
    real = measure_module._resample

    def spy(n: int, statistics: Any) -> Any:
        draws.append(n)
        return real(n, statistics)
    monkeypatch.setattr(measure_module, "_resample", spy)
    got = measure_module.intervals(measures, rows)
    assert sorted(draws) == sorted([len(counted), len([r for r in counted if r["b"]])])
    assert got[0] == _scipy_mean_interval([r["a"] for r in counted])
    assert got[1] == _scipy_mean_interval([r["b"] for r in counted if r["b"] is not None])
    assert got[2] == _scipy_mean_interval([r["c"] for r in counted])
    pooled = measures[3]
    assert got[3] == _old_interval(pooled.aggregator, rows, None)
    assert got[0] != got[2]                      # different values, the same indices
    assert [interval(m, rows) for m in measures] == got


def test_column_sums_by_draw_counts_equal_the_gathered_sums():
    """`core.pooled.ColumnSums`: integer columns summed as (draw counts) @ (columns) give the
    gathered sums exactly; a float column and integers past the exact bound are gathered."""
    from scholarbench.core.pooled import ColumnSums, Resamples
    gen = np.random.default_rng(5)
    n = 500
    arrays = [gen.integers(-3, 40, n), gen.integers(0, 2, n).astype(bool),
              gen.random(n), gen.integers(0, 10**6, n),
              np.array([2**62] + [1] * (n - 1), dtype=np.int64),
              np.full(n, 3), np.ones(n, dtype=bool)]
    sums = ColumnSums(arrays)
    assert sums.exact == [0, 1, 3]                    # not the float, not the huge column
    assert sums.constant == {5: 3 * n, 6: n}          # n times the one value
    batch = Resamples(gen.integers(0, n, (37, n)))
    got = sums.of(batch)
    want = np.stack([col[batch.idx].sum(axis=-1) for col in arrays], axis=-1)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)
    assert ColumnSums(arrays[:1]).exact == []         # one integer column: gathered


@pytest.mark.parametrize("seed", range(8))
def test_the_percentiles_are_scipys(seed):
    """`_percentile_interval` (numpy) gives scipy.stats.bootstrap's percentile interval of the
    same bootstrap distribution — ties, signed zeros, few distinct values, NaN."""
    gen = np.random.default_rng(seed)
    theta = [gen.random(CI_RESAMPLES), gen.integers(0, 5, CI_RESAMPLES) / 4.0,
             np.where(gen.random(CI_RESAMPLES) < 0.5, -0.0, 0.0),
             gen.normal(size=CI_RESAMPLES) * 1e-300, np.full(CI_RESAMPLES, 0.1),
             np.where(gen.random(CI_RESAMPLES) < 0.01, np.nan, 1.0)][seed % 6]
    if seed >= 6:
        theta = gen.random(gen.integers(2, 50))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = bootstrap((np.zeros(2),), np.mean, n_resamples=0, method="percentile",
                           bootstrap_result=argparse.Namespace(bootstrap_distribution=theta),
                           confidence_level=CI_LEVEL)
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    want = [round(low, 12), round(high, 12)] if math.isfinite(low + high) else None
    got = measure_module._percentile_interval(theta)
    assert got == want
    assert got is None or [str(v) for v in got] == [str(v) for v in want]   # the zero's sign

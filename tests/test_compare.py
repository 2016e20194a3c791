"""compare_runs: paired differences, bootstrap CIs, the permutation test, sample bookkeeping."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scholarbench.errors import ScholarbenchError
from scholarbench.benchmarks.taxobench.measures import METRIC_KEYS
from scholarbench.report.compare import (compare_runs, format_comparison, paired_bootstrap_ci,
                                         sign_flip_test)
from scholarbench.core.manifest import new_manifest, write_manifest
from scholarbench.benchmarks.taxobench.runner import aggregate

from test_report_html import arena_runs, taxo_runs  # noqa: F401


def scored_run(root: Path, name: str, values: dict[str, dict[str, float | None]],
               mode: str = "bottom-up", data_sha: str = "d") -> Path:
    """A TaxoBench run directory from per-sample metric values (the rest 0.5), summarised by
    the runner's own aggregate()."""
    out = root / name
    out.mkdir(parents=True)
    manifest = new_manifest(benchmark="taxobench", mode=mode, agent=name, run_name=name,
                            data={"path": "unused", "sha256": data_sha})
    write_manifest(out, manifest)
    rows = []
    for sid, given in values.items():
        row = {"id": sid, **{k: 0.5 for k in METRIC_KEYS}, "missing": False, "malformed": False}
        row.update(given)
        rows.append(row)
    (out / "scores.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (out / "summary.json").write_text(json.dumps(aggregate(rows, manifest)))
    return out


def test_identical_runs_differ_by_zero_with_a_zero_width_ci(taxo_runs):
    result = compare_runs(taxo_runs[0], taxo_runs[0], n_boot=500)
    assert result.n_shared > 0 and result.n_only_a == result.n_only_b == 0
    for m in result.metrics:
        if m.n:
            assert (m.diff, m.ci_low, m.ci_high, m.p_value) == (0.0, 0.0, 0.0, 1.0), m


def test_ci_contains_the_true_difference_on_a_constructed_case(tmp_path):
    rng = np.random.default_rng(7)
    a_vals = rng.uniform(0.2, 0.6, 40)
    noise = rng.normal(0.0, 0.03, 40)
    b_vals = a_vals + 0.1 + noise - noise.mean()          # mean difference exactly 0.1
    a = scored_run(tmp_path, "a", {f"s{i}": {"ari": float(v)} for i, v in enumerate(a_vals)})
    b = scored_run(tmp_path, "b", {f"s{i}": {"ari": float(v)} for i, v in enumerate(b_vals)})
    result = compare_runs(a, b, n_boot=4000, seed=1, metrics=["ari"])
    [m] = result.metrics
    assert m.n == 40 and m.diff == pytest.approx(0.1)
    assert m.ci_low < 0.1 < m.ci_high and m.ci_high - m.ci_low < 0.03
    assert m.p_value < 0.001 and not m.exact
    assert m.mean_a == pytest.approx(a_vals.mean()) and m.mean_b == pytest.approx(b_vals.mean())


def test_bootstrap_ci_coverage_is_about_95_percent():
    rng = np.random.default_rng(0)
    hits = 0
    for rep in range(300):
        diffs = rng.normal(0.05, 0.2, 30)
        low, high = paired_bootstrap_ci(diffs, n_boot=1000, seed=rep)
        hits += low <= 0.05 <= high
    assert 0.89 <= hits / 300 <= 0.99          # percentile bootstrap, n = 30: ~0.93–0.95


def test_permutation_p_is_exact_for_small_n():
    p, exact = sign_flip_test(np.array([0.1, 0.2, 0.05, 0.3, 0.15]), n_resamples=10000)
    assert exact and p == pytest.approx(2 / 32)      # only all-plus and all-minus are as extreme
    p, exact = sign_flip_test(np.array([0.1, -0.1]), n_resamples=10000)
    assert exact and p == pytest.approx(1.0)
    assert sign_flip_test(np.zeros(4)) == (1.0, True)


def test_shared_and_unshared_samples_and_undefined_values(tmp_path):
    a = scored_run(tmp_path, "a", {f"s{i}": {"sem_path": 0.1 * i} for i in range(1, 6)})
    b = scored_run(tmp_path, "b", {f"s{i}": {"sem_path": None if i == 4 else 0.1 * i + 0.2}
                                   for i in range(3, 8)})
    result = compare_runs(a, b, n_boot=200)
    assert (result.n_shared, result.n_only_a, result.n_only_b) == (3, 2, 2)
    assert result.only_a == ["s1", "s2"] and result.only_b == ["s6", "s7"]
    sem = next(m for m in result.metrics if m.metric == "sem_path")
    assert (sem.n, sem.n_undefined) == (2, 1)            # s4 undefined in B
    assert sem.diff == pytest.approx(0.2)
    text = format_comparison(result)
    assert "samples: 3 shared, 2 only in A, 2 only in B" in text
    assert "paired bootstrap" in text and "permutation test" in text
    assert "mean(B) − mean(A)" in text
    line = next(x for x in text.splitlines() if x.startswith("sem_path"))
    assert line.split()[1:4] == ["2", "(1", "undef.)"]


def test_direction_and_warnings(tmp_path):
    a = scored_run(tmp_path, "a", {f"s{i}": {"us_ted": 10.0 + i} for i in range(8)})
    b = scored_run(tmp_path, "b", {f"s{i}": {"us_ted": 8.0 + i * 0.5} for i in range(8)},
                   data_sha="other")
    result = compare_runs(a, b, n_boot=1000, metrics=["us_ted"])
    text = format_comparison(result)
    assert result.metrics[0].p_value == pytest.approx(2 / 256)   # exact: every sign flip
    assert text.splitlines()[-1].split()[-1] == "B"      # lower US-TED is better: B
    assert "scored on different data" in text
    md = format_comparison(result, "markdown")
    assert "| metric | n | A | B | B − A | 95% CI | p | favours |" in md


def test_researcharena_unscorable_tasks_are_not_paired(arena_runs):
    a, b, org = arena_runs
    result = compare_runs(a, b, n_boot=200)
    assert result.n_shared == 3
    r100 = next(m for m in result.metrics if m.metric == "R@100")
    assert r100.n == 2                                    # q3 has no gold: unscorable
    with pytest.raises(ScholarbenchError, match="unknown metric"):
        compare_runs(a, b, metrics=["ari"])


def test_different_benchmarks_are_refused(taxo_runs, arena_runs):
    with pytest.raises(ScholarbenchError, match="cannot compare"):
        compare_runs(taxo_runs[0], arena_runs[0])


def test_a_difference_the_test_does_not_support_favours_no_run(tmp_path):
    """p above α: "no difference shown", not a winner (two samples: p = 1.0 here)."""
    a = scored_run(tmp_path, "a", {"s1": {"us_ted": 10.0}, "s2": {"us_ted": 12.0}})
    b = scored_run(tmp_path, "b", {"s1": {"us_ted": 8.0}, "s2": {"us_ted": 13.0}})
    result = compare_runs(a, b, n_boot=100, metrics=["us_ted"])
    assert result.metrics[0].diff == pytest.approx(-0.5) and result.metrics[0].p_value == 1.0
    text = format_comparison(result)
    assert text.splitlines()[-1].endswith("no difference shown")
    assert "favours A" not in text and "p ≤ 0.05" in text

"""`compare_runs`: per-metric differences between two runs on the samples both scored.

For each metric the samples are paired by id; a pair counts when both runs define the metric on
it (undefined or unscorable values are excluded and counted). Reported per metric:

- n pairs, mean of A, mean of B (over those pairs), and the difference **mean(B) − mean(A)**
  (positive = B scores higher; whether that is better depends on the metric's direction, shown);
- a **95% paired bootstrap CI** of the mean difference: the n per-sample differences resampled
  with replacement `n_boot` times (numpy `default_rng(seed)`), percentile interval (2.5, 97.5);
- a **two-sided paired permutation (sign-flip) test** of "mean difference = 0":
  `scipy.stats.permutation_test` with `permutation_type="samples"` (each pair's two values are
  swapped at random, i.e. the difference's sign is flipped), statistic = mean difference. With
  2^n ≤ `n_boot` every sign pattern is enumerated (an exact p); otherwise `n_boot` random ones.
  No correction for testing several metrics is applied.

Also: how many samples both runs share, and how many only one has. Identical runs give
difference 0, CI [0, 0], p = 1. The table's "favours" column names the run the difference
favours only at p ≤ 0.05 (`ALPHA`); above it, "no difference shown".
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from scholarbench.errors import ScholarbenchError
from scholarbench.report.judges import rank_runs, tau_text, top_text
from scholarbench.core.display import ARROWS
from scholarbench.core.measure import Measure
from scholarbench.report.sections.base import ReportRun, load_report_run, section_for
from scholarbench.text.escape import md, terminal

TEST_NAME = ("two-sided paired permutation test (sign flips of the per-sample differences, "
             "scipy.stats.permutation_test; exact when 2^n ≤ n_boot)")
CI_NAME = "95% paired bootstrap percentile CI of the mean difference"
_PLAIN_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_@.\-]*")


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    label: str
    higher_is_better: bool | None     # None: a measure without a direction (a count)
    n: int                  # pairs where both runs define the metric
    n_undefined: int        # shared samples where either run leaves it undefined
    mean_a: float | None
    mean_b: float | None
    diff: float | None      # mean(B) − mean(A) over the pairs
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    exact: bool             # the permutation p enumerates every sign pattern


@dataclass
class Comparison:
    run_a: str
    run_b: str
    name_a: str
    name_b: str
    benchmark: str
    mode_a: str
    mode_b: str
    n_shared: int
    n_only_a: int
    n_only_b: int
    only_a: list[str]
    only_b: list[str]
    n_boot: int
    seed: int
    metrics: list[MetricComparison] = field(default_factory=list)
    displays: dict[str, Measure] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    judge_rankings: dict[str, dict[str, Any]] = field(default_factory=dict)   # measure → ranks

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("metrics", "displays")}
        out["difference"] = "mean(B) - mean(A)"
        out["ci"] = CI_NAME
        out["test"] = TEST_NAME
        out["metrics"] = [m.__dict__ for m in self.metrics]
        return out


def paired_bootstrap_ci(diffs: np.ndarray, n_boot: int = 10000, seed: int = 0,
                        level: float = 0.95) -> tuple[float, float]:
    """Percentile CI of the mean of paired differences (resampling pairs with replacement)."""
    n = len(diffs)
    if n == 0:
        raise ValueError("no pairs")
    if np.all(diffs == diffs[0]):
        return float(diffs[0]), float(diffs[0])
    rng = np.random.default_rng(seed)
    means = np.empty(n_boot)
    chunk = max(1, min(n_boot, 2_000_000 // max(n, 1)))
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = diffs[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high)


def sign_flip_test(diffs: np.ndarray, n_resamples: int = 10000, seed: int = 0
                   ) -> tuple[float, bool]:
    """Two-sided paired permutation p-value for mean(diffs) = 0, and whether it is exact."""
    n = len(diffs)
    if n == 0:
        raise ValueError("no pairs")
    if np.allclose(diffs, 0.0, rtol=0, atol=1e-15):
        return 1.0, True
    if n == 1:      # the two sign patterns give ±d: as extreme as observed either way
        return 1.0, True
    from scipy.stats import permutation_test
    zeros = np.zeros(n)
    result = permutation_test((diffs, zeros), lambda x, y: np.mean(x - y),
                              permutation_type="samples", n_resamples=n_resamples,
                              alternative="two-sided", random_state=seed)
    exact = 2 ** n <= n_resamples
    return float(min(1.0, result.pvalue)), exact


def _values(run: ReportRun, keys: Sequence[str]) -> dict[str, dict[str, float | None]]:
    unscorable = {str(r.get("id")) for r in run.scores if r.get("unscorable")}
    return {sid: v for sid, v in run.sample_values(keys).items() if sid not in unscorable}


def compare_runs(run_a: Path | str | ReportRun, run_b: Path | str | ReportRun,
                 n_boot: int = 10000, seed: int = 0,
                 metrics: Sequence[str] | None = None) -> Comparison:
    """Compare two finished runs of one benchmark (see the module docstring)."""
    if n_boot < 1:
        raise ScholarbenchError("--n-boot must be at least 1")
    a = run_a if isinstance(run_a, ReportRun) else load_report_run(run_a)
    b = run_b if isinstance(run_b, ReportRun) else load_report_run(run_b)
    if a.benchmark != b.benchmark:
        raise ScholarbenchError(f"cannot compare a {a.benchmark} run with a {b.benchmark} run")
    section = section_for(a.benchmark)
    displays = {m.key: m for m in section.paired_metrics(a.mode)}
    for m in section.paired_metrics(b.mode):
        displays.setdefault(m.key, m)
    keys = [k for k in displays if k in a.summary.metrics and k in b.summary.metrics]
    if metrics:
        unknown = [k for k in metrics if k not in keys]
        if unknown:
            raise ScholarbenchError(f"unknown metric(s) {', '.join(unknown)} for these runs; "
                                    f"known: {', '.join(keys)}")
        keys = list(metrics)
    if not a.scores or not b.scores:
        empty = a.run_dir if not a.scores else b.run_dir
        raise ScholarbenchError(f"{empty}: no scores.jsonl rows to pair (re-score the run)")
    va, vb = _values(a, keys), _values(b, keys)
    ids_a = [str(r.get("id")) for r in a.scores]
    ids_b = [str(r.get("id")) for r in b.scores]
    shared = [sid for sid in ids_a if sid in set(ids_b)]
    only_a = [sid for sid in ids_a if sid not in set(ids_b)]
    only_b = [sid for sid in ids_b if sid not in set(ids_a)]
    out = Comparison(str(a.run_dir), str(b.run_dir), a.name, b.name, a.benchmark, a.mode,
                     b.mode, len(shared), len(only_a), len(only_b), only_a, only_b, n_boot,
                     seed, displays={k: displays[k] for k in keys})
    data_a, data_b = a.manifest.get("data"), b.manifest.get("data")
    sha_a = data_a.get("sha256") if isinstance(data_a, dict) else None
    sha_b = data_b.get("sha256") if isinstance(data_b, dict) else None
    if sha_a and sha_b and sha_a != sha_b:
        out.warnings.append("the runs were scored on different data (the manifests' data "
                            "sha256 differ): equal sample ids may be different samples")
    for key in (a.raw_summary.get("judge_panel") or {}):
        if key in (b.raw_summary.get("judge_panel") or {}):
            ranks = rank_runs({"A": a, "B": b}, key)
            if ranks is not None:
                out.judge_rankings[key] = ranks
    for key in keys:
        pairs = [(va[s][key], vb[s][key]) for s in shared
                 if s in va and s in vb and va[s][key] is not None and vb[s][key] is not None]
        n_shared_scored = sum(1 for s in shared if s in va and s in vb)
        d = displays[key]
        if not pairs:
            out.metrics.append(MetricComparison(key, d.label, d.higher_is_better, 0,
                                                n_shared_scored, None, None, None, None, None,
                                                None, False))
            continue
        xa = np.array([p[0] for p in pairs], dtype=float)
        xb = np.array([p[1] for p in pairs], dtype=float)
        diffs = xb - xa
        low, high = paired_bootstrap_ci(diffs, n_boot, seed)
        p, exact = sign_flip_test(diffs, n_boot, seed)
        out.metrics.append(MetricComparison(key, d.label, d.higher_is_better, len(pairs),
                                            n_shared_scored - len(pairs), float(xa.mean()),
                                            float(xb.mean()), float(diffs.mean()), low, high, p,
                                            exact))
    return out


def _fmt(d: Measure | None, value: float | None, signed: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    if d is not None and d.percent:
        text = f"{value * 100:+.2f}" if signed else f"{value * 100:.2f}"
        return text + " pp" if signed else text + "%"
    decimals = d.decimals if d is not None else 4
    return f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"


ALPHA = 0.05


def _direction(higher_is_better: bool | None) -> str:
    return "none" if higher_is_better is None else "higher" if higher_is_better else "lower"


def favours(m: MetricComparison, alpha: float = ALPHA) -> str:
    """Which run the difference favours — only when the test rejects "no difference" at
    `alpha`; above it, "no difference shown". A measure without a direction favours no run."""
    if m.diff is None or m.higher_is_better is None:
        return "—"
    if m.diff == 0 or m.p_value is None or m.p_value > alpha:
        return "no difference shown"
    return "B" if (m.diff > 0) == m.higher_is_better else "A"


def format_comparison(result: Comparison, fmt: str = "terminal") -> str:
    """A table of the comparison with the method stated; fmt "terminal" or "markdown". Names,
    paths, judge labels and warnings (a run's own text) go through `text.escape`."""
    esc = md if fmt == "markdown" else terminal
    lines = [f"A = {esc(result.name_a)} ({esc(result.benchmark)} {esc(result.mode_a)}): "
             f"{esc(result.run_a)}",
             f"B = {esc(result.name_b)} ({esc(result.benchmark)} {esc(result.mode_b)}): "
             f"{esc(result.run_b)}"]
    for warning in result.warnings:
        lines.append(f"warning: {esc(warning)}")
    if result.mode_a != result.mode_b:
        lines.append(f"note: the runs are of different modes ({esc(result.mode_a)} vs "
                     f"{esc(result.mode_b)}); samples are paired by id all the same")
    lines.append(f"samples: {result.n_shared} shared, {result.n_only_a} only in A, "
                 f"{result.n_only_b} only in B (only shared samples are compared)")
    lines.append(f"difference = mean(B) − mean(A) over the shared samples where both define "
                 f"the metric; {CI_NAME} ({result.n_boot} resamples, seed {result.seed}); "
                 f"p: {TEST_NAME}. \"favours\" names a run only at p ≤ {ALPHA}.")
    header = ["metric", "n", "A", "B", "B − A", "95% CI", "p", "favours"]
    rows = []
    for m in result.metrics:
        d = result.displays.get(m.metric)
        better = favours(m)
        ci = ("—" if m.ci_low is None else f"[{_fmt(d, m.ci_low, True)}, "
              f"{_fmt(d, m.ci_high, True)}]")
        p = "—" if m.p_value is None else f"{m.p_value:.4f}"
        name = _key(m.metric, esc) + ARROWS[_direction(m.higher_is_better)]
        n = f"{m.n}" + (f" ({m.n_undefined} undef.)" if m.n_undefined else "")
        rows.append([name, n, _fmt(d, m.mean_a), _fmt(d, m.mean_b), _fmt(d, m.diff, True), ci,
                     p, better])
    after = ranking_lines(result, esc)
    if fmt == "markdown":
        out = ["| " + " | ".join(header) + " |", "| --- | " + " | ".join(["---:"] * 7) + " |"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        return "\n".join([*(f"- {x}" for x in lines), "", *out]
                         + (["", *(f"- {x}" for x in after)] if after else []))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    table = ["  ".join([r[0].ljust(widths[0])] + [str(c).rjust(w) for c, w in
                                                     zip(r[1:], widths[1:])]) for r in
             [header, *rows]]
    table.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines + [""] + table + ([""] + after if after else []))


def _key(key: str, esc: Callable[[object], str]) -> str:
    """A metric key: as it is when it is a plain identifier (`path_rationality_llm`: an
    underscore inside a word is no Markdown markup), else through `esc`."""
    return key if _PLAIN_KEY.fullmatch(key) else esc(key)


def ranking_lines(result: Comparison, esc: Callable[[object], str] = terminal) -> list[str]:
    """How each judge ranks A and B on every measure both runs' judge panels rated (judge labels
    through `esc`)."""
    if not result.judge_rankings:
        return []
    out = ["judges' rankings of A and B (Kendall τ-b between two judges' orderings; "
           "docs/judges.md):"]
    for key, ranks in result.judge_rankings.items():
        taus = "; ".join(f"τ {esc(pair)} {tau_text(t['tau'])}"
                         for pair, t in ranks["kendall_tau"].items())
        out.append(f"{_key(key, esc)}: {taus}; {top_text(ranks, esc)}")
    return out
